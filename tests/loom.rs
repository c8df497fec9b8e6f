//! loom model checks of the timer designs: schedule and unschedule race the timer thread's rounds,
//! in every interleaving loom can reach within its preemption bound.
//!
//! Every registered design runs `ticklab::battery`'s loom setups, the same battery a design from
//! another crate runs in its own tests (`src/battery/` lists the checks). The battery's one clock
//! moves while schedulers and cancellers still run, so a round that fires between any two of
//! their steps is explored too; then the main thread waits for every due timer to run, so a lost
//! wake-up leaves every thread asleep, which loom reports as a deadlock, or a timer run past its
//! promise, which the battery reports as late.
//!
//! The bounds suit CI: at most 2 preemptions, unless `LOOM_MAX_PREEMPTIONS` says otherwise
//! (`LOOM_MAX_PREEMPTIONS=3 cargo test --release --test loom` for a deeper run).

use ticklab::Registry;
use ticklab::battery::{DEADLOCK, LATE, failure_of, loom_setup};
use ticklab::models::timer::{DriverProtocol, Protocol, RuntimeProtocol};

/// Runs a battery setup on every design the registry lists, so a new design is checked the
/// moment it is registered.
fn on_every_design(setup: &str) {
    let registry = Registry::builtin();
    let designs: Vec<_> = registry.timer_designs().collect();
    assert!(designs.len() >= 3, "the built-in designs are registered");
    for design in designs {
        eprintln!("loom: {setup}, on {}", design.name);
        design.run_loom_setup(setup);
    }
}

#[test]
fn due_timers_from_several_threads_each_run_once() {
    on_every_design("due timers from several threads each run once");
}

#[test]
fn a_cancel_racing_the_run_agrees_with_what_happened() {
    on_every_design("a cancel racing the run agrees with what happened");
}

#[test]
fn an_earlier_timer_wakes_a_thread_sleeping_for_a_later_one() {
    on_every_design("an earlier timer wakes a thread asleep for a later one");
}

#[test]
fn a_cancelled_far_timer_never_runs_and_is_freed() {
    on_every_design("a cancelled far timer never runs and is freed");
}

#[test]
fn an_earlier_timer_runs_in_time_though_a_thread_sleeps_until_a_later_one() {
    on_every_design("an earlier timer runs in time though a thread sleeps until a later one");
}

#[test]
fn every_battery_setup_has_a_test_here() {
    let names: Vec<&str> = ticklab::battery::setup_names().collect();
    assert_eq!(names.len(), 5, "a new setup needs a test here: {names:?}");
}

#[path = "mutant_designs/mod.rs"]
mod mutant_designs;

use mutant_designs::*;

/// Deliberately broken variants of brpc's protocol: each flips one step, and loom must catch it
/// for the reason the step exists: a lost wake-up as a deadlock (every thread asleep with no
/// deadline) or as a timer run late (a thread asleep until a later one), a wrong answer as the
/// assertion that checks it. A mutant that fails some other way is not caught.
///
/// loom reports a deadlock by panicking in a way that aborts the process, so each mutant's model
/// runs in a child process: the `inner` tests are ignored in normal runs and started by their
/// outer test, which reads the cause from the child's output.
mod mutants {
    use super::*;

    macro_rules! mutant {
        ($name:ident, $switch:ident) => {
            struct $name;
            impl Protocol for $name {
                const $switch: bool = false;
            }
        };
    }

    mutant!(ResetsNearestAfterDraining, RESET_NEAREST_BEFORE_DRAIN);
    mutant!(ForgetsTheSignal, SIGNAL_EARLIER_TIMERS);
    mutant!(CancelsWithoutBumpingTheVersion, CANCEL_BUMPS_VERSION);
    mutant!(SleepsWithoutCheckingTheNearest, CHECK_NEAREST_BEFORE_SLEEP);
    mutant!(FinishesWithoutRelease, RELEASE_ON_FINISH);
    mutant!(SleepsWithoutCheckingForStop, CHECK_STOP_BEFORE_SLEEP);

    macro_rules! driver_mutant {
        ($name:ident, $switch:ident) => {
            struct $name;
            impl DriverProtocol for $name {
                const $switch: bool = false;
            }
        };
    }

    driver_mutant!(NeverUnparksForEarlier, UNPARK_FOR_EARLIER);
    driver_mutant!(ReadsSignalsAfterUnlocking, SIGNALS_READ_UNDER_LOCK);

    struct UnfencedHandshake;
    impl RuntimeProtocol for UnfencedHandshake {
        const FENCED_HANDSHAKE: bool = false;
    }

    /// Runs `mutants::inner::<name>` in a child process and asserts that its model failed, and
    /// that its first panic names `cause`.
    fn assert_loom_catches(name: &str, cause: &str) {
        assert_loom_catches_as(name, &[cause]);
    }

    /// As [`assert_loom_catches`], for a mutant whose bug shows as any one of `causes`: a lost
    /// wake-up is a deadlock in one interleaving and a late timer in another, and which one
    /// loom meets first depends on its order of exploration.
    fn assert_loom_catches_as(name: &str, causes: &[&str]) {
        let failure = failure_of(&format!("mutants::inner::{name}"));
        let message = failure
            .unwrap_or_else(|| panic!("loom missed {name}"))
            .message;
        assert!(
            causes.iter().any(|cause| message.contains(cause)),
            "{name} failed, but not with any of {causes:?}: {message}"
        );
    }

    mod inner {
        use super::*;

        macro_rules! inner {
            ($name:ident, $mutant:ident, $setup:expr) => {
                #[test]
                #[ignore = "run in a child process by its outer test"]
                fn $name() {
                    loom_setup::<BucketedWith<$mutant>>($setup);
                }
            };
        }

        const EARLIER: &str = "an earlier timer wakes a thread asleep for a later one";
        const CANCEL: &str = "a cancel racing the run agrees with what happened";
        const CANCELLED_FAR: &str = "a cancelled far timer never runs and is freed";

        inner!(reset_after_drain, ResetsNearestAfterDraining, EARLIER);
        inner!(no_signal, ForgetsTheSignal, EARLIER);
        inner!(cancel_without_bump, CancelsWithoutBumpingTheVersion, CANCEL);
        inner!(
            sleep_without_nearest_check,
            SleepsWithoutCheckingTheNearest,
            EARLIER
        );
        inner!(relaxed_finish, FinishesWithoutRelease, CANCEL);
        inner!(
            sleep_without_stop_check,
            SleepsWithoutCheckingForStop,
            CANCELLED_FAR
        );

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn wheel_never_unparks() {
            loom_setup::<TokioWheelWith<NeverUnparksForEarlier>>(EARLIER);
        }

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn wheel_signals_after_unlock() {
            loom_setup::<TokioWheelWith<ReadsSignalsAfterUnlocking>>(EARLIER);
        }

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn hashed_wheel_forgets_to_wake() {
            loom_setup::<HashedWheelWith<ForgetsToWakeTheIdleWorker>>(
                "due timers from several threads each run once",
            );
        }

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn hashed_wheel_reads_idle_outside_the_lock() {
            loom_setup::<HashedWheelWith<ReadsIdleOutsideTheLock>>(
                "due timers from several threads each run once",
            );
        }

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn linux_wheel_reads_next_expiry_outside_the_lock() {
            loom_setup::<LinuxWheelWith<ReadsNextExpiryOutsideTheLock>>(
                "due timers from several threads each run once",
            );
        }

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn linux_wheel_never_wakes_for_earlier() {
            loom_setup::<LinuxWheelWith<NeverWakesForEarlier>>(EARLIER);
        }

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn go_unfenced_handshake() {
            loom_setup::<GoTimersWith<UnfencedHandshake>>(CANCELLED_FAR);
        }
    }

    #[test]
    fn a_hashed_wheel_that_forgets_to_wake_its_idle_worker_loses_a_wake_up() {
        assert_loom_catches("hashed_wheel_forgets_to_wake", DEADLOCK);
    }

    /// The worker fires its last timer and goes idle between a schedule's look at it and the
    /// schedule filing its timer: only a clock that moves while schedulers run lets that fire
    /// happen between the two.
    #[test]
    fn a_hashed_wheel_that_reads_its_idle_worker_outside_the_lock_loses_a_wake_up() {
        assert_loom_catches("hashed_wheel_reads_idle_outside_the_lock", DEADLOCK);
    }

    /// The thread runs the bucket a schedule read as the next expiry, and sleeps until a later
    /// one, before the schedule files an earlier timer that it then thinks is not the earliest:
    /// the thread sleeps past it, or for ever. A round that fires between the schedule's read
    /// and its lock needs a clock that moves while schedulers run.
    #[test]
    fn a_linux_wheel_that_reads_next_expiry_outside_the_lock_loses_a_wake_up() {
        assert_loom_catches_as(
            "linux_wheel_reads_next_expiry_outside_the_lock",
            &[DEADLOCK, LATE],
        );
    }

    #[test]
    fn a_linux_wheel_that_never_wakes_for_an_earlier_timer_loses_a_wake_up() {
        assert_loom_catches_as("linux_wheel_never_wakes_for_earlier", &[DEADLOCK, LATE]);
    }

    #[test]
    fn a_poller_handshake_without_fences_loses_a_wake_up() {
        assert_loom_catches("go_unfenced_handshake", DEADLOCK);
    }

    #[test]
    fn a_wheel_that_never_unparks_for_an_earlier_timer_loses_a_wake_up() {
        // Asleep for the later timer, the wheel is never unparked for the earlier one: the
        // battery's clock moves to the later one's slot and the earlier timer runs late, or the
        // later one fires first and the wheel sleeps with no deadline at all.
        assert_loom_catches_as("wheel_never_unparks", &[LATE, DEADLOCK]);
    }

    #[test]
    fn a_driver_that_reads_its_signal_count_after_unlocking_loses_a_wake_up() {
        assert_loom_catches("wheel_signals_after_unlock", DEADLOCK);
    }

    #[test]
    fn resetting_the_nearest_after_draining_loses_a_wake_up() {
        assert_loom_catches("reset_after_drain", DEADLOCK);
    }

    #[test]
    fn a_missing_signal_increment_loses_a_wake_up() {
        assert_loom_catches("no_signal", DEADLOCK);
    }

    #[test]
    fn a_cancel_that_keeps_the_version_lets_the_timer_run() {
        assert_loom_catches(
            "cancel_without_bump",
            "unschedule returned Cancelled, and the timer ran 1 times",
        );
    }

    #[test]
    fn sleeping_without_checking_the_nearest_loses_a_wake_up() {
        assert_loom_catches("sleep_without_nearest_check", DEADLOCK);
    }

    #[test]
    fn a_relaxed_finish_hides_the_callbacks_work_from_the_canceller() {
        assert_loom_catches(
            "relaxed_finish",
            "NotFound, yet the callback's work is not visible",
        );
    }

    /// brpc #2986: a stop that lands mid-round is overwritten by the next reset of the nearest
    /// deadline, and the timer thread sleeps forever while `stop` waits to join it.
    #[test]
    fn sleeping_without_checking_for_stop_hangs_the_shutdown() {
        assert_loom_catches("sleep_without_stop_check", DEADLOCK);
    }
}
