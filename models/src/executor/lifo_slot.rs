//! A worker's LIFO slot: the task its worker woke last, run next, so that a task woken by a
//! message runs while the message is still in the cache. Unlike the local queue, nothing can
//! steal it, so a task parked here waits for its own worker (tokio #4730) unless the worker hands
//! it off before blocking (#6596).

use std::marker::PhantomData;
use std::sync::atomic::Ordering::{AcqRel, Acquire};

use super::local_queue::{QueueProtocol, TokioQueues};
use super::{Inject, LocalQueue, TaskId};
use crate::sync::{Atomic64, Primitives};

/// The slot's value while it holds no task; task ids are `u32`, so none collides with it.
const EMPTY: u64 = u64::MAX;

/// One task, for its owner only.
///
/// Only the owning worker puts and takes; the slot is atomic so that the worker can share its
/// state with the others (which may ask `is_empty`) without `unsafe`.
pub struct LifoSlot<S: Primitives, P: QueueProtocol = TokioQueues> {
    task: S::AtomicU64,
    _protocol: PhantomData<P>,
}

impl<S: Primitives, P: QueueProtocol> LifoSlot<S, P> {
    pub fn new() -> Self {
        LifoSlot {
            task: S::AtomicU64::new(EMPTY),
            _protocol: PhantomData,
        }
    }

    /// Puts `task` in the slot and returns the task it displaced, which the caller pushes to the
    /// back of its local queue.
    pub fn put(&self, task: TaskId) -> Option<TaskId> {
        decode(self.task.swap(u64::from(task.0), AcqRel))
    }

    pub fn take(&self) -> Option<TaskId> {
        decode(self.task.swap(EMPTY, AcqRel))
    }

    pub fn is_empty(&self) -> bool {
        self.task.load(Acquire) == EMPTY
    }

    /// What `block_in_place` does before its worker blocks (#6596): moves the occupant to the
    /// back of `queue`, where other workers can steal it, instead of leaving it stuck behind the
    /// blocking call. Returns whether a task moved.
    pub fn hand_off(&self, queue: &LocalQueue<S, P>, inject: &Inject<S, P>) -> bool {
        if !P::HAND_OFF_LIFO {
            return false;
        }
        match self.take() {
            Some(task) => {
                queue.push_back_or_overflow(task, inject);
                true
            }
            None => false,
        }
    }
}

impl<S: Primitives, P: QueueProtocol> Default for LifoSlot<S, P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Primitives, P: QueueProtocol> std::fmt::Debug for LifoSlot<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LifoSlot")
            .field("task", &decode(self.task.load(Acquire)))
            .finish()
    }
}

fn decode(value: u64) -> Option<TaskId> {
    (value != EMPTY).then(|| TaskId(u32::try_from(value).expect("the slot holds a task id")))
}
