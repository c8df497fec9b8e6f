//! brpc's `TimerThread`: bucketed schedulers, one timer thread with a heap of its own.
//!
//! - A scheduler picks a bucket by hashing its thread, pushes the timer there under the bucket's
//!   lock, and learns whether it beat the bucket's nearest deadline. Only then does it take the
//!   global lock, and only if it also beats the global nearest deadline does it bump the signal
//!   count and ask for the timer thread to be woken. RPC timeouts mostly arrive in deadline order,
//!   so most schedules touch only their bucket.
//! - The timer thread resets the global nearest deadline *before* draining the buckets, so any
//!   timer scheduled during the drain lowers it again and is noticed; drains every bucket into
//!   its private heap, freeing cancelled timers; runs what is due, checking the global nearest
//!   before each run; and sleeps on the signal count until its heap's earliest deadline.
//! - `unschedule` only swaps the timer's version; the timer thread frees the slot later: when it
//!   drains the timer's bucket, or, once the timer is in its heap, when it pops it at its
//!   deadline.
//!
//! That last rule is brpc #3383: with long timeouts, cancelled timers hold their slots for the
//! whole timeout, about qps × timeout of them. [`Reclaim`] adds brpc #3384's fix: a sweep of the
//! heap once it has doubled past a floor, and an optional cap on the thread's sleep so that the
//! buckets are drained even while every deadline is far away.
//!
//! Each bucket hands out slots under its own lock: ones its timers used before, which the timer
//! thread returns to it on its next drain, or new ones from the shared table while there is room.
//! Only a bucket that finds the whole capacity taken looks for a spare slot in the others.

use std::collections::BinaryHeap;
use std::marker::PhantomData;
use std::sync::atomic::Ordering::{Relaxed, Release, SeqCst};

use super::slots::{Slots, Start, Task};
use super::{
    ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled, fmix64,
};
use crate::sync::{Atomic64, Lock, Primitives};

/// The steps of brpc's protocol that are easy to get subtly wrong, as switches. [`Brpc`] keeps
/// every one; the model checks define variants that flip one each and prove loom catches it.
pub trait Protocol: Send + Sync + 'static {
    /// Reset the global nearest deadline before draining the buckets, not after.
    const RESET_NEAREST_BEFORE_DRAIN: bool = true;
    /// Cancel by swapping the version, so the timer thread sees the cancellation.
    const CANCEL_BUMPS_VERSION: bool = true;
    /// Bump the signal count when a timer beats the global nearest deadline.
    const SIGNAL_EARLIER_TIMERS: bool = true;
    /// Before sleeping, check under the global lock that no earlier timer arrived during the round.
    const CHECK_NEAREST_BEFORE_SLEEP: bool = true;
    /// Publish a finished run with a release store, so `unschedule` callers see the callback's work.
    const RELEASE_ON_FINISH: bool = true;
    /// Check for `stop` under the global lock before sleeping. Without it, a stop that lands while
    /// a round runs is overwritten by the next reset and the thread sleeps forever (brpc #2986).
    const CHECK_STOP_BEFORE_SLEEP: bool = true;
}

/// brpc's protocol, every step as designed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Brpc;

impl Protocol for Brpc {}

/// The global nearest deadline while nothing is pending.
const NEVER: i64 = i64::MAX;

/// What brpc's reclaim fix (#3384) adds to the timer thread. The default is the thread as it
/// was before: cancelled timers in the heap wait for their deadline, and the thread sleeps until
/// its earliest deadline however far away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reclaim {
    /// Sweep cancelled timers out of the heap after each drain once it holds at least this many
    /// and has doubled since the last sweep (`brpc_timer_heap_sweep_min_size`, 4096 in brpc).
    pub heap_sweep_min_size: Option<usize>,
    /// While the heap holds anything, sleep at most this long
    /// (`brpc_timer_max_wakeup_interval_ms`, off in brpc unless set).
    pub max_wakeup_interval_ns: Option<i64>,
}

impl Reclaim {
    /// brpc's defaults since the fix: the sweep on, the periodic wake-up off.
    pub const BRPC_DEFAULTS: Reclaim = Reclaim {
        heap_sweep_min_size: Some(4096),
        max_wakeup_interval_ns: None,
    };
}

/// A bucket's timers in chunks of this many, so that a bucket holding millions never carries a
/// half-empty doubling of them, as one growing `Vec` would (brpc's buckets are linked lists).
const CHUNK: usize = 1024;

/// The timers a bucket holds until the timer thread drains it.
struct TaskList<P> {
    chunks: Vec<Vec<Task<P>>>,
}

impl<P> TaskList<P> {
    fn new() -> Self {
        TaskList { chunks: Vec::new() }
    }

    fn push(&mut self, task: Task<P>) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(task),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(task);
                self.chunks.push(chunk);
            }
        }
    }

    /// Every timer, leaving the list empty and its memory freed as they are taken.
    fn take(&mut self) -> impl Iterator<Item = Task<P>> {
        std::mem::take(&mut self.chunks).into_iter().flatten()
    }
}

/// brpc's bucketed timer thread.
pub struct Bucketed<S: Primitives, P: Send, V: Protocol = Brpc> {
    buckets: Box<[S::Mutex<Bucket<P>>]>,
    slots: Slots<S>,
    /// Guards changes to `nearest_ns` and `signals`; the scheduler fast path never takes it.
    global: S::Mutex<()>,
    /// The earliest deadline the timer thread knows it must wake for; `i64` bits.
    nearest_ns: S::AtomicU64,
    signals: S::AtomicU64,
    stopped: S::AtomicU64,
    clock: TimerClock,
    reclaim: Reclaim,
    _protocol: PhantomData<V>,
}

impl<S: Primitives, P: Send, V: Protocol> std::fmt::Debug for Bucketed<S, P, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bucketed")
            .field("buckets", &self.buckets.len())
            .field("slots", &self.slots.minted())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

struct Bucket<P> {
    tasks: TaskList<P>,
    nearest_ns: i64,
    free: Vec<u32>,
}

/// The timer thread's own state: its heap, and slots it freed but has not returned yet.
pub struct BucketedThread<P> {
    /// Each timer with the bucket it came from, where its slot goes back.
    heap: BinaryHeap<Task<(P, u32)>>,
    freed: Vec<Vec<u32>>,
    /// The heap's size at the last sweep, following it down as timers run, so that a heap
    /// refilled with soon-cancelled timers is swept again once it doubles.
    last_sweep_len: usize,
}

impl<P> std::fmt::Debug for BucketedThread<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BucketedThread")
            .field("heap", &self.heap.len())
            .finish_non_exhaustive()
    }
}

impl<S: Primitives, P: Send, V: Protocol> Bucketed<S, P, V> {
    /// `buckets` buckets (brpc's default is 13) with room for `capacity` timers in all (at most
    /// [`MAX_CAPACITY`](super::MAX_CAPACITY)), allocated as they are first needed: the
    /// `TimerThread` as it was before its reclaim fix.
    pub fn new(buckets: usize, capacity: usize, clock: TimerClock) -> Self {
        Self::with_reclaim(buckets, capacity, clock, Reclaim::default())
    }

    /// The same, with brpc #3384's reclaim fix set as `reclaim` says.
    pub fn with_reclaim(
        buckets: usize,
        capacity: usize,
        clock: TimerClock,
        reclaim: Reclaim,
    ) -> Self {
        let buckets = buckets.max(1);
        let bucket = |_| {
            S::Mutex::new(Bucket {
                tasks: TaskList::new(),
                nearest_ns: NEVER,
                free: Vec::new(),
            })
        };
        Bucketed {
            buckets: (0..buckets).map(bucket).collect(),
            slots: Slots::new(capacity),
            global: S::Mutex::new(()),
            nearest_ns: S::AtomicU64::new(NEVER as u64),
            signals: S::AtomicU64::new(0),
            stopped: S::AtomicU64::new(0),
            clock,
            reclaim,
            _protocol: PhantomData,
        }
    }

    fn nearest(&self) -> i64 {
        self.nearest_ns.load(Relaxed) as i64
    }

    fn set_nearest(&self, deadline_ns: i64) {
        self.nearest_ns.store(deadline_ns as u64, Relaxed);
    }

    /// Lowers the global nearest deadline to `deadline_ns` if it beats it, under the global lock;
    /// returns whether the timer thread must be woken.
    fn publish_earlier(&self, deadline_ns: i64) -> bool {
        self.global.with(|()| {
            if deadline_ns < self.nearest() {
                self.set_nearest(deadline_ns);
                self.signal();
                true
            } else {
                false
            }
        })
    }

    fn signal(&self) {
        if V::SIGNAL_EARLIER_TIMERS {
            self.signals.fetch_add(1, SeqCst);
        }
    }

    /// Pushes a timer into bucket `index`, in `slot` if given, else in one the bucket freed or a
    /// new one; reports whether it beat the bucket's nearest deadline. `payload` is taken only
    /// if the timer is pushed.
    fn push(
        &self,
        index: usize,
        deadline_ns: i64,
        payload: &mut Option<P>,
        slot: Option<u32>,
    ) -> Result<(TimerId, bool), ScheduleError> {
        self.buckets[index].with(|bucket| {
            let slot = slot
                .or_else(|| bucket.free.pop())
                .or_else(|| self.slots.mint())
                .ok_or(ScheduleError::Full)?;
            let id = self.slots.id_for(slot);
            bucket.tasks.push(Task {
                deadline_ns,
                id,
                payload: payload.take().expect("a payload to schedule"),
            });
            let earlier = deadline_ns < bucket.nearest_ns;
            if earlier {
                bucket.nearest_ns = deadline_ns;
            }
            Ok((id, earlier))
        })
    }

    /// A slot another bucket holds free, once no new ones can be made: the capacity is a total.
    fn spare_slot(&self, except: usize) -> Option<u32> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|&(index, _)| index != except)
            .find_map(|(_, bucket)| bucket.with(|bucket| bucket.free.pop()))
    }

    fn reset_nearest(&self) {
        self.global.with(|()| self.set_nearest(NEVER));
    }

    /// Moves every bucket's timers into the heap, freeing cancelled ones, and returns freed slots.
    fn drain(&self, state: &mut BucketedThread<P>) {
        for (index, bucket) in self.buckets.iter().enumerate() {
            let freed = &mut state.freed[index];
            let heap = &mut state.heap;
            bucket.with(|bucket| {
                bucket.free.append(freed);
                bucket.nearest_ns = NEVER;
                for task in bucket.tasks.take() {
                    if self.slots.is_cancelled(task.id) {
                        bucket.free.push(task.id.slot());
                    } else {
                        heap.push(Task {
                            deadline_ns: task.deadline_ns,
                            id: task.id,
                            payload: (task.payload, index as u32),
                        });
                    }
                }
            });
        }
    }

    fn free(state: &mut BucketedThread<P>, id: TimerId, bucket: u32) {
        state.freed[bucket as usize].push(id.slot());
    }

    /// Frees everything once stopped: queued, cancelled and pending timers alike.
    fn free_all(&self, state: &mut BucketedThread<P>) {
        let pending: Vec<(TimerId, u32)> = state
            .heap
            .drain()
            .map(|task| (task.id, task.payload.1))
            .collect();
        for (id, bucket) in pending {
            Self::free(state, id, bucket);
        }
        for (index, bucket) in self.buckets.iter().enumerate() {
            let freed = &mut state.freed[index];
            bucket.with(|bucket| {
                bucket.free.append(freed);
                let queued: Vec<u32> = bucket.tasks.take().map(|task| task.id.slot()).collect();
                bucket.free.extend(queued);
            });
        }
    }

    /// brpc #3384's sweep: cancelled timers out of the heap, once it has doubled past the floor.
    fn sweep_if_grown(&self, state: &mut BucketedThread<P>) {
        let Some(min_len) = self.reclaim.heap_sweep_min_size else {
            return;
        };
        if state.heap.len() < min_len || state.heap.len() < 2 * state.last_sweep_len {
            return;
        }
        let mut cancelled = Vec::new();
        state.heap.retain(|task| {
            let keep = !self.slots.is_cancelled(task.id);
            if !keep {
                cancelled.push((task.id, task.payload.1));
            }
            keep
        });
        for (id, bucket) in cancelled {
            Self::free(state, id, bucket);
        }
        state.last_sweep_len = state.heap.len();
    }

    /// How long to sleep for a heap whose earliest deadline is `next_ns`, at `now_ns`.
    fn sleep_until(&self, next_ns: i64, now_ns: i64) -> Option<i64> {
        if next_ns == NEVER {
            // An empty heap sleeps until a schedule wakes it: the first timer after the heap
            // empties always beats the nearest deadline.
            return None;
        }
        match self.reclaim.max_wakeup_interval_ns {
            Some(interval_ns) => Some(next_ns.min(now_ns.saturating_add(interval_ns))),
            None => Some(next_ns),
        }
    }

    /// Fires the heap's timers due by `now_ns`, moving `now_ns` on past each callback; true when
    /// a sooner timer arrived during the drain, to be drained before the heap's top fires.
    fn fire_due(
        &self,
        state: &mut BucketedThread<P>,
        now_ns: &mut i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> bool {
        // As brpc: the heap's top is checked for its deadline only; a cancelled timer is
        // found out, and its slot freed, when it is popped at its deadline.
        while let Some(top) = state.heap.peek() {
            if *now_ns < top.deadline_ns {
                break;
            }
            // A timer earlier than this one arrived during the drain: drain again first.
            let top_ns = top.deadline_ns;
            if self.global.with(|()| top_ns > self.nearest()) {
                return true;
            }
            let task = state.heap.pop().expect("peeked");
            let (payload, bucket) = task.payload;
            if self.slots.start(task.id) == Start::Run {
                *now_ns = fire(task.id, payload);
                let order = if V::RELEASE_ON_FINISH {
                    Release
                } else {
                    Relaxed
                };
                self.slots.finish_with(task.id, order);
            }
            Self::free(state, task.id, bucket);
        }
        false
    }
}

impl<S: Primitives, P: Send, V: Protocol> TimerDesign<P> for Bucketed<S, P, V> {
    type ThreadState = BucketedThread<P>;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        1
    }

    fn new_thread_state(&self, _thread: usize) -> BucketedThread<P> {
        BucketedThread {
            heap: BinaryHeap::new(),
            freed: (0..self.buckets.len()).map(|_| Vec::new()).collect(),
            last_sweep_len: 0,
        }
    }

    fn schedule(
        &self,
        _now_ns: i64,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        if self.stopped.load(Relaxed) != 0 {
            return Err(ScheduleError::Stopped);
        }
        let index = (fmix64(caller) % self.buckets.len() as u64) as usize;
        let mut payload = Some(payload);
        let (id, earlier) = match self.push(index, deadline_ns, &mut payload, None) {
            Err(ScheduleError::Full) => {
                let spare = self.spare_slot(index).ok_or(ScheduleError::Full)?;
                self.push(index, deadline_ns, &mut payload, Some(spare))?
            }
            pushed => pushed?,
        };
        let wake = earlier && self.publish_earlier(deadline_ns);
        Ok(Scheduled {
            id,
            thread: 0,
            took_global_lock: earlier,
            wake,
        })
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        if V::CANCEL_BUMPS_VERSION {
            self.slots.cancel(id)
        } else {
            self.slots.cancel_without_bump(id)
        }
    }

    fn run_round(
        &self,
        state: &mut BucketedThread<P>,
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        loop {
            if self.stopped.load(Relaxed) != 0 {
                self.free_all(state);
                return Sleep {
                    until_ns: None,
                    seen_signals: 0,
                    stopped: true,
                };
            }
            if V::RESET_NEAREST_BEFORE_DRAIN {
                self.reset_nearest();
            }
            self.drain(state);
            if !V::RESET_NEAREST_BEFORE_DRAIN {
                self.reset_nearest();
            }
            self.sweep_if_grown(state);
            if self.fire_due(state, &mut now_ns, fire) {
                continue;
            }
            state.last_sweep_len = state.last_sweep_len.min(state.heap.len());
            let next_ns = state.heap.peek().map_or(NEVER, |task| task.deadline_ns);
            let seen = self.global.with(|()| {
                if V::CHECK_STOP_BEFORE_SLEEP && self.stopped.load(Relaxed) != 0 {
                    return None;
                }
                if V::CHECK_NEAREST_BEFORE_SLEEP && next_ns > self.nearest() {
                    return None;
                }
                self.set_nearest(next_ns);
                Some(self.signals.load(SeqCst))
            });
            if let Some(seen_signals) = seen {
                let until_ns = self.sleep_until(next_ns, now_ns);
                return Sleep {
                    until_ns,
                    seen_signals,
                    stopped: false,
                };
            }
        }
    }

    fn signals(&self, _thread: usize) -> u64 {
        self.signals.load(SeqCst)
    }

    fn stop(&self) -> bool {
        self.stopped.store(1, Relaxed);
        self.global.with(|()| {
            self.set_nearest(i64::MIN);
            self.signals.fetch_add(1, SeqCst);
        });
        true
    }

    fn slots_in_use(&self) -> usize {
        let free: usize = self
            .buckets
            .iter()
            .map(|bucket| bucket.with(|bucket| bucket.free.len()))
            .sum();
        self.slots.minted() - free
    }
}
