//! The bodies of the battery's setups, written once for both checkers: `harness.rs` expands
//! [`races!`] inside each checker's module, where `Harness`, `spawn_busy` and the clock's
//! delays are that checker's.
//!
//! In each, the main thread arms its own timers first, then acts as the clock while the other
//! threads schedule and cancel (`move_while_busy`), then waits for the due
//! timers to run and checks what happened.

macro_rules! races {
    () => {
        /// Threads schedule a due timer each, the main one too; each runs exactly once.
        fn due_from_several_threads<D: TimerDesign<usize> + 'static>(
            harness: &Arc<Harness<D>>,
            others: usize,
        ) {
            let threads: Vec<_> = (1..=others)
                .map(|timer| {
                    spawn_busy(harness, move |harness| {
                        harness.schedule(DUE, timer, timer as u64 + 1);
                    })
                })
                .collect();
            harness.schedule(DUE, 0, 1);
            harness.move_while_busy();
            threads
                .into_iter()
                .for_each(|thread| thread.join().unwrap());
            harness.wait_for_runs(0..=others);
            for timer in 0..=others {
                harness.assert_ran_in_time(timer);
            }
        }

        /// Threads each schedule a due timer and cancel it at once, racing the timer thread,
        /// which the clock lets run between any two of their steps; what `unschedule` answers
        /// must agree with what happened.
        fn cancel_racing_the_run<D: TimerDesign<usize> + 'static>(
            harness: &Arc<Harness<D>>,
            others: usize,
        ) {
            let cancellers: Vec<_> = (0..others)
                .map(|timer| {
                    spawn_busy(harness, move |harness| {
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
            harness.move_while_busy();
            let outcomes: Vec<Unscheduled> = cancellers
                .into_iter()
                .map(|thread| thread.join().unwrap())
                .collect();
            let expected = (0..others).filter(|timer| outcomes[*timer] != Unscheduled::Cancelled);
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

        /// The timer threads go to sleep for a timer `later` on; earlier ones must wake them,
        /// or run late.
        fn earlier_wakes_the_sleeper<D: TimerDesign<usize> + 'static>(
            harness: &Arc<Harness<D>>,
            others: usize,
            later: i64,
        ) {
            let far = 2 * others + 2;
            harness.schedule(later, far, 1);
            let early: Vec<_> = (0..others)
                .map(|timer| {
                    spawn_busy(harness, move |harness| {
                        harness.schedule(DUE, timer, timer as u64 + 2);
                    })
                })
                .collect();
            harness.move_while_busy();
            early.into_iter().for_each(|thread| thread.join().unwrap());
            harness.wait_for_runs(0..others);
            for timer in 0..others {
                harness.assert_ran_in_time(timer);
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
                    spawn_busy(harness, move |harness| {
                        harness.schedule(DUE, timer, timer as u64 + 2);
                    })
                })
                .collect();
            let far = 2 * others + 2;
            let id = harness.schedule(FAR, far, 1);
            assert_eq!(harness.timers.unschedule(id), Unscheduled::Cancelled);
            harness.move_while_busy();
            due.into_iter().for_each(|thread| thread.join().unwrap());
            harness.wait_for_runs(0..others);
            assert_eq!(
                harness.finished[far].load(Relaxed),
                0,
                "a cancelled timer ran"
            );
        }
    };
}

pub(super) use races;
