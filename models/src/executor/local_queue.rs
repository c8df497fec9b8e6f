//! A worker's local run queue: tokio's lock-free ring of 256 tasks
//! (`runtime/scheduler/multi_thread/queue.rs`), with one owner and any number of thieves.
//!
//! - The owner pushes to the back and pops from the front. Other workers steal half of the
//!   queue from the front, one thief at a time.
//! - `tail` is written only by the owner, and says where the next push goes.
//! - `head` packs two indices. `real` is the next task to hand out. `steal` is the first task that
//!   a running steal is still copying out, and equals `real` when no steal runs. A thief claims
//!   its batch by moving `real` alone, so the claimed slots stay reserved until it has copied them
//!   and sets `steal = real`. The owner counts free room from `steal`, so it never overwrites a
//!   slot that a thief is still reading.
//! - Indices run over all of `u32` and wrap; a task sits in slot `index % 256`. Such wide indices
//!   keep `head` from coming back to an old value while a thief holds it (tokio #5041).
//! - Tasks live in atomic slots, not cells. Every slot access is ordered by `head` and `tail`, as
//!   the cells are in tokio, so a slot itself needs no ordering.
//!
//! [`QueueProtocol`] makes the steps that are easy to get wrong switches, so that the model
//! checks can prove that they catch each one flipped.

use std::marker::PhantomData;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

use super::{Inject, TaskId};
use crate::sync::{Atomic64, Primitives};

/// Tasks a local queue holds, as in tokio.
pub const LOCAL_QUEUE_CAPACITY: usize = 256;
const CAPACITY: u32 = LOCAL_QUEUE_CAPACITY as u32;
const MASK: usize = LOCAL_QUEUE_CAPACITY - 1;
/// Tasks a full queue sends to the inject queue, along with the task being pushed.
const OVERFLOW_BATCH: u32 = CAPACITY / 2;

/// The steps of the queue protocols that are easy to get wrong, as switches. [`TokioQueues`]
/// keeps every one; the model checks define variants that flip one each and prove that loom or
/// shuttle catches it. The switches are constants, so the shipped code pays nothing for them.
pub trait QueueProtocol: Send + Sync + 'static {
    /// Claim a batch with a compare-and-swap on `head`. A thief that loads `head` and stores it
    /// back instead can undo a pop that landed in between, and take a task the owner also took.
    const CLAIM_WITH_CAS: bool = true;
    /// Load `tail` with acquire when claiming a batch. A relaxed load can see a pushed index
    /// before the task written to its slot, and copy out the slot's older value. shuttle runs
    /// every atomic as `SeqCst`, so only loom can catch this one.
    const CLAIM_ACQUIRES_TAIL: bool = true;
    /// An overflow claims the front half with a compare-and-swap on `head`. A plain store can
    /// undo a thief's claim that landed after the owner read `head`: the thief and the inject
    /// queue then both get the claimed tasks.
    const OVERFLOW_WITH_CAS: bool = true;
    /// A push counts free room from `steal`, not from `real`, so the slots a running steal has
    /// claimed stay reserved until it has copied them. Counting from `real` lets the owner
    /// overwrite a slot a thief has yet to read.
    const ROOM_FROM_STEAL: bool = true;
    /// The inject queue stores its length under its lock after every change. Adding and
    /// subtracting after the lock is released can subtract a batch before the push that made it
    /// is added, and wrap the length below zero.
    const INJECT_LEN_UNDER_LOCK: bool = true;
    /// A worker about to block in `block_in_place` hands its LIFO slot's task to its queue
    /// (tokio #6596). Without that, the task waits where no other worker can reach it for as long
    /// as the worker blocks.
    const HAND_OFF_LIFO: bool = true;
}

/// tokio's protocols.
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioQueues;

impl QueueProtocol for TokioQueues {}

/// A worker's local run queue.
///
/// `push_back_or_overflow` and `pop` belong to the owner, and so does `steal_into`'s `dst`: only
/// one thread may use them on a given queue at a time. `steal_into` (with the queue as the
/// victim), `len` and `is_empty` may be called from any thread. Breaking the rule cannot corrupt
/// memory, only lose or repeat tasks.
pub struct LocalQueue<S: Primitives, P: QueueProtocol = TokioQueues> {
    /// `steal << 32 | real`.
    head: S::AtomicU64,
    /// A `u32` index, kept in a 64-bit atomic because that is the width the facade offers.
    tail: S::AtomicU64,
    slots: Box<[S::AtomicU64]>,
    _protocol: PhantomData<P>,
}

impl<S: Primitives, P: QueueProtocol> LocalQueue<S, P> {
    pub fn new() -> Self {
        Self::starting_at(0)
    }

    /// An empty queue whose indices start at `index` instead of 0. Indices wrap around `u32`,
    /// and starting near `u32::MAX` lets a test cross the wrap within a few pushes.
    pub fn starting_at(index: u32) -> Self {
        LocalQueue {
            head: S::AtomicU64::new(pack(index, index)),
            tail: S::AtomicU64::new(u64::from(index)),
            slots: (0..LOCAL_QUEUE_CAPACITY)
                .map(|_| S::AtomicU64::new(0))
                .collect(),
            _protocol: PhantomData,
        }
    }

    /// Tasks waiting in the queue, not counting a batch a thief has claimed. Never more than
    /// [`LOCAL_QUEUE_CAPACITY`], whichever thread asks.
    pub fn len(&self) -> usize {
        // Loading `head` and `tail` once each could pair an old head with a newer tail (a pop and
        // a push in between) and report 257, or 384 across an overflow. So load `head` again: if
        // it did not move, `tail` was read while `head` held that value, and at every such moment
        // the queue holds between 0 and 256 tasks. Loading `head` first keeps `tail` from being
        // older than it, so the difference never wraps below zero either.
        let mut head = self.head.load(Acquire);
        loop {
            let tail = load_index(&self.tail, Acquire);
            let head_again = self.head.load(Acquire);
            if head_again == head {
                let (_, real) = unpack(head);
                return tail.wrapping_sub(real) as usize;
            }
            head = head_again;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Owner only: pushes `task` to the back. Returns how many tasks went to `inject` instead:
    /// 0 when there was room; 129 when the queue was full, so its older half and `task` moved
    /// there in one batch; 1 when it was full while a thief was copying a batch out, which frees
    /// room soon, so only `task` moved.
    pub fn push_back_or_overflow(&self, task: TaskId, inject: &Inject<S, P>) -> usize {
        loop {
            // Acquire: a thief releases its reserved slots with a release on `head`, so its
            // reads of them happen before this push overwrites one.
            let (steal, real) = unpack(self.head.load(Acquire));
            let tail = self.owner_tail();
            let room_from = if P::ROOM_FROM_STEAL { steal } else { real };
            if tail.wrapping_sub(room_from) < CAPACITY {
                self.write_slot(tail, task);
                // Release: publishes the slot to thieves, which load `tail` with acquire.
                store_index(&self.tail, tail.wrapping_add(1), Release);
                return 0;
            }
            if steal != real {
                inject.push(task);
                return 1;
            }
            if let Some(moved) = self.overflow(task, real, tail, inject) {
                return moved;
            }
            // A thief claimed a batch between the load and the claim: there may be room now.
        }
    }

    /// Moves the older half of a full queue, then `task`, to `inject`, keeping their order;
    /// `None` if a thief got in first.
    fn overflow(&self, task: TaskId, head: u32, tail: u32, inject: &Inject<S, P>) -> Option<usize> {
        debug_assert_eq!(tail.wrapping_sub(head), CAPACITY, "the queue is not full");
        // Claim the front half by moving both heads past it; thieves now see only the back half.
        // The claim comes before the reads, which is safe because only the owner writes slots,
        // so it needs no acquire.
        let claimed = head.wrapping_add(OVERFLOW_BATCH);
        if P::OVERFLOW_WITH_CAS {
            self.head
                .compare_exchange(pack(head, head), pack(claimed, claimed), Release, Relaxed)
                .ok()?;
        } else {
            self.head.store(pack(claimed, claimed), Release);
        }
        let front_half =
            (0..OVERFLOW_BATCH).map(|offset| self.read_slot(head.wrapping_add(offset)));
        inject.push_batch(front_half.chain(std::iter::once(task)));
        Some(OVERFLOW_BATCH as usize + 1)
    }

    /// Owner only: takes the task at the front.
    pub fn pop(&self) -> Option<TaskId> {
        let mut head = self.head.load(Acquire);
        loop {
            let (steal, real) = unpack(head);
            if real == self.owner_tail() {
                return None;
            }
            let next_real = real.wrapping_add(1);
            // A running steal keeps its reservation: only `real` moves.
            let next = if steal == real {
                pack(next_real, next_real)
            } else {
                pack(steal, next_real)
            };
            match self.head.compare_exchange(head, next, AcqRel, Acquire) {
                Ok(_) => return Some(self.read_slot(real)),
                Err(actual) => head = actual,
            }
        }
    }

    /// Steals `n - n/2` of this queue's `n` tasks for the thief that owns `dst`: returns the last
    /// of them, for the thief to run at once, and puts the rest at the back of `dst`. Steals
    /// nothing if another steal from this queue is running, or if `dst` holds more than half its
    /// capacity: the batch must fit without touching slots that a thief of `dst` may be reading.
    pub fn steal_into(&self, dst: &LocalQueue<S, P>) -> Option<TaskId> {
        debug_assert!(
            !std::ptr::eq(self, dst),
            "a worker cannot steal from itself"
        );
        let dst_tail = dst.owner_tail();
        let (dst_steal, _) = unpack(dst.head.load(Acquire));
        if dst_tail.wrapping_sub(dst_steal) > CAPACITY / 2 {
            return None;
        }
        let (first, stolen) = self.claim_half()?;
        let kept = stolen - 1;
        for offset in 0..kept {
            let task = self.read_slot(first.wrapping_add(offset));
            dst.write_slot(dst_tail.wrapping_add(offset), task);
        }
        let runs_now = self.read_slot(first.wrapping_add(kept));
        self.finish_steal();
        if kept > 0 {
            // Release: publishes the copied slots to `dst`'s own thieves.
            store_index(&dst.tail, dst_tail.wrapping_add(kept), Release);
        }
        Some(runs_now)
    }

    /// Claims the front half (rounded up) by moving `real` past it and leaving `steal` behind.
    /// Returns the first claimed index and how many were claimed.
    fn claim_half(&self) -> Option<(u32, u32)> {
        let mut head = self.head.load(Acquire);
        loop {
            let (steal, real) = unpack(head);
            if steal != real {
                return None;
            }
            // Acquire: the owner's writes to the slots up to `tail` happen before the reads.
            let order = if P::CLAIM_ACQUIRES_TAIL {
                Acquire
            } else {
                Relaxed
            };
            let tail = load_index(&self.tail, order);
            let available = tail.wrapping_sub(real);
            let claimed = available - available / 2;
            if claimed == 0 {
                return None;
            }
            let next = pack(steal, real.wrapping_add(claimed));
            if P::CLAIM_WITH_CAS {
                // AcqRel, as in tokio: the acquire orders the reads after the release that ended
                // the previous steal of these slots.
                if let Err(actual) = self.head.compare_exchange(head, next, AcqRel, Acquire) {
                    head = actual;
                    continue;
                }
            } else {
                self.head.store(next, Release);
            }
            // Only now: `tail` may be newer than the `head` it was read after (a pop and a push
            // in between), so a claim that failed may have counted more than the ring holds.
            assert!(claimed <= CAPACITY / 2, "claimed {claimed} tasks");
            return Some((real, claimed));
        }
    }

    /// Ends a steal: `steal` catches up with `real`, wherever the owner's pops have moved it.
    fn finish_steal(&self) {
        let mut head = self.head.load(Acquire);
        loop {
            let (_, real) = unpack(head);
            // Release: the reads of the claimed slots happen before the owner reuses them.
            match self
                .head
                .compare_exchange(head, pack(real, real), AcqRel, Acquire)
            {
                Ok(_) => return,
                Err(actual) => head = actual,
            }
        }
    }

    /// The tail, as only its writer may read it without ordering: its own last store.
    fn owner_tail(&self) -> u32 {
        load_index(&self.tail, Relaxed)
    }

    fn read_slot(&self, index: u32) -> TaskId {
        let value = self.slots[index as usize & MASK].load(Relaxed);
        TaskId(u32::try_from(value).expect("slots hold task ids"))
    }

    fn write_slot(&self, index: u32, task: TaskId) {
        self.slots[index as usize & MASK].store(u64::from(task.0), Relaxed);
    }
}

impl<S: Primitives, P: QueueProtocol> Default for LocalQueue<S, P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Primitives, P: QueueProtocol> std::fmt::Debug for LocalQueue<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalQueue")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

fn pack(steal: u32, real: u32) -> u64 {
    (u64::from(steal) << 32) | u64::from(real)
}

/// `(steal, real)`.
fn unpack(head: u64) -> (u32, u32) {
    ((head >> 32) as u32, head as u32)
}

fn load_index<A: Atomic64>(index: &A, order: std::sync::atomic::Ordering) -> u32 {
    u32::try_from(index.load(order)).expect("indices are u32")
}

fn store_index<A: Atomic64>(index: &A, value: u32, order: std::sync::atomic::Ordering) {
    index.store(u64::from(value), order);
}
