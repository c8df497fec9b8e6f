//! The battery's setups, and how each runs under loom and under shuttle.

use ticklab_models::timer::BuildTimerDesign;

use super::explore::{Strategy, explore_part};
use super::harness::{on_loom, on_shuttle};

/// One way of racing schedulers, cancellers and timer threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Setup {
    DueFromSeveralThreads,
    CancelRacingTheRun,
    EarlierWakesTheSleeper,
    CancelledFarNeverRuns,
    EarlierRunsBeforeTheLater,
}

/// A setup and its name in messages and in [`super::loom_setup`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Named {
    pub(crate) name: &'static str,
    pub(crate) setup: Setup,
}

pub(crate) const SETUPS: &[Named] = &[
    Named {
        name: "due timers from several threads each run once",
        setup: Setup::DueFromSeveralThreads,
    },
    Named {
        name: "a cancel racing the run agrees with what happened",
        setup: Setup::CancelRacingTheRun,
    },
    Named {
        name: "an earlier timer wakes a thread asleep for a later one",
        setup: Setup::EarlierWakesTheSleeper,
    },
    Named {
        name: "a cancelled far timer never runs and is freed",
        setup: Setup::CancelledFarNeverRuns,
    },
    Named {
        name: "an earlier timer runs in time though a thread sleeps until a later one",
        setup: Setup::EarlierRunsBeforeTheLater,
    },
];

pub(crate) fn by_name(name: &str) -> Named {
    *SETUPS
        .iter()
        .find(|setup| setup.name == name)
        .unwrap_or_else(|| panic!("no battery setup is called {name:?}"))
}

/// Schedulers beside the main thread: one under loom, whose threads are few (timer threads
/// included, at most 5) and whose state space grows fast; three under shuttle.
const LOOM_OTHERS: usize = 1;
const SHUTTLE_OTHERS: usize = 3;
/// Schedules per shuttle scheduler, sized for CI.
const SHUTTLE_ITERATIONS: usize = 1_000;

pub(crate) fn run_loom<B: BuildTimerDesign>(setup: Named) {
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        builder.preemption_bound = Some(B::LOOM_PREEMPTION_BOUND);
    }
    naming_the_setup::<B>(setup, "loom", move || {
        builder.check(move || {
            on_loom::run(super::on_loom::<B>(), B::PROMISE, setup.setup, LOOM_OTHERS)
        })
    });
}

/// Runs `check`; a failure panics again with the setup and the design in its message, after the
/// checker's own panic, which says why.
fn naming_the_setup<B: BuildTimerDesign>(setup: Named, checker: &str, check: impl FnOnce()) {
    let Err(failure) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) else {
        return;
    };
    let why = super::explore::panic_text(&*failure);
    panic!(
        "the {checker} battery's setup \"{}\" failed on {}: {why}",
        setup.name,
        B::NAME
    );
}

pub(crate) fn run_shuttle<B: BuildTimerDesign>(setup: Named, strategy: Strategy) {
    let (test, command) = super::explore::this_test();
    let part = format!("{}: {} ({strategy:?})", B::NAME, setup.name);
    naming_the_setup::<B>(setup, "shuttle", || {
        explore_part(
            &test,
            Some(&part),
            &command,
            strategy,
            SHUTTLE_ITERATIONS,
            move || {
                on_shuttle::run(
                    super::on_shuttle::<B>(),
                    B::PROMISE,
                    setup.setup,
                    SHUTTLE_OTHERS,
                );
            },
        )
    });
}
