//! One mutex, one min-heap: every scheduler and the timer thread share the lock.

use std::collections::BinaryHeap;
use std::sync::atomic::Ordering::SeqCst;

use super::slots::{PURGE_FLOOR, Slots, Start, Task};
use super::{ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled};
use crate::sync::{Atomic64, Lock, Primitives};

/// A single locked heap. Cancelled timers stay in the heap as tombstones until they reach its top
/// or a purge.
pub struct GlobalHeap<S: Primitives, P: Send> {
    state: S::Mutex<HeapState<P>>,
    slots: Slots<S>,
    /// Bumped, under the lock, whenever the earliest deadline moves earlier: the timer thread's
    /// futex word.
    signals: S::AtomicU64,
    clock: TimerClock,
    /// The timer thread this heap is, when it is one shard of a hashed design.
    thread: usize,
}

impl<S: Primitives, P: Send> std::fmt::Debug for GlobalHeap<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlobalHeap")
            .field("thread", &self.thread)
            .field("slots", &self.slots.len())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

struct HeapState<P> {
    heap: BinaryHeap<Task<P>>,
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
    pub fn new(capacity: usize, clock: TimerClock) -> Self {
        Self::shard(0, 0, capacity, clock)
    }

    /// One shard of a larger design: timer thread `thread`, owning slots
    /// `first_slot .. first_slot + capacity`.
    pub(crate) fn shard(
        thread: usize,
        first_slot: u32,
        capacity: usize,
        clock: TimerClock,
    ) -> Self {
        let free = (first_slot..first_slot + capacity as u32).rev().collect();
        GlobalHeap {
            state: S::Mutex::new(HeapState {
                heap: BinaryHeap::new(),
                free,
                stopped: false,
                purged_at_len: 0,
            }),
            slots: Slots::new(first_slot, capacity),
            signals: S::AtomicU64::new(0),
            clock,
            thread,
        }
    }

    pub(crate) fn owns(&self, id: TimerId) -> bool {
        self.slots.contains(id.slot())
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
        deadline_ns: i64,
        payload: P,
        _caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        self.state.with(|state| {
            if state.stopped {
                return Err(ScheduleError::Stopped);
            }
            let slot = state.free.pop().ok_or(ScheduleError::Full)?;
            let id = self.slots.id_for(slot);
            let wake = state
                .heap
                .peek()
                .is_none_or(|top| deadline_ns < top.deadline_ns);
            state.heap.push(Task {
                deadline_ns,
                id,
                payload,
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

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.slots.cancel(id)
    }

    fn run_round(
        &self,
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
                heap_state.purge_if_grown(&self.slots);
                while let Some(top) = heap_state.heap.peek()
                    && self.slots.is_cancelled(top.id)
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
                    if self.slots.start(task.id) == Start::Run {
                        now_ns = fire(task.id, task.payload);
                        self.slots.finish(task.id);
                    }
                    state.freed.push(task.id.slot());
                }
                Step::Sleep(sleep) => return sleep,
            }
        }
    }

    fn signals(&self, _thread: usize) -> u64 {
        self.signals.load(SeqCst)
    }

    fn stop(&self) -> bool {
        self.state.with(|state| {
            state.stopped = true;
            self.signals.fetch_add(1, SeqCst);
        });
        true
    }

    fn slots_in_use(&self) -> usize {
        self.slots.len() - self.state.with(|state| state.free.len())
    }
}
