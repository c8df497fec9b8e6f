//! The runtime's global inject queue: tasks spawned or woken from outside a worker, and the
//! overflow of full local queues. A mutex around a FIFO, as in tokio.
//!
//! Its length is also kept in an atomic, so that a worker can see that the queue is empty, and
//! a searching worker can size its batch, without taking the lock every other worker contends
//! for.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};

use super::TaskId;
use super::local_queue::{QueueProtocol, TokioQueues};
use crate::sync::{Atomic64, Lock, Primitives};

/// The global inject queue.
pub struct Inject<S: Primitives, P: QueueProtocol = TokioQueues> {
    tasks: S::Mutex<VecDeque<TaskId>>,
    /// The deque's length, stored under the lock after every change. Storing the length instead
    /// of adding and subtracting keeps it from ever disagreeing with the deque or going below 0.
    len: S::AtomicU64,
    _protocol: PhantomData<P>,
}

impl<S: Primitives, P: QueueProtocol> Inject<S, P> {
    pub fn new() -> Self {
        Inject {
            tasks: S::Mutex::new(VecDeque::new()),
            len: S::AtomicU64::new(0),
            _protocol: PhantomData,
        }
    }

    pub fn push(&self, task: TaskId) {
        self.change(|tasks| tasks.push_back(task));
    }

    /// Pushes `tasks` in order, under one lock, as an overflowing local queue does.
    pub fn push_batch(&self, tasks: impl IntoIterator<Item = TaskId>) {
        self.change(|queue| queue.extend(tasks));
    }

    pub fn pop(&self) -> Option<TaskId> {
        if self.is_empty() {
            return None;
        }
        self.change(VecDeque::pop_front)
    }

    /// Takes up to `max` tasks from the front, oldest first, under one lock.
    pub fn pop_batch(&self, max: usize) -> Vec<TaskId> {
        if max == 0 || self.is_empty() {
            return Vec::new();
        }
        self.change(|tasks| {
            let taken = max.min(tasks.len());
            tasks.drain(..taken).collect()
        })
    }

    /// Tasks in the queue, read without the lock: a moment ago's length.
    pub fn len(&self) -> usize {
        // Acquire pairs with the release under the lock, so a worker that sees a length also sees
        // the pushes that made it; the tasks themselves are still taken under the lock.
        usize::try_from(self.len.load(Acquire)).expect("the length fits in usize")
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` on the deque under the lock, then publishes the new length.
    fn change<R>(&self, f: impl FnOnce(&mut VecDeque<TaskId>) -> R) -> R {
        if !P::INJECT_LEN_UNDER_LOCK {
            return self.change_then_count(f);
        }
        self.tasks.with(|tasks| {
            let result = f(tasks);
            self.len.store(tasks.len() as u64, Release);
            result
        })
    }

    /// The broken alternative [`QueueProtocol::INJECT_LEN_UNDER_LOCK`] describes: the length
    /// moves by the change's difference once the lock is released.
    fn change_then_count<R>(&self, f: impl FnOnce(&mut VecDeque<TaskId>) -> R) -> R {
        let (result, before, after) = self.tasks.with(|tasks| {
            let before = tasks.len() as u64;
            let result = f(tasks);
            (result, before, tasks.len() as u64)
        });
        self.len.fetch_add(after.wrapping_sub(before), AcqRel);
        result
    }
}

impl<S: Primitives, P: QueueProtocol> Default for Inject<S, P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Primitives, P: QueueProtocol> std::fmt::Debug for Inject<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inject")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}
