//! The battery's harness, once per model checker: a design, its timer threads asleep on its
//! signal count, one clock they all read, and the records the checks read.
//!
//! loom and shuttle offer the same primitives under different paths, so one macro writes the
//! harness for each, and `races.rs` writes the setups' bodies beside it; `setups.rs` lists them and
//! runs them under each checker.
//!
//! The clock starts at [`NOW`]. Every thread reads it: a scheduler as it arms a timer, a timer
//! thread as it starts a round. A timer thread sleeps on the design's signal count, as a futex
//! wait does, until the deadline it asked for, and the clock moves only to such a deadline, when
//! every timer thread sleeps and none has been signalled: that thread's wait times out there.
//!
//! The clock moves while schedulers and cancellers still run, up to [`MOVES_WHILE_BUSY`] times,
//! so the checker explores a round that fires between any two of their steps: a design that
//! fires after the deadline on purpose (a wheel's tick) races its schedules and cancels as it
//! does on real threads. Once they are done, it moves for as long as due timers have not run.
//! A lost wake-up then shows in one of two ways: every thread asleep with no deadline (a
//! deadlock), or a thread asleep until a later deadline, which fires the earlier timer late.
//!
//! Every fire is checked against the design's promise: no earlier than the deadline, and no
//! later than the promise allows past the deadline or the moment the timer was settled,
//! whichever is later, for its timeout plus any lag of a timer thread while it was armed. A timer
//! is settled once its `schedule` has returned and no other call to
//! `schedule` is in progress. A caller held up between reading the clock and arming the timer
//! hands the design a timer already late; and a design may leave the wake to whichever scheduler
//! got there first, as brpc's buckets do (a timer that does not beat its bucket's nearest
//! deadline relies on the scheduler that set it to signal), so a timer is late by as long as that
//! scheduler is held up. Neither is the design's fault, and a thread that sleeps past a settled
//! timer still is. A timer thread lags from its last finished round until its next one is done,
//! once it has a wake to take (its wait timed out, or it was signalled): a design whose clock
//! catches up only when its thread runs (the Linux wheel) files a timer armed then as if armed at
//! that last round, and is held to its promise for a timeout that much longer, as the simulator
//! holds it.

/// The clock at the start: schedulers arm their timers from here.
pub(super) const NOW: i64 = 1_000_000_000;
/// Delays a timer is armed with: `DUE` is due at once, `LATER` ten seconds on, and `FAR` never,
/// since the clock never passes [`HORIZON`]. All are whole milliseconds, so that a design which
/// rounds deadlines up to its tick (tokio's wheel) finds `DUE` due too.
pub(super) const DUE: i64 = 0;
pub(super) const LATER: i64 = 10 * NOW;
pub(super) const FAR: i64 = 1_000 * NOW;
/// The clock never moves past this.
pub(super) const HORIZON: i64 = NOW + 100 * NOW;
/// How often the clock may move while schedulers or cancellers run: once lets a round fire
/// between two of their steps, twice lets a second round race what the first one left. More
/// only multiplies loom's interleavings.
pub(super) const MOVES_WHILE_BUSY: usize = 1;

macro_rules! harness {
    ($module:ident, $checker:ident) => {
        pub(super) mod $module {
            use std::sync::Arc;
            use std::sync::atomic::AtomicI64 as Record;
            use std::sync::atomic::Ordering::Relaxed;

            use ticklab_models::timer::{Promise, Scheduled, TimerDesign, TimerId, Unscheduled};
            use $checker::sync::atomic::AtomicUsize;
            use $checker::sync::{Condvar, Mutex};
            use $checker::thread;

            use super::{DUE, FAR, HORIZON, LATER, MOVES_WHILE_BUSY, NOW};
            use crate::battery::setups::Setup;

            /// The clock and what the timer threads' sleeps look like, under one lock.
            struct Clock {
                now_ns: i64,
                /// Per timer, whether it has run.
                ran: Vec<bool>,
                /// Per timer thread, asleep: until when, and the signal count it sleeps on.
                asleep: Vec<Option<(Option<i64>, u64)>>,
                /// Per timer thread, whether its wait timed out and it has not yet woken.
                timed_out: Vec<bool>,
                /// Per timer thread, the clock its last finished round ran at: where its design
                /// last caught up with the clock.
                caught_up: Vec<i64>,
                /// Timers whose `schedule` is in progress, with the most a timer thread has
                /// lagged since it began.
                in_flight: Vec<(usize, i64)>,
                /// Schedulers and cancellers still running.
                busy: usize,
                /// Times the clock moved while they ran.
                moves_while_busy: usize,
                /// Calls to `schedule` in progress.
                scheduling: usize,
                /// Timers whose `schedule` returned while another was in progress: they are
                /// settled once none is.
                unsettled: Vec<usize>,
            }

            /// What the checks know of one timer. Plain std atomics: they are the harness's
            /// notes, not the design's, and the checkers need not explore them.
            struct Armed {
                /// The clock as its scheduler read it, and the deadline it armed.
                at_ns: Record,
                deadline_ns: Record,
                /// The clock once `schedule` returned and no other call to it was in progress.
                settled_ns: Record,
                /// How far a timer thread lagged behind the clock while it was armed.
                lag_ns: Record,
                /// The clock of the round that ran it.
                fired_ns: Record,
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
                /// The main thread waits on it for runs, for the timer threads to sleep, and for
                /// the schedulers to finish.
                changed: Condvar,
                /// Per timer: how many times it ran, and its callback's own work (written
                /// relaxed, so that a canceller sees it only through the design's orderings).
                pub(crate) finished: Vec<AtomicUsize>,
                pub(crate) effect: Vec<AtomicUsize>,
                armed: Vec<Armed>,
            }

            impl<D: TimerDesign<usize> + 'static> Harness<D> {
                pub(crate) fn new(timers: D, promise: Promise, count: usize) -> Arc<Self> {
                    let threads = timers.timer_threads();
                    Arc::new(Harness {
                        timers,
                        promise,
                        clock: Mutex::new(Clock {
                            now_ns: NOW,
                            ran: vec![false; count],
                            asleep: vec![None; threads],
                            timed_out: vec![false; threads],
                            caught_up: vec![NOW; threads],
                            in_flight: Vec::new(),
                            busy: 0,
                            moves_while_busy: 0,
                            scheduling: 0,
                            unsettled: Vec::new(),
                        }),
                        wake: Condvar::new(),
                        changed: Condvar::new(),
                        finished: (0..count).map(|_| AtomicUsize::new(0)).collect(),
                        effect: (0..count).map(|_| AtomicUsize::new(0)).collect(),
                        armed: (0..count)
                            .map(|_| Armed {
                                at_ns: Record::new(0),
                                deadline_ns: Record::new(0),
                                settled_ns: Record::new(0),
                                lag_ns: Record::new(0),
                                fired_ns: Record::new(0),
                            })
                            .collect(),
                    })
                }

                fn timer_thread(&self, thread: usize) {
                    let mut state = self.timers.new_thread_state(thread);
                    let mut now = self.clock.lock().unwrap().now_ns;
                    loop {
                        let sleep = self.timers.run_round(&mut state, now, &mut |_, timer| {
                            self.effect[timer].store(1, Relaxed);
                            self.armed[timer].fired_ns.store(now, Relaxed);
                            self.finished[timer].fetch_add(1, Relaxed);
                            let mut clock = self.clock.lock().unwrap();
                            clock.ran[timer] = true;
                            // Only `wait_for_runs` waits for runs, once nobody is busy.
                            if clock.busy == 0 {
                                self.changed.notify_all();
                            }
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
                        clock.caught_up[thread] = now;
                        // Only the last thread to fall asleep can let the clock move, and only
                        // if it may still move.
                        if clock.asleep.iter().all(Option::is_some)
                            && (clock.busy == 0 || clock.moves_while_busy < MOVES_WHILE_BUSY)
                        {
                            self.changed.notify_all();
                        }
                        while self.timers.signals(thread) == sleep.seen_signals
                            && !clock.timed_out[thread]
                        {
                            clock = self.wake.wait(clock).unwrap();
                        }
                        clock.asleep[thread] = None;
                        clock.timed_out[thread] = false;
                        // The thread reads the clock as it wakes, whether its wait timed out or
                        // was signalled after another thread's wait moved the clock.
                        now = clock.now_ns;
                    }
                }

                /// Arms timer `timer` `delay_ns` after the clock as `caller` reads it, waking
                /// the timer threads if the design asks to.
                pub(crate) fn schedule(&self, delay_ns: i64, timer: usize, caller: u64) -> TimerId {
                    let now = {
                        let mut clock = self.clock.lock().unwrap();
                        clock.scheduling += 1;
                        let lag_ns = self.lag_ns(&clock);
                        clock.in_flight.push((timer, lag_ns));
                        clock.now_ns
                    };
                    let armed = &self.armed[timer];
                    armed.at_ns.store(now, Relaxed);
                    armed.deadline_ns.store(now + delay_ns, Relaxed);
                    let scheduled: Scheduled = self
                        .timers
                        .schedule(now, now + delay_ns, timer, caller)
                        .expect("the battery never fills the design's slots");
                    let mut clock = self.clock.lock().unwrap();
                    if scheduled.wake {
                        self.wake.notify_all();
                    }
                    let at = clock
                        .in_flight
                        .iter()
                        .position(|(armed, _)| *armed == timer)
                        .expect("a schedule in progress");
                    let (_, lag_ns) = clock.in_flight.swap_remove(at);
                    armed.lag_ns.store(lag_ns.max(self.lag_ns(&clock)), Relaxed);
                    clock.scheduling -= 1;
                    clock.unsettled.push(timer);
                    if clock.scheduling == 0 {
                        for timer in std::mem::take(&mut clock.unsettled) {
                            self.armed[timer].settled_ns.store(clock.now_ns, Relaxed);
                        }
                    }
                    scheduled.id
                }

                /// How far the timer threads lag behind the clock: the most the clock has moved
                /// since the last finished round of a thread that is in a round now, or asleep
                /// with a wake it has not yet taken (a wait that timed out, or a signal). Only a
                /// promise that is a share of the timeout grows with it, so for any other the
                /// harness does not look, which keeps the checkers' steps few.
                fn lag_ns(&self, clock: &Clock) -> i64 {
                    if !matches!(self.promise, Promise::ShareOfTimeout { .. }) {
                        return 0;
                    }
                    (0..clock.asleep.len())
                        .filter(|thread| match clock.asleep[*thread] {
                            None => true,
                            Some((_, seen)) => {
                                clock.timed_out[*thread] || self.timers.signals(*thread) != seen
                            }
                        })
                        .map(|thread| clock.now_ns - clock.caught_up[thread])
                        .max()
                        .unwrap_or(0)
                }

                fn wake_all(&self) {
                    let _clock = self.clock.lock().unwrap();
                    self.wake.notify_all();
                }

                /// A scheduler or canceller is about to start: the clock may move while it runs.
                pub(crate) fn busy(&self) {
                    self.clock.lock().unwrap().busy += 1;
                }

                /// A scheduler or canceller is done.
                pub(crate) fn done(&self) {
                    let mut clock = self.clock.lock().unwrap();
                    clock.busy -= 1;
                    if clock.busy == 0 {
                        self.changed.notify_all();
                    }
                }

                /// The main thread's turn as the clock while schedulers and cancellers run: it
                /// moves the clock whenever every timer thread sleeps, up to
                /// [`MOVES_WHILE_BUSY`] times, and returns once they are all done.
                pub(crate) fn move_while_busy(&self) {
                    let mut clock = self.clock.lock().unwrap();
                    while clock.busy > 0 {
                        if clock.moves_while_busy < MOVES_WHILE_BUSY
                            && let Some((thread, until)) = self.earliest_sleeper(&clock)
                        {
                            clock.moves_while_busy += 1;
                            self.time_out(&mut clock, thread, until);
                        }
                        clock = self.changed.wait(clock).unwrap();
                    }
                }

                /// Waits until every timer of `timers` has run, moving the clock while every
                /// timer thread sleeps: called once the schedulers and cancellers are done.
                pub(crate) fn wait_for_runs(&self, timers: impl Iterator<Item = usize> + Clone) {
                    let mut clock = self.clock.lock().unwrap();
                    while timers.clone().any(|timer| !clock.ran[timer]) {
                        if let Some((thread, until)) = self.earliest_sleeper(&clock) {
                            self.time_out(&mut clock, thread, until);
                        }
                        clock = self.changed.wait(clock).unwrap();
                    }
                }

                /// Thread `thread`'s wait times out at `until`: the clock moves there, unless
                /// it is already past it.
                fn time_out(&self, clock: &mut Clock, thread: usize, until: i64) {
                    clock.now_ns = clock.now_ns.max(until);
                    clock.timed_out[thread] = true;
                    // A schedule in progress may file its timer at any point of the move.
                    let lag_ns = self.lag_ns(clock);
                    for (_, most) in &mut clock.in_flight {
                        *most = (*most).max(lag_ns);
                    }
                    self.wake.notify_all();
                }

                /// The thread whose wait times out next, if every thread sleeps, none has been
                /// signalled or already timed out, and one sleeps until a deadline the clock
                /// may reach.
                fn earliest_sleeper(&self, clock: &Clock) -> Option<(usize, i64)> {
                    let mut earliest = None;
                    for (thread, asleep) in clock.asleep.iter().enumerate() {
                        let (until, seen) = (*asleep)?;
                        if self.timers.signals(thread) != seen || clock.timed_out[thread] {
                            return None;
                        }
                        if let Some(until) = until.filter(|until| *until <= HORIZON)
                            && earliest.is_none_or(|(_, first)| until < first)
                        {
                            earliest = Some((thread, until));
                        }
                    }
                    earliest
                }

                /// Timer `timer` ran once, no earlier than its deadline, and no later than the
                /// design's promise allows past its deadline or the moment it was settled,
                /// whichever is later.
                pub(crate) fn assert_ran_in_time(&self, timer: usize) {
                    let runs = self.finished[timer].load(Relaxed);
                    assert_eq!(runs, 1, "due timer {timer} ran {runs} times");
                    let armed = &self.armed[timer];
                    let deadline_ns = armed.deadline_ns.load(Relaxed);
                    let fired_at = armed.fired_ns.load(Relaxed);
                    assert!(
                        fired_at >= deadline_ns,
                        "timer {timer} ran {} ns before its deadline",
                        deadline_ns - fired_at
                    );
                    let from_ns = deadline_ns.max(armed.settled_ns.load(Relaxed));
                    let late_ns = (fired_at - from_ns).max(0) as u64;
                    let timeout_ns = (deadline_ns - armed.at_ns.load(Relaxed)).max(0)
                        + armed.lag_ns.load(Relaxed);
                    let allowed_ns = self.promise.late_ns(timeout_ns as u64);
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

            /// Spawns a scheduler or canceller, which the clock may race.
            pub(crate) fn spawn_busy<D: TimerDesign<usize> + 'static, T: Send + 'static>(
                harness: &Arc<Harness<D>>,
                body: impl FnOnce(&Harness<D>) -> T + Send + 'static,
            ) -> thread::JoinHandle<T> {
                harness.busy();
                let harness = harness.clone();
                thread::spawn(move || {
                    let outcome = body(&harness);
                    harness.done();
                    outcome
                })
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

            crate::battery::races::races!();
        }
    };
}

harness!(on_loom, loom);
harness!(on_shuttle, shuttle);
