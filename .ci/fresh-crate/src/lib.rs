//! A timer design of a user's own: one mutex around an unsorted `Vec`, which the timer thread
//! scans for the earliest deadline.

use std::sync::atomic::Ordering::SeqCst;

use ticklab::models::sync::{Atomic64, Lock, Primitives};
use ticklab::models::timer::{
    BuildTimerDesign, ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId,
    TimerParams, Unscheduled,
};

struct State<P> {
    timers: Vec<(i64, TimerId, P)>,
    running: Option<TimerId>,
    next_id: u64,
    stopped: bool,
}

pub struct ScanVecTimer<S: Primitives, P: Send> {
    state: S::Mutex<State<P>>,
    signals: S::AtomicU64,
    capacity: usize,
    clock: TimerClock,
}

impl<S: Primitives, P: Send> ScanVecTimer<S, P> {
    /// The earliest timer's place in the vector and its deadline.
    fn earliest(timers: &[(i64, TimerId, P)]) -> Option<(usize, i64)> {
        let at = (0..timers.len()).min_by_key(|&at| (timers[at].0, timers[at].1))?;
        Some((at, timers[at].0))
    }
}

impl<S: Primitives, P: Send> TimerDesign<P> for ScanVecTimer<S, P> {
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
            let wake = Self::earliest(&state.timers).is_none_or(|(_, first)| deadline_ns < first);
            state.timers.push((deadline_ns, id, payload));
            if wake {
                self.signals.fetch_add(1, SeqCst);
            }
            Ok(Scheduled {
                id,
                thread: 0,
                took_global_lock: true,
                wake,
            })
        })
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.state.with(|state| {
            if state.running == Some(id) {
                return Unscheduled::Running;
            }
            match state.timers.iter().position(|timer| timer.1 == id) {
                Some(at) => {
                    state.timers.swap_remove(at);
                    Unscheduled::Cancelled
                }
                None => Unscheduled::NotFound,
            }
        })
    }

    fn run_round(
        &self,
        _: &mut (),
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        loop {
            let due = self.state.with(|state| {
                state.running = None;
                if state.stopped {
                    state.timers.clear();
                    return Err(Sleep {
                        until_ns: None,
                        seen_signals: 0,
                        stopped: true,
                    });
                }
                match Self::earliest(&state.timers) {
                    Some((at, deadline_ns)) if deadline_ns <= now_ns => {
                        let (_, id, payload) = state.timers.swap_remove(at);
                        state.running = Some(id);
                        Ok((id, payload))
                    }
                    earliest => Err(Sleep {
                        until_ns: earliest.map(|(_, deadline_ns)| deadline_ns),
                        seen_signals: self.signals.load(SeqCst),
                        stopped: false,
                    }),
                }
            });
            match due {
                Ok((id, payload)) => now_ns = fire(id, payload),
                Err(sleep) => return sleep,
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
}

/// The design as scenario files name it: `design = "scan-vec"`.
pub struct ScanVec;

impl BuildTimerDesign for ScanVec {
    const NAME: &'static str = "scan-vec";
    const ABOUT: &'static str = "one mutex around an unsorted Vec, scanned for the earliest timer";
    type Design<S: Primitives, P: Send + 'static> = ScanVecTimer<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> ScanVecTimer<S, P> {
        ScanVecTimer {
            state: S::Mutex::new(State {
                timers: Vec::new(),
                running: None,
                next_id: 1,
                stopped: false,
            }),
            signals: S::AtomicU64::new(0),
            capacity: params.capacity,
            clock: params.clock,
        }
    }
}

/// ticklab's designs and this one.
pub fn registry() -> ticklab::Registry {
    ticklab::Registry::builtin().with_timer_design::<ScanVec>()
}
