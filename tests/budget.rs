//! Runs that go in parallel share one memory bound: the commands that run a scenario per core
//! (`check`, `compare`, `report`, `table`) must not hold the sum of their runs' bounds. Checked
//! here against an allocator that counts every byte, with more runs at once than fit.
//!
//! One test in its own binary: the allocator and the memory budget are the whole process's.

use ticklab::measure::{CountingAllocator, live_bytes, peak_bytes, reset_peak};
use ticklab::memory::budget::PROCESS;
use ticklab::run::{RunError, RunOptions, run_scenario};
use ticklab::scenario::Scenario;
use ticklab::trace::NoTrace;

#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator;

/// Runs started at once: more than the bound holds side by side.
const RUNS: usize = 6;

/// A hundred thousand intervals: a run that holds a lot for a short while.
const INTERVALS: &str = r#"
    about = "a hundred thousand intervals side by side"
    platform = "linux"
    run_for = "2s"
    [model]
    kind = "interval"
    missed_tick = "skip"
    period = "1s"
    count = 100000
"#;

fn options(max_memory_bytes: u64) -> RunOptions {
    RunOptions {
        max_memory_bytes,
        ..RunOptions::default()
    }
}

/// The run's pre-checked footprint estimate, as the refusal under a bound of one byte gives it.
fn estimate_bytes(scenario: &Scenario) -> u128 {
    match run_scenario(scenario, &options(1), &mut NoTrace) {
        Err(RunError::TooMuchMemory { bytes_bound, .. }) => bytes_bound,
        other => panic!("expected a refusal naming the estimate, got {other:?}"),
    }
}

#[test]
fn runs_in_parallel_never_hold_more_than_the_bound_together() {
    let scenario = ticklab::loader::parse("intervals", INTERVALS).unwrap();
    let estimate = estimate_bytes(&scenario);
    // Room for two runs at once, not three.
    let bound_bytes = (estimate * 5 / 2) as u64;
    let before = live_bytes();
    reset_peak();
    std::thread::scope(|scope| {
        for _ in 0..RUNS {
            scope.spawn(|| {
                run_scenario(&scenario, &options(bound_bytes), &mut NoTrace)
                    .expect("each run fits the bound alone")
            });
        }
    });
    let allocated = (peak_bytes() - before) as u64;
    let admitted = PROCESS.peak_bytes();
    assert!(
        allocated <= bound_bytes,
        "{RUNS} runs estimated at {estimate} B each allocated {allocated} B at once under a \
         bound of {bound_bytes} B"
    );
    assert!(
        admitted <= u128::from(bound_bytes),
        "{RUNS} runs of {estimate} B each were admitted {admitted} B at once under a bound of \
         {bound_bytes} B"
    );
    assert_eq!(PROCESS.held_bytes(), 0, "every run gave its share back");
}
