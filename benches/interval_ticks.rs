//! Simulated ticks per second: ticklab's simulator against tokio's paused-time runtime and a bare
//! `BinaryHeap` event loop, all running the same 1000 intervals for one virtual hour.

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use ticklab::interval::runner::{IntervalPlan, plan_intervals};
use ticklab::run::{RunOptions, run_scenario};
use ticklab::scenario::{ModelConfig, Scenario};
use ticklab::trace::NoTrace;

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

fn scenario() -> Scenario {
    ticklab::scenario::parse("bench", SCENARIO).expect("the bench scenario is valid")
}

fn plans(scenario: &Scenario) -> Vec<IntervalPlan> {
    let ModelConfig::Interval(config) = &scenario.model;
    plan_intervals(config, scenario.seed)
}

fn ticklab_ticks(scenario: &Scenario) -> u64 {
    let report = run_scenario(scenario, &RunOptions::default(), &mut NoTrace).unwrap();
    report.summary.get("ticks").unwrap()
}

fn tokio_ticks(plans: &[IntervalPlan], run_for: Duration) -> u64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let ticks = Rc::new(Cell::new(0u64));
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let start = tokio::time::Instant::now();
        let end = start + run_for;
        for plan in plans {
            let ticks = ticks.clone();
            let first = start + Duration::from_nanos(plan.created_ns);
            let period = Duration::from_nanos(plan.period_ns);
            tokio::task::spawn_local(async move {
                let mut interval = tokio::time::interval_at(first, period);
                interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
                loop {
                    let deadline = interval.tick().await;
                    if deadline >= end {
                        break;
                    }
                    ticks.set(ticks.get() + 1);
                }
            });
        }
        tokio::time::sleep_until(end + Duration::from_secs(1)).await;
    });
    ticks.get()
}

fn heap_ticks(plans: &[IntervalPlan], run_for_ns: u64) -> u64 {
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = plans
        .iter()
        .enumerate()
        .map(|(i, plan)| Reverse((plan.created_ns, i as u32)))
        .collect();
    let mut ticks = 0;
    while let Some(Reverse((at_ns, index))) = heap.pop() {
        if at_ns >= run_for_ns {
            break;
        }
        ticks += 1;
        heap.push(Reverse((at_ns + plans[index as usize].period_ns, index)));
    }
    ticks
}

fn main() {
    let scenario = scenario();
    let plans = plans(&scenario);
    for (name, f) in [
        (
            "ticklab",
            Box::new(|| ticklab_ticks(&scenario)) as Box<dyn Fn() -> u64>,
        ),
        (
            "tokio",
            Box::new(|| tokio_ticks(&plans, Duration::from_secs(3600))),
        ),
        ("heap", Box::new(|| heap_ticks(&plans, 3_600_000_000_000))),
    ] {
        let t = Instant::now();
        let n = f();
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name}: {n} ticks in {s:.2}s = {:.2} M/s",
            n as f64 / s / 1e6
        );
    }
}
