//! ticklab's scheduler battery on this crate's pools: shuttle explores the orders of the workers'
//! and an outside thread's calls. The planted lost wake must be caught, as a deadlock.

use fifo_pool_scheduler::{FifoPool, LostWakePool};
use ticklab::battery::{failure_of, failure_of_replay};

#[test]
fn the_fifo_pool_passes_the_scheduler_battery() {
    ticklab::battery::scheduler::shuttle::<FifoPool>();
}

/// Run in a child process by the test below: a model checker's failure can abort the process.
#[test]
#[ignore = "run in a child process by the_battery_catches_the_lost_wake_and_its_replay_fails_the_same_way"]
fn planted_lost_wake_under_shuttle() {
    ticklab::battery::scheduler::shuttle::<LostWakePool>();
}

#[test]
fn the_battery_catches_the_lost_wake_and_its_replay_fails_the_same_way() {
    let failed =
        failure_of("planted_lost_wake_under_shuttle").expect("shuttle missed the lost wake");
    assert!(
        failed
            .message
            .contains(ticklab::battery::scheduler::DEADLOCK),
        "not caught as a deadlock: {failed:?}"
    );
    let replay = failed
        .replay
        .expect("shuttle's failure prints a replay command");
    let replayed = failure_of_replay(&replay).expect("the replay fails too");
    assert_eq!(replayed.message, failed.message);
}

/// A failing battery panics like any failing test, naming the design.
#[test]
#[should_panic(expected = "the shuttle scheduler battery failed on fifo-pool-lost-wake: deadlock")]
fn a_failing_scheduler_battery_names_the_design() {
    ticklab::battery::scheduler::shuttle::<LostWakePool>();
}
