//! One mutex, one min-heap: every scheduler and the timer thread share the lock.

use std::collections::BinaryHeap;
use std::sync::atomic::Ordering::SeqCst;

use super::slots::{PURGE_FLOOR, Slots, Start, Task};
use super::{ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled};
use crate::sync::{Atomic64, Lock, Primitives};

/// A single locked heap. Cancelled timers stay in the heap as tombstones until they reach its top
/// or a purge.
pub struct GlobalHeap<S: Primitives, P: Send> {
    shard: HeapShard<S, P>,
    slots: Slots<S>,
    clock: TimerClock,
}

impl<S: Primitives, P: Send> std::fmt::Debug for GlobalHeap<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlobalHeap")
            .field("slots", &self.slots.minted())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

/// One locked heap and its timer thread's signal count: the whole of a global heap, or one
/// thread of a hashed design. Slots come from a table the caller owns, which hashed threads
/// share, so their capacity is one total.
pub(crate) struct HeapShard<S: Primitives, P: Send> {
    state: S::Mutex<HeapState<P>>,
    /// Bumped, under the lock, whenever the earliest deadline moves earlier: the timer thread's
    /// futex word.
    signals: S::AtomicU64,
    /// The timer thread this heap is.
    thread: usize,
}

struct HeapState<P> {
    heap: BinaryHeap<Task<P>>,
    /// Slots this heap's timers used and freed, reused before new ones are made.
    free: Vec<u32>,
    stopped: bool,
    purged_at_len: usize,
}

/// The timer thread's own state: slots it freed, returned on its next turn with the lock.
#[derive(Debug, Default)]
pub struct GlobalHeapThread {
    freed: Vec<u32>,
}

impl<S: Primitives, P: Send> GlobalHeap<S, P> {
    /// A heap with room for `capacity` timers at once (at most
    /// [`MAX_CAPACITY`](super::MAX_CAPACITY)), allocated as they are first needed.
    pub fn new(capacity: usize, clock: TimerClock) -> Self {
        GlobalHeap {
            shard: HeapShard::new(0),
            slots: Slots::new(capacity),
            clock,
        }
    }
}

impl<P> HeapState<P> {
    /// Drops cancelled timers once the heap has doubled past the floor.
    fn purge_if_grown<S: Primitives>(&mut self, slots: &Slots<S>) {
        if self.heap.len() < PURGE_FLOOR || self.heap.len() < 2 * self.purged_at_len {
            return;
        }
        let free = &mut self.free;
        self.heap.retain(|task| {
            let keep = !slots.is_cancelled(task.id);
            if !keep {
                free.push(task.id.slot());
            }
            keep
        });
        self.purged_at_len = self.heap.len();
    }
}

/// What the timer thread does next, decided under the lock.
enum Step<P> {
    Run(Task<P>),
    Sleep(Sleep),
}

impl<S: Primitives, P: Send> HeapShard<S, P> {
    pub(crate) fn new(thread: usize) -> Self {
        HeapShard {
            state: S::Mutex::new(HeapState {
                heap: BinaryHeap::new(),
                free: Vec::new(),
                stopped: false,
                purged_at_len: 0,
            }),
            signals: S::AtomicU64::new(0),
            thread,
        }
    }

    /// Schedules in this heap, reusing a slot it freed or making a new one. `payload` is taken
    /// only if the timer is scheduled, so a caller told `Full` can try again with a slot from
    /// elsewhere.
    pub(crate) fn schedule(
        &self,
        slots: &Slots<S>,
        deadline_ns: i64,
        payload: &mut Option<P>,
    ) -> Result<Scheduled, ScheduleError> {
        self.state.with(|state| {
            if state.stopped {
                return Err(ScheduleError::Stopped);
            }
            let slot = state
                .free
                .pop()
                .or_else(|| slots.mint())
                .ok_or(ScheduleError::Full)?;
            let id = slots.id_for(slot);
            let wake = state
                .heap
                .peek()
                .is_none_or(|top| deadline_ns < top.deadline_ns);
            state.heap.push(Task {
                deadline_ns,
                id,
                payload: payload.take().expect("a payload to schedule"),
            });
            if wake {
                self.signals.fetch_add(1, SeqCst);
            }
            Ok(Scheduled {
                id,
                thread: self.thread,
                took_global_lock: true,
                wake,
            })
        })
    }

    /// A slot this heap freed, for a heap that has none left.
    pub(crate) fn spare_slot(&self) -> Option<u32> {
        self.state.with(|state| state.free.pop())
    }

    pub(crate) fn give_slot(&self, slot: u32) {
        self.state.with(|state| state.free.push(slot));
    }

    pub(crate) fn free_slots(&self) -> usize {
        self.state.with(|state| state.free.len())
    }

    pub(crate) fn run_round(
        &self,
        slots: &Slots<S>,
        state: &mut GlobalHeapThread,
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        loop {
            let step = self.state.with(|heap_state| {
                heap_state.free.append(&mut state.freed);
                if heap_state.stopped {
                    let stopped = std::mem::take(&mut heap_state.heap);
                    heap_state
                        .free
                        .extend(stopped.into_iter().map(|task| task.id.slot()));
                    return Step::Sleep(Sleep {
                        until_ns: None,
                        seen_signals: 0,
                        stopped: true,
                    });
                }
                heap_state.purge_if_grown(slots);
                while let Some(top) = heap_state.heap.peek()
                    && slots.is_cancelled(top.id)
                {
                    let cancelled = heap_state.heap.pop().expect("peeked");
                    heap_state.free.push(cancelled.id.slot());
                }
                match heap_state.heap.peek() {
                    Some(top) if top.deadline_ns <= now_ns => {
                        Step::Run(heap_state.heap.pop().expect("peeked"))
                    }
                    top => Step::Sleep(Sleep {
                        until_ns: top.map(|task| task.deadline_ns),
                        seen_signals: self.signals.load(SeqCst),
                        stopped: false,
                    }),
                }
            });
            match step {
                Step::Run(task) => {
                    if slots.start(task.id) == Start::Run {
                        now_ns = fire(task.id, task.payload);
                        slots.finish(task.id);
                    }
                    state.freed.push(task.id.slot());
                }
                Step::Sleep(sleep) => return sleep,
            }
        }
    }

    pub(crate) fn signals(&self) -> u64 {
        self.signals.load(SeqCst)
    }

    pub(crate) fn stop(&self) {
        self.state.with(|state| {
            state.stopped = true;
            self.signals.fetch_add(1, SeqCst);
        });
    }
}

impl<S: Primitives, P: Send> TimerDesign<P> for GlobalHeap<S, P> {
    type ThreadState = GlobalHeapThread;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        1
    }

    fn new_thread_state(&self, _thread: usize) -> GlobalHeapThread {
        GlobalHeapThread::default()
    }

    fn schedule(
        &self,
        _now_ns: i64,
        deadline_ns: i64,
        payload: P,
        _caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        self.shard
            .schedule(&self.slots, deadline_ns, &mut Some(payload))
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.slots.cancel(id)
    }

    fn run_round(
        &self,
        state: &mut GlobalHeapThread,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        self.shard.run_round(&self.slots, state, now_ns, fire)
    }

    fn signals(&self, _thread: usize) -> u64 {
        self.shard.signals()
    }

    fn stop(&self) -> bool {
        self.shard.stop();
        true
    }

    fn slots_in_use(&self) -> usize {
        self.slots.minted() - self.shard.free_slots()
    }
}
