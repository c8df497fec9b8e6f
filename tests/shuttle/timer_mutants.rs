//! Timer designs with a planted bug that the battery's shuttle setups must catch, each run in a
//! child process, with the replay command its failure prints failing the same way.

use ticklab::battery::{failure_of, failure_of_replay};

use super::mutant_designs::*;

/// Run in a child process by the outer tests below.
mod inner {
    use super::*;

    #[test]
    #[ignore = "run in a child process by its outer test"]
    fn hashed_wheel_reads_idle_outside_the_lock() {
        ticklab::battery::shuttle::<HashedWheelWith<ReadsIdleOutsideTheLock>>();
    }

    #[test]
    #[ignore = "run in a child process by its outer test"]
    fn linux_wheel_reads_next_expiry_outside_the_lock() {
        ticklab::battery::shuttle::<LinuxWheelWith<ReadsNextExpiryOutsideTheLock>>();
    }
}

/// Asserts that the shuttle battery caught `name` with a message naming one of `causes`, and
/// that the replay its failure printed fails with the same message.
fn assert_shuttle_catches(name: &str, causes: &[&str]) {
    let failed = failure_of(&format!("timer_mutants::inner::{name}"))
        .unwrap_or_else(|| panic!("shuttle missed {name}"));
    assert!(
        causes.iter().any(|cause| failed.message.contains(cause)),
        "{name} failed, but not with any of {causes:?}: {failed:?}"
    );
    let replay = failed
        .replay
        .expect("shuttle's failure prints a replay command");
    let replayed = failure_of_replay(&replay).expect("the replay fails too");
    assert_eq!(replayed.message, failed.message);
}

/// The worker fires its last timer and goes idle between a schedule's look at it and the
/// schedule filing its timer, which then never wakes it: every thread waits for ever.
#[test]
fn a_hashed_wheel_that_reads_its_idle_worker_outside_the_lock_is_caught() {
    assert_shuttle_catches(
        "hashed_wheel_reads_idle_outside_the_lock",
        &["deadlock! blocked tasks"],
    );
}

/// The thread runs the bucket a schedule read as the next expiry and sleeps until a later one
/// before the schedule files an earlier timer: the thread sleeps past it, or for ever.
#[test]
fn a_linux_wheel_that_reads_next_expiry_outside_the_lock_is_caught() {
    assert_shuttle_catches(
        "linux_wheel_reads_next_expiry_outside_the_lock",
        &["deadlock! blocked tasks", ticklab::battery::LATE],
    );
}
