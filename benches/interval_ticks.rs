//! Simulated ticks per second: ticklab's simulator against tokio's paused-time runtime and a bare
//! `BinaryHeap` event loop, all running the same 1000 intervals (periods drawn from 10 ms to 1 s)
//! for one virtual hour, summary only. After the measurements it prints each one's ticks/s and its
//! ratio to tokio, from this run's own estimates.
//!
//! Run with `cargo bench --bench interval_ticks`.

mod common;

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;
use std::time::{Duration, SystemTime};

use common::{mean_ns, output_directory};

use criterion::{Criterion, Throughput};
use ticklab::interval::runner::{IntervalPlan, plan_intervals};
use ticklab::run::{RunOptions, run_scenario};
use ticklab::scenario::Scenario;
use ticklab::trace::NoTrace;

const GROUP: &str = "interval_ticks_1000x1h";
const VIRTUAL_HOUR: Duration = Duration::from_secs(3600);

const SCENARIO: &str = r#"
about = "1000 intervals, periods drawn from 10 ms to 1 s, one virtual hour"
platform = "linux"
run_for = "1h"
[model]
kind = "interval"
missed_tick = "burst"
period = ["10ms", "1s"]
count = 1000
"#;

fn ticklab_ticks(scenario: &Scenario) -> u64 {
    let report = run_scenario(scenario, &RunOptions::default(), &mut NoTrace)
        .expect("the bench scenario runs");
    report
        .summary
        .get("ticks")
        .expect("interval runs count ticks")
}

/// The same intervals as tokio tasks on a paused current-thread runtime, each looping on
/// `Interval::tick` with `MissedTickBehavior::Burst`, counted until the virtual hour ends.
fn tokio_ticks(plans: &[IntervalPlan]) -> u64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let ticks = Rc::new(Cell::new(0u64));
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let start = tokio::time::Instant::now();
        let end = start + VIRTUAL_HOUR;
        for plan in plans {
            let ticks = ticks.clone();
            let first = start + Duration::from_nanos(plan.created_ns);
            let period = Duration::from_nanos(plan.period_ns);
            tokio::task::spawn_local(async move {
                let mut interval = tokio::time::interval_at(first, period);
                interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
                while interval.tick().await < end {
                    ticks.set(ticks.get() + 1);
                }
            });
        }
        tokio::time::sleep_until(end + Duration::from_secs(1)).await;
    });
    ticks.get()
}

/// The floor: a `BinaryHeap` of (deadline, interval) and nothing else.
fn heap_ticks(plans: &[IntervalPlan]) -> u64 {
    let end_ns = VIRTUAL_HOUR.as_nanos() as u64;
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = plans
        .iter()
        .enumerate()
        .map(|(index, plan)| Reverse((plan.created_ns, index as u32)))
        .collect();
    let mut ticks = 0;
    while let Some(Reverse((at_ns, index))) = heap.pop() {
        if at_ns >= end_ns {
            break;
        }
        ticks += 1;
        heap.push(Reverse((at_ns + plans[index as usize].period_ns, index)));
    }
    ticks
}

fn main() {
    let started = SystemTime::now();
    let scenario =
        ticklab::scenario::parse("bench", SCENARIO).expect("the bench scenario is valid");
    let config = scenario
        .model
        .config::<ticklab::interval::IntervalConfig>()
        .expect("the bench scenario is an interval scenario");
    let plans = plan_intervals(config, scenario.seed);
    let ticks = ticklab_ticks(&scenario);
    assert_eq!(
        tokio_ticks(&plans),
        ticks,
        "tokio and ticklab disagree on the tick count"
    );
    assert_eq!(
        heap_ticks(&plans),
        ticks,
        "the bare heap and ticklab disagree on the tick count"
    );

    let mut criterion = Criterion::default()
        .output_directory(&output_directory())
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20))
        .configure_from_args();
    let mut group = criterion.benchmark_group(GROUP);
    group.throughput(Throughput::Elements(ticks));
    group.bench_function("ticklab", |b| b.iter(|| ticklab_ticks(&scenario)));
    // tokio takes several seconds an iteration: give it the time ten samples need.
    group.measurement_time(Duration::from_secs(100));
    group.bench_function("tokio_paused", |b| b.iter(|| tokio_ticks(&plans)));
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("binary_heap", |b| b.iter(|| heap_ticks(&plans)));
    group.finish();
    criterion.final_summary();

    println!("\n{ticks} ticks per iteration; ticks/s from this run's means:");
    let tokio = mean_ns(GROUP, "tokio_paused", started);
    for id in ["ticklab", "tokio_paused", "binary_heap"] {
        let Some(mean) = mean_ns(GROUP, id, started) else {
            continue;
        };
        let rate = ticks as f64 / (mean / 1e9);
        match tokio {
            Some(tokio) => println!(
                "  {id:<14} {:>7.2} M ticks/s  {:>5.2}x tokio",
                rate / 1e6,
                tokio / mean
            ),
            None => println!("  {id:<14} {:>7.2} M ticks/s", rate / 1e6),
        }
    }
}
