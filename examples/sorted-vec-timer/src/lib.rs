//! A timer design written outside ticklab, only against its public API: one mutex around a `Vec`
//! of timers kept sorted by deadline, latest first, so the earliest is popped from the end.
//!
//! It is generic over ticklab's sync facade, so the same code runs in ticklab's simulator, under
//! loom and under shuttle. [`SortedVec`] registers it under the name `sorted-vec`; its binary
//! (`src/main.rs`) is ticklab's command line with the design added, and its tests run ticklab's
//! model-checking battery on it, and on [`SortedVecForgetsToSignal`], a copy with a bug planted
//! on purpose, which the battery must catch. [`SortedVecFiresOnlyPastDeadlines`] plants another,
//! one that never returns: ticklab must stop it and name it, not hang.
//!
//! It adds a key of its own to scenario files, `search` ("binary" or "linear": how a new timer's
//! place is found), and two metrics of its own to a run's summary, `comparisons` and
//! `entries_moved`: what keeping the vector sorted costs.

use std::sync::atomic::Ordering::SeqCst;

use ticklab::models::sync::{Atomic64, Lock, Primitives};
use ticklab::models::timer::{
    BuildTimerDesign, DesignKey, DesignMetric, ScheduleError, Scheduled, Sleep, TimerClock,
    TimerDesign, TimerId, TimerParams, Unscheduled,
};

/// How `schedule` finds a new timer's place: `search = "binary"` (the default) or `"linear"`,
/// which walks from the latest deadline down.
pub const SEARCH: DesignKey = DesignKey::choice(
    "search",
    "how a new timer's place in the vector is found: \"binary\" (the default) or \"linear\", \
     walking from the latest deadline down",
    &["binary", "linear"],
    "binary",
);

/// Deadline comparisons made to place new timers.
pub const COMPARISONS: DesignMetric = DesignMetric::new(
    "comparisons",
    "deadline comparisons made to find each new timer's place",
);

/// Entries shifted by inserting and removing: a `Vec` keeps its order by moving the rest.
pub const ENTRIES_MOVED: DesignMetric = DesignMetric::new(
    "entries_moved",
    "entries the vector shifted to insert new timers and remove cancelled ones",
);

/// One timer waiting in the vector.
struct Entry<P> {
    deadline_ns: i64,
    id: TimerId,
    payload: P,
}

struct State<P> {
    /// Sorted by (deadline, id), latest first.
    timers: Vec<Entry<P>>,
    /// The timer whose callback runs now, if any: `unschedule` answers `Running` for it.
    running: Option<TimerId>,
    next_id: u64,
    stopped: bool,
    /// [`COMPARISONS`] so far.
    comparisons: u64,
    /// [`ENTRIES_MOVED`] so far.
    entries_moved: u64,
}

/// The design: every scheduler and the one timer thread share the lock.
pub struct SortedVecTimer<S: Primitives, P: Send> {
    state: S::Mutex<State<P>>,
    /// The timer thread's futex word, bumped whenever the earliest deadline moves earlier.
    signals: S::AtomicU64,
    capacity: usize,
    clock: TimerClock,
    /// Find a new timer's place by walking the vector rather than by bisecting it.
    linear_search: bool,
    /// A planted bug: forget to bump `signals` for an earlier timer.
    forgets_to_signal: bool,
    /// A planted bug: fire only timers whose deadline has passed, not one due this very
    /// nanosecond, while still sleeping until that deadline: the thread wakes at the same
    /// instant forever.
    fires_only_past_deadlines: bool,
}

impl<S: Primitives, P: Send> std::fmt::Debug for SortedVecTimer<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SortedVecTimer")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl<S: Primitives, P: Send> SortedVecTimer<S, P> {
    pub fn new(capacity: usize, clock: TimerClock) -> Self {
        SortedVecTimer {
            state: S::Mutex::new(State {
                timers: Vec::new(),
                running: None,
                next_id: 1,
                stopped: false,
                comparisons: 0,
                entries_moved: 0,
            }),
            signals: S::AtomicU64::new(0),
            capacity,
            clock,
            linear_search: false,
            forgets_to_signal: false,
            fires_only_past_deadlines: false,
        }
    }

    /// Whether a timer due at `deadline_ns` fires at `now_ns`.
    fn is_due(&self, deadline_ns: i64, now_ns: i64) -> bool {
        if self.fires_only_past_deadlines {
            deadline_ns < now_ns
        } else {
            deadline_ns <= now_ns
        }
    }
}

/// Where a timer goes so the vector stays sorted latest first, and how many comparisons it
/// took to find.
fn position<P>(timers: &[Entry<P>], deadline_ns: i64, id: TimerId, linear: bool) -> (usize, u64) {
    let mut comparisons = 0;
    let mut later = |entry: &Entry<P>| {
        comparisons += 1;
        (entry.deadline_ns, entry.id) > (deadline_ns, id)
    };
    let at = if linear {
        timers
            .iter()
            .position(|entry| !later(entry))
            .unwrap_or(timers.len())
    } else {
        timers.partition_point(later)
    };
    (at, comparisons)
}

/// The thread's next step, decided under the lock.
enum Next<P> {
    Fire(TimerId, P),
    Sleep(Sleep),
}

impl<S: Primitives, P: Send> SortedVecTimer<S, P> {
    fn next(&self, now_ns: i64) -> Next<P> {
        self.state.with(|state| {
            state.running = None;
            if state.stopped {
                state.timers.clear();
                return Next::Sleep(Sleep {
                    until_ns: None,
                    seen_signals: 0,
                    stopped: true,
                });
            }
            match state.timers.last() {
                Some(earliest) if self.is_due(earliest.deadline_ns, now_ns) => {
                    let entry = state.timers.pop().expect("a last entry");
                    state.running = Some(entry.id);
                    Next::Fire(entry.id, entry.payload)
                }
                earliest => Next::Sleep(Sleep {
                    until_ns: earliest.map(|entry| entry.deadline_ns),
                    seen_signals: self.signals.load(SeqCst),
                    stopped: false,
                }),
            }
        })
    }
}

impl<S: Primitives, P: Send> TimerDesign<P> for SortedVecTimer<S, P> {
    type ThreadState = ();

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        1
    }

    fn new_thread_state(&self, _thread: usize) {}

    fn schedule(
        &self,
        _now_ns: i64,
        deadline_ns: i64,
        payload: P,
        _caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        self.state.with(|state| {
            if state.stopped {
                return Err(ScheduleError::Stopped);
            }
            if state.timers.len() >= self.capacity {
                return Err(ScheduleError::Full);
            }
            let id = TimerId::from_raw(state.next_id);
            state.next_id += 1;
            let earliest = state
                .timers
                .last()
                .is_none_or(|entry| deadline_ns < entry.deadline_ns);
            let (at, comparisons) = position(&state.timers, deadline_ns, id, self.linear_search);
            state.comparisons += comparisons;
            state.entries_moved += (state.timers.len() - at) as u64;
            state.timers.insert(
                at,
                Entry {
                    deadline_ns,
                    id,
                    payload,
                },
            );
            if earliest && !self.forgets_to_signal {
                self.signals.fetch_add(1, SeqCst);
            }
            Ok(Scheduled {
                id,
                thread: 0,
                took_global_lock: true,
                wake: earliest,
            })
        })
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.state.with(|state| {
            if state.running == Some(id) {
                return Unscheduled::Running;
            }
            match state.timers.iter().position(|entry| entry.id == id) {
                Some(at) => {
                    state.timers.remove(at);
                    state.entries_moved += (state.timers.len() - at) as u64;
                    Unscheduled::Cancelled
                }
                None => Unscheduled::NotFound,
            }
        })
    }

    fn run_round(
        &self,
        _state: &mut (),
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        loop {
            match self.next(now_ns) {
                Next::Fire(id, payload) => now_ns = fire(id, payload),
                Next::Sleep(sleep) => return sleep,
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
        self.state.with(|state| state.timers.len())
    }

    fn metric(&self, name: &str) -> Option<u64> {
        self.state.with(|state| {
            if name == COMPARISONS.name {
                Some(state.comparisons)
            } else if name == ENTRIES_MOVED.name {
                Some(state.entries_moved)
            } else {
                None
            }
        })
    }
}

/// The design under the name scenario files give it: `design = "sorted-vec"`.
#[derive(Debug)]
pub struct SortedVec;

impl BuildTimerDesign for SortedVec {
    const NAME: &'static str = "sorted-vec";
    const ABOUT: &'static str = "one mutex around a Vec of timers sorted by deadline";
    const KEYS: &'static [DesignKey] = &[SEARCH];
    const METRICS: &'static [DesignMetric] = &[COMPARISONS, ENTRIES_MOVED];
    type Design<S: Primitives, P: Send + 'static> = SortedVecTimer<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> SortedVecTimer<S, P> {
        SortedVecTimer {
            linear_search: params.choice(&SEARCH) == "linear",
            ..SortedVecTimer::new(params.capacity, params.clock)
        }
    }
}

/// The same design with a planted bug: a timer earlier than all the others does not bump the
/// signal count, so a timer thread asleep for a later deadline never hears of it.
#[derive(Debug)]
pub struct SortedVecForgetsToSignal;

impl BuildTimerDesign for SortedVecForgetsToSignal {
    const NAME: &'static str = "sorted-vec-forgets-to-signal";
    const ABOUT: &'static str = "sorted-vec with a planted lost wake-up";
    type Design<S: Primitives, P: Send + 'static> = SortedVecTimer<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> SortedVecTimer<S, P> {
        SortedVecTimer {
            forgets_to_signal: true,
            ..SortedVecTimer::new(params.capacity, params.clock)
        }
    }
}

/// The same design with a planted off-by-one: a timer due at exactly the current nanosecond is
/// left for later, yet the thread sleeps until that deadline, which has come, so it wakes at once
/// and finds the same timer again. A run on it never gets past that instant.
#[derive(Debug)]
pub struct SortedVecFiresOnlyPastDeadlines;

impl BuildTimerDesign for SortedVecFiresOnlyPastDeadlines {
    const NAME: &'static str = "sorted-vec-fires-only-past-deadlines";
    const ABOUT: &'static str = "sorted-vec with a planted off-by-one that wakes forever";
    type Design<S: Primitives, P: Send + 'static> = SortedVecTimer<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> SortedVecTimer<S, P> {
        SortedVecTimer {
            fires_only_past_deadlines: true,
            ..SortedVecTimer::new(params.capacity, params.clock)
        }
    }
}

/// ticklab's designs and this crate's, as the binary and the tests name them.
pub fn registry() -> ticklab::Registry {
    ticklab::Registry::builtin()
        .with_timer_design::<SortedVec>()
        .with_unlisted_timer_design::<SortedVecForgetsToSignal>()
        .with_unlisted_timer_design::<SortedVecFiresOnlyPastDeadlines>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ticklab::models::sync::StdPrimitives;

    #[test]
    fn timers_fire_in_deadline_order_and_a_cancelled_one_never_does() {
        let timers: SortedVecTimer<StdPrimitives, &str> =
            SortedVecTimer::new(8, TimerClock::Monotonic);
        timers.schedule(0, 300, "c", 0).unwrap();
        let cancelled = timers.schedule(0, 100, "cancelled", 0).unwrap();
        timers.schedule(0, 200, "b", 0).unwrap();
        timers.schedule(0, 100, "a", 0).unwrap();
        assert_eq!(timers.unschedule(cancelled.id), Unscheduled::Cancelled);
        let mut fired = Vec::new();
        let sleep = timers.run_round(&mut (), 250, &mut |_, payload| {
            fired.push(payload);
            250
        });
        assert_eq!(fired, ["a", "b"]);
        assert_eq!(sleep.until_ns, Some(300));
        assert_eq!(timers.slots_in_use(), 1);
    }

    #[test]
    fn a_linear_search_compares_more_and_both_move_the_same_entries() {
        let run = |linear: bool| {
            let timers: SortedVecTimer<StdPrimitives, u32> = SortedVecTimer {
                linear_search: linear,
                ..SortedVecTimer::new(64, TimerClock::Monotonic)
            };
            // Each new deadline is the earliest yet: its place is at the end of the vector.
            for timer in 0..32 {
                timers.schedule(0, 1_000 - timer, timer as u32, 0).unwrap();
            }
            (
                timers.metric("comparisons").unwrap(),
                timers.metric("entries_moved").unwrap(),
            )
        };
        let (binary, binary_moved) = run(false);
        let (linear, linear_moved) = run(true);
        assert_eq!(
            linear,
            (0..32).sum::<u64>(),
            "a walk past every timer already there"
        );
        assert!(
            binary < linear / 3,
            "{binary} comparisons bisecting, {linear} walking"
        );
        assert_eq!(
            (binary_moved, linear_moved),
            (0, 0),
            "appending moves nothing"
        );
    }
}
