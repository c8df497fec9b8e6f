//! The executor model's behaviour, scenario by scenario: shared cores, the blocking pool, the
//! driver polled only at parks and maintenance, yields, suspends, pools, and the io phases of the
//! trace. Each test runs a small scenario and checks the numbers tokio's design implies.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::Value;
use ticklab::run::{RunOptions, run_scenario};
use ticklab::scenario;
use ticklab::trace::{JsonlSink, NoTrace, Summary};
use ticklab_sim::NS_PER_MS;

const HEADER: &str = r#"
about = "An executor test"
platform = "linux"
run_for = "30s"
"#;

fn run(text: &str) -> Summary {
    let scenario = scenario::parse("test.toml", &format!("{HEADER}{text}"))
        .unwrap_or_else(|error| panic!("{error}"));
    run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary
}

fn group(summary: &Summary, group: &str, metric: &str) -> u64 {
    summary
        .lookup(Some(group), metric)
        .unwrap_or_else(|| panic!("no {metric} for {group}"))
}

fn ms(ns: u64) -> f64 {
    ns as f64 / NS_PER_MS as f64
}

/// One runtime, `workers` workers on `cores` cores, and the given task groups.
fn one_runtime(cores: u32, workers: u32, extra: &str, groups: &str) -> String {
    format!(
        r#"
[model]
kind = "executor"
cores = {cores}
[[model.runtime]]
name = "rt"
workers = {workers}
{extra}
{groups}
"#
    )
}

#[test]
fn workers_beyond_the_cores_share_them_in_time_slices() {
    let groups = r#"
[[model.task]]
name = "work"
runtime = "rt"
count = 4
steps = [{ cpu = "100ms" }]
"#;
    let shared = run(&one_runtime(1, 4, "", groups));
    // Four 100 ms steps round-robin on one core in 3 ms slices: all end near 400 ms.
    let (p50, max) = (
        group(&shared, "work", "p50_latency"),
        group(&shared, "work", "max_latency"),
    );
    assert!(
        (390.0..=401.0).contains(&ms(p50)) && (399.0..=401.0).contains(&ms(max)),
        "p50 {} ms, max {} ms",
        ms(p50),
        ms(max)
    );
    let enough = run(&one_runtime(4, 4, "", groups));
    assert_eq!(group(&enough, "work", "max_latency"), 100 * NS_PER_MS);
}

#[test]
fn spawn_blocking_queues_work_once_the_pool_is_at_its_limit() {
    let groups = r#"
[[model.task]]
name = "job"
runtime = "rt"
count = 2
steps = [{ spawn_blocking = "100ms" }]
"#;
    let limited = run(&one_runtime(4, 1, "blocking_threads = 1", groups));
    assert_eq!(group(&limited, "job", "max_latency"), 200 * NS_PER_MS);
    let roomy = run(&one_runtime(4, 1, "blocking_threads = 2", groups));
    assert_eq!(group(&roomy, "job", "max_latency"), 100 * NS_PER_MS);
}

#[test]
fn a_busy_worker_notices_an_expired_timer_only_when_it_next_polls_the_driver() {
    let groups = r#"
[[model.task]]
name = "sleeper"
runtime = "rt"
count = 1
steps = [{ sleep = "10ms" }]
[[model.task]]
name = "hog"
runtime = "rt"
count = 1
start = "1ms"
steps = [{ cpu = "500ms" }]
"#;
    // One worker, busy from 1 ms to 501 ms: the timer that expired at 10 ms waits for it.
    let alone = run(&one_runtime(4, 1, "", groups));
    assert_eq!(group(&alone, "sleeper", "max_latency"), 501 * NS_PER_MS);
    // A second worker parks on the driver and is woken by the timer.
    let helped = run(&one_runtime(4, 2, "", groups));
    assert_eq!(group(&helped, "sleeper", "max_latency"), 10 * NS_PER_MS);
}

#[test]
fn a_busy_worker_polls_the_driver_every_event_interval_ticks() {
    let groups = r#"
[[model.task]]
name = "sleeper"
runtime = "rt"
count = 1
steps = [{ sleep = "5ms" }]
[[model.task]]
name = "chunk"
runtime = "rt"
count = 300
start = "1ms"
steps = [{ cpu = "1ms" }]
"#;
    let every_tick = run(&one_runtime(4, 1, "event_interval = 1", groups));
    let tokio_default = run(&one_runtime(4, 1, "", groups));
    let prompt = group(&every_tick, "sleeper", "max_latency");
    let late = group(&tokio_default, "sleeper", "max_latency");
    // Polled at every tick, the sleeper runs right after the chunk that covers 5 ms; at the
    // default interval, only once 61 ticks (61 chunks of 1 ms) have passed.
    assert!(ms(prompt) <= 7.0, "every tick: {} ms", ms(prompt));
    assert!(
        (55.0..=70.0).contains(&ms(late)),
        "every 61 ticks: {} ms",
        ms(late)
    );
}

#[test]
fn a_yield_sends_the_task_behind_the_queued_ones() {
    let groups = |first: &str| {
        format!(
            r#"
[[model.task]]
name = "first"
runtime = "rt"
count = 1
steps = {first}
[[model.task]]
name = "second"
runtime = "rt"
count = 1
start = "1us"
steps = [{{ cpu = "10ms" }}]
"#
        )
    };
    let yielding = run(&one_runtime(
        4,
        1,
        "",
        &groups(r#"[{ cpu = "10ms" }, { yield = true }, { cpu = "10ms" }]"#),
    ));
    assert_eq!(
        group(&yielding, "second", "max_latency"),
        20 * NS_PER_MS - 1_000
    );
    assert_eq!(group(&yielding, "first", "max_latency"), 30 * NS_PER_MS);
    let greedy = run(&one_runtime(
        4,
        1,
        "",
        &groups(r#"[{ cpu = "10ms" }, { cpu = "10ms" }]"#),
    ));
    assert_eq!(group(&greedy, "first", "max_latency"), 20 * NS_PER_MS);
    assert_eq!(
        group(&greedy, "second", "max_latency"),
        30 * NS_PER_MS - 1_000
    );
}

#[test]
fn a_yielded_task_runs_again_after_the_next_maintenance_not_after_the_whole_backlog() {
    let groups = r#"
[[model.task]]
name = "yielder"
runtime = "rt"
count = 1
steps = [{ cpu = "1ms" }, { yield = true }]
[[model.task]]
name = "chunk"
runtime = "rt"
count = 300
start = "1us"
steps = [{ cpu = "1ms" }]
"#;
    let summary = run(&one_runtime(4, 1, "", groups));
    // Released at the maintenance check of tick 61, into the LIFO slot, and polled next.
    let latency = group(&summary, "yielder", "max_latency");
    assert!(
        (55.0..=65.0).contains(&ms(latency)),
        "yielder took {} ms",
        ms(latency)
    );
}

#[test]
fn a_task_goes_on_without_a_core_after_block_in_place() {
    let groups = r#"
[[model.task]]
name = "blocker"
runtime = "rt"
count = 1
steps = [{ block_in_place = "10ms" }, { cpu = "1ms" }]
[[model.task]]
name = "hog"
runtime = "rt"
count = 1
start = "5ms"
steps = [{ cpu = "500ms" }]
"#;
    // The hog takes the worker's core on its new thread; the blocker's thread finishes the poll
    // on its own.
    let summary = run(&one_runtime(4, 1, "", groups));
    assert_eq!(group(&summary, "blocker", "max_latency"), 11 * NS_PER_MS);
}

#[test]
fn threads_that_take_over_a_core_count_against_the_blocking_pool() {
    let groups = r#"
[[model.task]]
name = "blocker"
runtime = "rt"
count = 1
steps = [{ block_in_place = "100ms" }]
[[model.task]]
name = "job"
runtime = "rt"
count = 1
start = "1ms"
steps = [{ spawn_blocking = "100ms" }]
"#;
    // The only pool thread took over the worker's core; the job waits for the blocking section's
    // thread to return to the pool at 100 ms.
    let full = run(&one_runtime(4, 1, "blocking_threads = 1", groups));
    assert_eq!(group(&full, "job", "max_latency"), 199 * NS_PER_MS);
    let roomy = run(&one_runtime(4, 1, "blocking_threads = 2", groups));
    assert_eq!(group(&roomy, "job", "max_latency"), 100 * NS_PER_MS);
}

#[test]
fn a_system_suspend_stops_cpu_work_until_the_resume() {
    let text = one_runtime(
        4,
        1,
        "",
        r#"
[[model.task]]
name = "work"
runtime = "rt"
count = 1
steps = [{ cpu = "1s" }]
[[fault]]
kind = "system-suspend"
at = "500ms"
duration = "10s"
"#,
    );
    let summary = run(&text);
    assert_eq!(group(&summary, "work", "max_latency"), 11_000 * NS_PER_MS);
}

const TWO_RUNTIMES: &str = r#"
[model]
kind = "executor"
cores = 8
[[model.runtime]]
name = "a"
workers = 1
[[model.runtime]]
name = "b"
workers = 1
[[model.pool]]
name = "http"
idle = 8
shared = SHARED
[[model.task]]
name = "opener"
runtime = "b"
count = 1
steps = [{ io = "http", latency = "10ms" }]
[[model.task]]
name = "reuser"
runtime = "a"
count = 1
start = "100ms"
steps = [{ io = "http", latency = "10ms" }]
"#;

#[test]
fn a_shared_pool_lends_one_runtime_s_connection_to_another_and_per_runtime_pools_do_not() {
    let shared = run(&TWO_RUNTIMES.replace("SHARED", "true"));
    assert_eq!(shared.get("cross_runtime_io_calls"), Some(1));
    assert_eq!(shared.get("connections_opened"), Some(1));
    let separate = run(&TWO_RUNTIMES.replace("SHARED", "false"));
    assert_eq!(separate.get("cross_runtime_io_calls"), Some(0));
    assert_eq!(separate.get("connections_opened"), Some(2));
}

/// Every `io` event of a run's JSON trace, as objects.
fn io_events(text: &str, seed: u64) -> Vec<Value> {
    let scenario = scenario::parse("test.toml", &format!("{HEADER}{text}")).unwrap();
    let options = RunOptions {
        seed: Some(seed),
        ..RunOptions::default()
    };
    let mut sink = JsonlSink::new(Vec::new());
    run_scenario(&scenario, &options, &mut sink).unwrap();
    String::from_utf8(sink.into_inner())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["event"] == "io")
        .collect()
}

#[test]
fn the_phases_of_every_io_call_add_up_to_its_latency() {
    let incident =
        std::fs::read_to_string("scenarios/executor/flush-compaction-shared-pool.toml").unwrap();
    let body = incident.split_once("[model]").unwrap().1;
    let events = io_events(&format!("[model]{body}"), 1);
    assert!(events.len() > 100, "{} io events", events.len());
    let mut slow = 0;
    for event in &events {
        let phase = |key: &str| event[key].as_u64().unwrap();
        assert_eq!(
            phase("send_wait_ns")
                + phase("network_ns")
                + phase("driver_wait_ns")
                + phase("resume_wait_ns"),
            phase("latency_ns"),
            "{event}"
        );
        if phase("latency_ns") > 500 * NS_PER_MS {
            slow += 1;
            // A slow call waited both to be sent and for the owner's driver, on the cpu runtime.
            assert_eq!(event["owner"], "cpu", "{event}");
            assert!(phase("send_wait_ns") > 100 * NS_PER_MS, "{event}");
            assert!(phase("driver_wait_ns") > 100 * NS_PER_MS, "{event}");
        }
    }
    assert!(slow >= 1, "no io call above 500 ms");
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/executor.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

fn step() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..20).prop_map(|ms| format!(r#"{{ cpu = "{ms}ms" }}"#)),
        Just("{ yield = true }".to_string()),
        (0u64..20).prop_map(|ms| format!(r#"{{ sleep = "{ms}ms" }}"#)),
        (1u64..30).prop_map(|ms| format!(r#"{{ io = "http", latency = "{ms}ms" }}"#)),
        (0u64..20).prop_map(|ms| format!(r#"{{ spawn_blocking = "{ms}ms" }}"#)),
        (0u64..20).prop_map(|ms| format!(r#"{{ block_in_place = "{ms}ms" }}"#)),
        Just(r#"{ spawn = "child" }"#.to_string()),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// Whatever the tasks do, every task is accounted for, each io call's phases add up, and a
    /// run of tasks that all end long before the run does leaves none unfinished.
    #[test]
    fn every_task_is_accounted_for_and_short_work_always_finishes(
        cores in 1u32..4,
        workers in 1u32..4,
        lifo_slot in any::<bool>(),
        idle in 0u32..3,
        shared in any::<bool>(),
        steps in prop::collection::vec(step(), 1..6),
        child_steps in prop::collection::vec(step().prop_filter("no recursion", |s| !s.contains("spawn =")), 1..4),
        count in 1u32..20,
        seed in 0u64..1000,
    ) {
        let text = format!(
            r#"
[model]
kind = "executor"
cores = {cores}
[[model.runtime]]
name = "a"
workers = {workers}
lifo_slot = {lifo_slot}
[[model.runtime]]
name = "b"
workers = 1
[[model.pool]]
name = "http"
idle = {idle}
shared = {shared}
[[model.task]]
name = "parent"
runtime = "a"
count = {count}
every = "7ms"
arrival = "poisson"
steps = [{}]
[[model.task]]
name = "child"
runtime = "b"
steps = [{}]
"#,
            steps.join(", "),
            child_steps.join(", ")
        );
        let summary = run(&text);
        let started = summary.get("tasks_started").unwrap();
        prop_assert_eq!(
            started,
            summary.get("tasks_finished").unwrap() + summary.get("tasks_unfinished").unwrap()
        );
        prop_assert_eq!(summary.get("tasks_unfinished"), Some(0));
        prop_assert!(summary.get("polls").unwrap() >= started);
        for name in ["parent", "child"] {
            let metric = |m: &str| group(&summary, name, m);
            prop_assert!(metric("p50_latency") <= metric("p99_latency"));
            prop_assert!(metric("p99_latency") <= metric("max_latency"));
            prop_assert!(metric("p99_io_latency") <= metric("max_io_latency"));
        }
        for worker in &summary.parts {
            let busy = worker.get("busy").unwrap();
            let parked = worker.get("parked").unwrap();
            let idle = worker.get("idle").unwrap();
            let waiting = worker.get("waiting_for_core").unwrap();
            prop_assert_eq!(busy + waiting + parked + idle, summary.t_ns, "{}", worker.name);
        }
        for event in io_events(&text, seed) {
            let phase = |key: &str| event[key].as_u64().unwrap();
            prop_assert_eq!(
                phase("send_wait_ns") + phase("network_ns") + phase("driver_wait_ns") + phase("resume_wait_ns"),
                phase("latency_ns")
            );
        }
    }
}
