//! ticklab's model-checking battery on this crate's design: loom explores every interleaving of
//! the small setups, shuttle samples schedules of larger ones. The planted bug must be caught by
//! both, for the reason it breaks: a lost wake-up.

use sorted_vec_timer::{SortedVec, SortedVecForgetsToSignal};
use ticklab::battery::{DEADLOCK, failure_of, failure_of_replay};

#[test]
fn sorted_vec_passes_the_loom_battery() {
    ticklab::battery::loom::<SortedVec>();
}

#[test]
fn sorted_vec_passes_the_shuttle_battery() {
    ticklab::battery::shuttle::<SortedVec>();
}

/// Run in a child process by the test below: a model checker's failure can abort the process.
#[test]
#[ignore = "run in a child process by the_loom_battery_catches_the_lost_wake_up"]
fn planted_bug_under_loom() {
    ticklab::battery::loom::<SortedVecForgetsToSignal>();
}

#[test]
#[ignore = "run in a child process by the_shuttle_battery_catches_the_lost_wake_up_and_its_replay_fails_the_same_way"]
fn planted_bug_under_shuttle() {
    ticklab::battery::shuttle::<SortedVecForgetsToSignal>();
}

#[test]
fn the_loom_battery_catches_the_lost_wake_up() {
    let failed = failure_of("planted_bug_under_loom").expect("loom missed the planted bug");
    assert!(
        failed.message.contains(DEADLOCK),
        "not caught as a deadlock: {failed:?}"
    );
}

#[test]
fn the_shuttle_battery_catches_the_lost_wake_up_and_its_replay_fails_the_same_way() {
    let failed = failure_of("planted_bug_under_shuttle").expect("shuttle missed the planted bug");
    assert!(
        failed.message.contains("deadlock! blocked tasks"),
        "not caught as a deadlock: {failed:?}"
    );
    let replay = failed
        .replay
        .expect("shuttle's failure prints a replay command");
    let replayed = failure_of_replay(&replay).expect("the replay fails too");
    assert_eq!(replayed.message, failed.message);
}

/// A failing battery panics like any failing test, naming its setup: it no longer aborts the
/// binary, so the tests beside it still run and report.
#[test]
#[should_panic(
    expected = "the loom battery's setup \"due timers from several threads each run once\" failed on sorted-vec-forgets-to-signal: deadlock"
)]
fn a_failing_loom_battery_fails_its_own_test_only() {
    ticklab::battery::loom::<SortedVecForgetsToSignal>();
}
