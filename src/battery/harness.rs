//! The battery's harness, once per model checker: a design, its timer threads asleep on its
//! signal count, and the records the checks read.
//!
//! loom and shuttle offer the same primitives under different paths, so one macro writes the
//! harness and the setups for each; `setups.rs` lists them and runs them under each checker.
//!
//! Each timer thread has a clock of its own, from [`NOW`]. It sleeps on the design's signal
//! count, as a futex wait does, until the deadline it asked for. Time moves only when nothing
//! else can happen: once the schedulers are done and every timer thread is asleep with its
//! signal count unchanged, the thread with the earliest deadline wakes there, as a futex wait
//! whose timeout ran out. So a design that fires after the deadline on purpose (a wheel's tick)
//! fires, and a lost wake-up shows in one of two ways: every thread asleep with no deadline (a
//! deadlock), or a thread asleep until a later deadline, which fires the earlier timer late.
//! Every fire is checked against the design's promise on the clock of the thread that fired it.

/// Every clock starts at `NOW`, when the schedulers arm their timers: a timer at `DUE` is due
/// at once, one at `LATER` ten seconds on, and one at `FAR` never, since no clock is moved that
/// far. All are whole milliseconds, so that a design which rounds deadlines up to its tick
/// (tokio's wheel) finds `DUE` due too.
pub(super) const NOW: i64 = 1_000_000_000;
pub(super) const DUE: i64 = NOW;
pub(super) const LATER: i64 = 11 * NOW;
pub(super) const FAR: i64 = 1_000 * NOW;

macro_rules! harness {
    ($module:ident, $checker:ident) => {
        pub(super) mod $module {
            use std::sync::Arc;
            use std::sync::atomic::Ordering::Relaxed;

            use ticklab_models::timer::{Promise, Scheduled, TimerDesign, TimerId, Unscheduled};
            use $checker::sync::atomic::{AtomicI64, AtomicUsize};
            use $checker::sync::{Condvar, Mutex};
            use $checker::thread;

            use super::{DUE, FAR, LATER, NOW};
            use crate::battery::setups::Setup;

            /// What the timer threads' sleeps look like, under one lock.
            struct Clock {
                /// Timers run so far.
                runs: usize,
                /// Per timer thread, asleep: until when, and the signal count it sleeps on.
                asleep: Vec<Option<(Option<i64>, u64)>>,
                /// Per timer thread, the time its wait timed out at, once it has.
                timed_out: Vec<Option<i64>>,
            }

            // The harness is shared through std's `Arc`, not the checker's: a failing model
            // unwinds past the clones, and a checker's `Arc` asks the finished model about its
            // drop, which aborts the whole test binary.
            pub(crate) struct Harness<D> {
                pub(crate) timers: D,
                promise: Promise,
                clock: Mutex<Clock>,
                /// The timer threads sleep on it.
                wake: Condvar,
                /// The main thread waits on it for runs, and for the timer threads to sleep.
                changed: Condvar,
                /// Per timer: how many times it ran, its callback's own work (written relaxed,
                /// so that a canceller sees it only through the design's orderings), and the
                /// clock of the thread that ran it.
                pub(crate) finished: Vec<AtomicUsize>,
                pub(crate) effect: Vec<AtomicUsize>,
                fired_at: Vec<AtomicI64>,
            }

            impl<D: TimerDesign<usize> + 'static> Harness<D> {
                pub(crate) fn new(timers: D, promise: Promise, count: usize) -> Arc<Self> {
                    let threads = timers.timer_threads();
                    Arc::new(Harness {
                        timers,
                        promise,
                        clock: Mutex::new(Clock {
                            runs: 0,
                            asleep: vec![None; threads],
                            timed_out: vec![None; threads],
                        }),
                        wake: Condvar::new(),
                        changed: Condvar::new(),
                        finished: (0..count).map(|_| AtomicUsize::new(0)).collect(),
                        effect: (0..count).map(|_| AtomicUsize::new(0)).collect(),
                        fired_at: (0..count).map(|_| AtomicI64::new(0)).collect(),
                    })
                }

                fn timer_thread(&self, thread: usize) {
                    let mut state = self.timers.new_thread_state(thread);
                    let mut now = NOW;
                    loop {
                        let sleep = self.timers.run_round(&mut state, now, &mut |_, timer| {
                            self.effect[timer].store(1, Relaxed);
                            self.fired_at[timer].store(now, Relaxed);
                            self.finished[timer].fetch_add(1, Relaxed);
                            self.clock.lock().unwrap().runs += 1;
                            self.changed.notify_all();
                            now
                        });
                        if sleep.stopped {
                            return;
                        }
                        if self.timers.woken_by_round(&mut state).is_some() {
                            self.wake_all();
                        }
                        if sleep.until_ns.is_some_and(|until| until <= now) {
                            continue;
                        }
                        let mut clock = self.clock.lock().unwrap();
                        clock.asleep[thread] = Some((sleep.until_ns, sleep.seen_signals));
                        self.changed.notify_all();
                        while self.timers.signals(thread) == sleep.seen_signals
                            && clock.timed_out[thread].is_none()
                        {
                            clock = self.wake.wait(clock).unwrap();
                        }
                        clock.asleep[thread] = None;
                        if let Some(until) = clock.timed_out[thread].take() {
                            now = now.max(until);
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
                        .schedule(NOW, deadline_ns, timer, caller)
                        .expect("the battery never fills the design's slots");
                    if scheduled.wake {
                        self.wake_all();
                    }
                    scheduled.id
                }

                fn wake_all(&self) {
                    let _clock = self.clock.lock().unwrap();
                    self.wake.notify_all();
                }

                /// Waits until `expected` timers have run, letting time move on while every
                /// timer thread sleeps: called once the schedulers are done.
                pub(crate) fn wait_for_runs(&self, expected: usize) {
                    let mut clock = self.clock.lock().unwrap();
                    while clock.runs < expected {
                        if let Some((thread, until)) = self.earliest_sleeper(&clock) {
                            clock.timed_out[thread] = Some(until);
                            self.wake.notify_all();
                        }
                        clock = self.changed.wait(clock).unwrap();
                    }
                }

                /// The thread whose wait times out next, if every thread sleeps, none has been
                /// signalled, and one sleeps until a deadline the battery's clocks reach.
                fn earliest_sleeper(&self, clock: &Clock) -> Option<(usize, i64)> {
                    let mut earliest = None;
                    for (thread, asleep) in clock.asleep.iter().enumerate() {
                        let (until, seen) = (*asleep)?;
                        if self.timers.signals(thread) != seen || clock.timed_out[thread].is_some()
                        {
                            return None;
                        }
                        if let Some(until) = until.filter(|until| *until < FAR)
                            && earliest.is_none_or(|(_, first)| until < first)
                        {
                            earliest = Some((thread, until));
                        }
                    }
                    earliest
                }

                /// Timer `timer`, due at `deadline_ns`, ran once, no earlier than its deadline
                /// and no later than the design's promise allows, on the clock of its thread.
                pub(crate) fn assert_ran_in_time(&self, timer: usize, deadline_ns: i64) {
                    let runs = self.finished[timer].load(Relaxed);
                    assert_eq!(runs, 1, "due timer {timer} ran {runs} times");
                    let fired_at = self.fired_at[timer].load(Relaxed);
                    assert!(
                        fired_at >= deadline_ns,
                        "timer {timer} ran {} ns before its deadline",
                        deadline_ns - fired_at
                    );
                    let late_ns = (fired_at - deadline_ns) as u64;
                    let allowed_ns = self.promise.late_ns((deadline_ns - NOW).max(0) as u64);
                    assert!(
                        late_ns <= allowed_ns,
                        "timer {timer} ran {late_ns} ns past its deadline, more than the \
                         {allowed_ns} ns its design promises: a thread slept past it"
                    );
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
                promise: Promise,
                count: usize,
                setup: impl FnOnce(&Arc<Harness<D>>),
            ) {
                let harness = Harness::new(timers, promise, count);
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
                promise: Promise,
                setup: Setup,
                others: usize,
            ) {
                let count = 2 * others + 3;
                with_timer_threads(timers, promise, count, |harness| match setup {
                    Setup::DueFromSeveralThreads => due_from_several_threads(harness, others),
                    Setup::CancelRacingTheRun => cancel_racing_the_run(harness, others),
                    Setup::EarlierWakesTheSleeper => {
                        earlier_wakes_the_sleeper(harness, others, FAR)
                    }
                    Setup::CancelledFarNeverRuns => cancelled_far_never_runs(harness, others),
                    Setup::EarlierRunsBeforeTheLater => {
                        earlier_wakes_the_sleeper(harness, others, LATER)
                    }
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
                    harness.assert_ran_in_time(timer, DUE);
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

            /// The timer threads go to sleep for a timer at `later`; earlier ones must wake
            /// them, or run late.
            fn earlier_wakes_the_sleeper<D: TimerDesign<usize> + 'static>(
                harness: &Arc<Harness<D>>,
                others: usize,
                later: i64,
            ) {
                let far = 2 * others + 2;
                harness.schedule(later, far, 1);
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
                    harness.assert_ran_in_time(timer, DUE);
                }
                if later == FAR {
                    assert_eq!(harness.finished[far].load(Relaxed), 0, "a far timer ran");
                }
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
