//! The battery's harness, once per model checker: a design, its timer threads asleep on its
//! signal count, and the records the checks read.
//!
//! loom and shuttle offer the same primitives under different paths, so one macro writes the
//! harness and the setups for each; `setups.rs` lists them and runs them under each checker.

/// Time stands still in the battery: a timer at `DUE` is due, one at `FAR` never is. Both are
/// whole milliseconds, so that a design which rounds deadlines up to its tick (tokio's wheel)
/// finds `DUE` due too.
pub(super) const NOW: i64 = 1_000_000_000;
pub(super) const DUE: i64 = NOW;
pub(super) const FAR: i64 = 1_000 * NOW;

macro_rules! harness {
    ($module:ident, $checker:ident) => {
        pub(super) mod $module {
            use std::sync::atomic::Ordering::Relaxed;

            use ticklab_models::timer::{Scheduled, TimerDesign, TimerId, Unscheduled};
            use $checker::sync::atomic::AtomicUsize;
            use $checker::sync::{Arc, Condvar, Mutex};
            use $checker::thread;

            use super::{DUE, FAR, NOW};
            use crate::battery::setups::Setup;

            pub(crate) struct Harness<D> {
                pub(crate) timers: D,
                /// The timer threads' futex: they sleep while their signal count is unchanged.
                sleep: Mutex<()>,
                wake: Condvar,
                /// Runs so far; waiters sleep on it.
                runs: Mutex<usize>,
                ran: Condvar,
                /// Per timer: how many times it ran, and the callback's own work, written
                /// relaxed so that a canceller sees it only through the design's orderings.
                pub(crate) finished: Vec<AtomicUsize>,
                pub(crate) effect: Vec<AtomicUsize>,
            }

            impl<D: TimerDesign<usize> + 'static> Harness<D> {
                pub(crate) fn new(timers: D, count: usize) -> Arc<Self> {
                    Arc::new(Harness {
                        timers,
                        sleep: Mutex::new(()),
                        wake: Condvar::new(),
                        runs: Mutex::new(0),
                        ran: Condvar::new(),
                        finished: (0..count).map(|_| AtomicUsize::new(0)).collect(),
                        effect: (0..count).map(|_| AtomicUsize::new(0)).collect(),
                    })
                }

                fn timer_thread(&self, thread: usize) {
                    let mut state = self.timers.new_thread_state(thread);
                    loop {
                        let sleep = self.timers.run_round(&mut state, NOW, &mut |_, timer| {
                            self.effect[timer].store(1, Relaxed);
                            self.finished[timer].fetch_add(1, Relaxed);
                            *self.runs.lock().unwrap() += 1;
                            self.ran.notify_all();
                            NOW
                        });
                        if sleep.stopped {
                            return;
                        }
                        if self.timers.woken_by_round(&mut state).is_some() {
                            self.wake_all();
                        }
                        if sleep.until_ns.is_some_and(|until| until <= NOW) {
                            continue;
                        }
                        let mut guard = self.sleep.lock().unwrap();
                        while self.timers.signals(thread) == sleep.seen_signals {
                            guard = self.wake.wait(guard).unwrap();
                        }
                    }
                }

                /// Schedules a timer from `caller`, waking the timer threads if the design
                /// asks to.
                pub(crate) fn schedule(
                    &self,
                    deadline_ns: i64,
                    timer: usize,
                    caller: u64,
                ) -> TimerId {
                    let scheduled: Scheduled = self
                        .timers
                        .schedule(deadline_ns, timer, caller)
                        .expect("the battery never fills the design's slots");
                    if scheduled.wake {
                        self.wake_all();
                    }
                    scheduled.id
                }

                fn wake_all(&self) {
                    let _guard = self.sleep.lock().unwrap();
                    self.wake.notify_all();
                }

                pub(crate) fn wait_for_runs(&self, expected: usize) {
                    let mut runs = self.runs.lock().unwrap();
                    while *runs < expected {
                        runs = self.ran.wait(runs).unwrap();
                    }
                }

                fn stop(&self) {
                    if self.timers.stop() {
                        self.wake_all();
                    }
                }
            }

            /// Spawns a thread of the checker.
            pub(crate) fn spawn<T: Send + 'static>(
                body: impl FnOnce() -> T + Send + 'static,
            ) -> thread::JoinHandle<T> {
                thread::spawn(body)
            }

            /// Runs `setup` with a fresh design and its timer threads, then stops them and
            /// checks that nothing leaked.
            pub(crate) fn with_timer_threads<D: TimerDesign<usize> + 'static>(
                timers: D,
                count: usize,
                setup: impl FnOnce(&Arc<Harness<D>>),
            ) {
                let harness = Harness::new(timers, count);
                let threads: Vec<_> = (0..harness.timers.timer_threads())
                    .map(|thread| {
                        let harness = harness.clone();
                        spawn(move || harness.timer_thread(thread))
                    })
                    .collect();
                setup(&harness);
                harness.stop();
                threads
                    .into_iter()
                    .for_each(|thread| thread.join().unwrap());
                assert_eq!(harness.timers.slots_in_use(), 0, "slots leaked after stop");
            }

            /// Runs `setup` on `timers` with `others` scheduling threads beside the main one.
            pub(crate) fn run<D: TimerDesign<usize> + 'static>(
                timers: D,
                setup: Setup,
                others: usize,
            ) {
                let count = 2 * others + 3;
                with_timer_threads(timers, count, |harness| match setup {
                    Setup::DueFromSeveralThreads => due_from_several_threads(harness, others),
                    Setup::CancelRacingTheRun => cancel_racing_the_run(harness, others),
                    Setup::EarlierWakesTheSleeper => earlier_wakes_the_sleeper(harness, others),
                    Setup::CancelledFarNeverRuns => cancelled_far_never_runs(harness, others),
                });
            }

            /// Threads schedule a due timer each, the main one too; each runs exactly once.
            fn due_from_several_threads<D: TimerDesign<usize> + 'static>(
                harness: &Arc<Harness<D>>,
                others: usize,
            ) {
                let threads: Vec<_> = (1..=others)
                    .map(|timer| {
                        let harness = harness.clone();
                        spawn(move || {
                            harness.schedule(DUE, timer, timer as u64 + 1);
                        })
                    })
                    .collect();
                harness.schedule(DUE, 0, 1);
                threads
                    .into_iter()
                    .for_each(|thread| thread.join().unwrap());
                harness.wait_for_runs(others + 1);
                for timer in 0..=others {
                    let runs = harness.finished[timer].load(Relaxed);
                    assert_eq!(runs, 1, "due timer {timer} ran {runs} times");
                }
            }

            /// Threads each schedule a due timer and cancel it at once, racing the timer
            /// thread; what `unschedule` answers must agree with what happened.
            fn cancel_racing_the_run<D: TimerDesign<usize> + 'static>(
                harness: &Arc<Harness<D>>,
                others: usize,
            ) {
                let cancellers: Vec<_> = (0..others)
                    .map(|timer| {
                        let harness = harness.clone();
                        spawn(move || {
                            let id = harness.schedule(DUE, timer, timer as u64 + 1);
                            let outcome = harness.timers.unschedule(id);
                            if outcome == Unscheduled::NotFound {
                                assert_eq!(
                                    harness.effect[timer].load(Relaxed),
                                    1,
                                    "NotFound, yet the callback's work is not visible"
                                );
                            }
                            outcome
                        })
                    })
                    .collect();
                let outcomes: Vec<Unscheduled> = cancellers
                    .into_iter()
                    .map(|thread| thread.join().unwrap())
                    .collect();
                let expected: usize = outcomes
                    .iter()
                    .map(|outcome| usize::from(*outcome != Unscheduled::Cancelled))
                    .sum();
                harness.wait_for_runs(expected);
                for (timer, outcome) in outcomes.iter().enumerate() {
                    let runs = harness.finished[timer].load(Relaxed);
                    let wanted = usize::from(*outcome != Unscheduled::Cancelled);
                    assert_eq!(
                        runs, wanted,
                        "unschedule returned {outcome:?}, and the timer ran {runs} times"
                    );
                }
            }

            /// The timer threads go to sleep for a far timer; earlier ones must wake them.
            fn earlier_wakes_the_sleeper<D: TimerDesign<usize> + 'static>(
                harness: &Arc<Harness<D>>,
                others: usize,
            ) {
                let far = 2 * others + 2;
                harness.schedule(FAR, far, 1);
                let early: Vec<_> = (0..others)
                    .map(|timer| {
                        let harness = harness.clone();
                        spawn(move || {
                            harness.schedule(DUE, timer, timer as u64 + 2);
                        })
                    })
                    .collect();
                early.into_iter().for_each(|thread| thread.join().unwrap());
                harness.wait_for_runs(others);
                for timer in 0..others {
                    let runs = harness.finished[timer].load(Relaxed);
                    assert_eq!(runs, 1, "due timer {timer} ran {runs} times");
                }
                assert_eq!(harness.finished[far].load(Relaxed), 0, "a far timer ran");
            }

            /// Cancelled far timers never run, while other threads' due timers do.
            fn cancelled_far_never_runs<D: TimerDesign<usize> + 'static>(
                harness: &Arc<Harness<D>>,
                others: usize,
            ) {
                let due: Vec<_> = (0..others)
                    .map(|timer| {
                        let harness = harness.clone();
                        spawn(move || {
                            harness.schedule(DUE, timer, timer as u64 + 2);
                        })
                    })
                    .collect();
                let far = 2 * others + 2;
                let id = harness.schedule(FAR, far, 1);
                assert_eq!(harness.timers.unschedule(id), Unscheduled::Cancelled);
                due.into_iter().for_each(|thread| thread.join().unwrap());
                harness.wait_for_runs(others);
                assert_eq!(
                    harness.finished[far].load(Relaxed),
                    0,
                    "a cancelled timer ran"
                );
            }
        }
    };
}

harness!(on_loom, loom);
harness!(on_shuttle, shuttle);
