//! Simulated ticks per second: ticklab's simulator against tokio's paused-time runtime and bare
//! priority queues, all running the same 1000 intervals (periods drawn from 10 ms to 1 s, random
//! phases) for one virtual hour, summary only. Each contender is checked to count exactly
//! ticklab's ticks before it is measured. After the measurements the bench prints each one's
//! ticks/s and how ticklab compares, from this run's own estimates.
//!
//! Run with `cargo bench --bench interval_ticks`. `TICKLAB_BENCH_TOKIO_SETUPS=1` also measures the
//! tokio set-ups that lost to the fastest (BENCHMARKS.md lists them), adding about a minute and
//! a half. `TICKLAB_BENCH_ONCE=<id>` runs one contender once and exits, for a profiler.

mod common;
mod interval_rivals;

use std::cell::Cell;
use std::time::{Duration, SystemTime};

use common::{mean_ns, output_directory};
use criterion::{Criterion, SamplingMode, Throughput};
use interval_rivals::floors;
use interval_rivals::tokio_setups::TokioSetup;
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

/// tokio's set-ups measured in every run; with `TICKLAB_BENCH_TOKIO_SETUPS=1` the others too. Each
/// run compares ticklab with whichever tokio set-up was fastest in it.
const TOKIO_FASTEST: [TokioSetup; 2] = [TokioSetup::OneTask, TokioSetup::SpawnedUnconstrained];
/// tokio as this bench first ran it, for the footnote.
const TOKIO_FIRST: TokioSetup = TokioSetup::LocalSet;

fn ticklab_ticks(scenario: &Scenario) -> u64 {
    let report = run_scenario(scenario, &RunOptions::default(), &mut NoTrace)
        .expect("the bench scenario runs");
    report
        .summary
        .get("ticks")
        .expect("interval runs count ticks")
}

/// One contender: its criterion id and how it counts the hour's ticks.
struct Contender<'a> {
    id: &'static str,
    ticks: Box<dyn Fn() -> u64 + 'a>,
    /// Seconds of measurement: the slow contenders need more for ten samples.
    measure_s: u64,
}

fn contenders<'a>(scenario: &'a Scenario, plans: &'a [IntervalPlan]) -> Vec<Contender<'a>> {
    let end_ns = VIRTUAL_HOUR.as_nanos() as u64;
    let tokio = |setup: TokioSetup| Contender {
        id: setup.id(),
        ticks: Box::new(move || setup.ticks(plans, VIRTUAL_HOUR)),
        // tokio takes a few seconds an iteration: ten of them.
        measure_s: 25,
    };
    let floor = |id, count: fn(&[IntervalPlan], u64) -> u64| Contender {
        id,
        ticks: Box::new(move || count(plans, end_ns)),
        measure_s: 20,
    };
    let mut all = vec![Contender {
        id: "ticklab",
        ticks: Box::new(|| ticklab_ticks(scenario)),
        measure_s: 20,
    }];
    all.extend(TOKIO_FASTEST.map(tokio));
    all.extend([
        floor("quad_heap", floors::quad_heap),
        floor("binary_heap", floors::binary_heap),
        floor("radix_queue", floors::radix_queue),
        tokio(TOKIO_FIRST),
    ]);
    if std::env::var_os("TICKLAB_BENCH_TOKIO_SETUPS").is_some() {
        all.extend(
            TokioSetup::ALL
                .into_iter()
                .filter(|setup| !TOKIO_FASTEST.contains(setup) && *setup != TOKIO_FIRST)
                .map(tokio),
        );
    }
    all
}

fn main() {
    let started = SystemTime::now();
    let scenario = ticklab::loader::parse("bench", SCENARIO).expect("the bench scenario is valid");
    let config = scenario
        .model
        .config::<ticklab::interval::IntervalConfig>()
        .expect("the bench scenario is an interval scenario");
    let plans = plan_intervals(config, scenario.seed);
    if let Some(id) = std::env::var_os("TICKLAB_BENCH_ONCE") {
        let contenders = contenders(&scenario, &plans);
        let contender = contenders
            .iter()
            .find(|contender| id == contender.id)
            .expect("TICKLAB_BENCH_ONCE names a contender");
        println!("{}: {} ticks", contender.id, (contender.ticks)());
        return;
    }
    let ticks = ticklab_ticks(&scenario);
    let contenders = contenders(&scenario, &plans);

    let mut criterion = Criterion::default()
        .output_directory(&output_directory())
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    let mut group = criterion.benchmark_group(GROUP);
    group.throughput(Throughput::Elements(ticks));
    // The same iterations in every sample: linear sampling would run ticklab 55 times.
    group.sampling_mode(SamplingMode::Flat);
    for contender in &contenders {
        // Checked once, and only for the contenders a filter picks.
        let checked = Cell::new(false);
        group.measurement_time(Duration::from_secs(contender.measure_s));
        group.bench_function(contender.id, |b| {
            if !checked.replace(true) {
                assert_eq!(
                    (contender.ticks)(),
                    ticks,
                    "{} and ticklab disagree on the tick count",
                    contender.id
                );
            }
            b.iter(|| (contender.ticks)())
        });
    }
    group.finish();
    criterion.final_summary();
    print_rates(&contenders, ticks, started);
}

/// Ticks/s of each contender this run measured, and ticklab's speed as a multiple of its; then
/// ticklab against tokio at its fastest in this run and against the bare four-ary heap.
fn print_rates(contenders: &[Contender<'_>], ticks: u64, started: SystemTime) {
    println!("\n{ticks} ticks per iteration; from this run's means:");
    let mean = |id| mean_ns(GROUP, id, started);
    let Some(ticklab) = mean("ticklab") else {
        return;
    };
    for contender in contenders {
        let Some(mean) = mean(contender.id) else {
            continue;
        };
        println!(
            "  {:<26} {:>7.2} M ticks/s   ticklab {:>5.2}x as fast",
            contender.id,
            ticks as f64 / mean * 1e3,
            mean / ticklab
        );
    }
    // Whichever tokio set-up this run measured fastest, the optional ones included.
    let tokio = TokioSetup::ALL
        .iter()
        .filter_map(|setup| Some((mean(setup.id())?, setup.id())))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((tokio, id)) = tokio {
        println!(
            "ticklab vs tokio at its fastest here ({id}): {:.2}x",
            tokio / ticklab
        );
    }
    if let Some(heap) = mean("quad_heap") {
        println!("ticklab vs the bare four-ary heap: {:.2}x", heap / ticklab);
    }
}
