//! The executor model's behaviour, scenario by scenario: shared cores, the blocking pool, the
//! driver polled only at parks and maintenance, yields, suspends, pools, and the io phases of the
//! trace. Each test runs a small scenario and checks the numbers tokio's design implies.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::Value;
use ticklab::loader;
use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::{JsonlSink, NoTrace, Summary};
use ticklab_sim::NS_PER_MS;

const HEADER: &str = r#"
about = "An executor test"
platform = "linux"
run_for = "30s"
"#;

fn run(text: &str) -> Summary {
    let scenario = loader::parse("test.toml", &format!("{HEADER}{text}"))
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
    // A second worker parks on the driver and is woken by the timer, its timed `epoll_wait`
    // ending Linux's timer slack late.
    let helped = run(&one_runtime(4, 2, "", groups));
    assert_eq!(
        group(&helped, "sleeper", "max_latency"),
        10 * NS_PER_MS + ticklab::machine::LINUX_TIMER_SLACK_NS
    );
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

/// A run's summary and every event of its JSON trace.
fn traced(text: &str, seed: u64) -> (Summary, Vec<Value>) {
    let scenario = loader::parse("test.toml", &format!("{HEADER}{text}"))
        .unwrap_or_else(|error| panic!("{error}"));
    let options = RunOptions {
        seed: Some(seed),
        ..RunOptions::default()
    };
    let mut sink = JsonlSink::new(Vec::new());
    let summary = run_scenario(&scenario, &options, &mut sink)
        .unwrap()
        .summary;
    let events = String::from_utf8(sink.into_inner())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .collect();
    (summary, events)
}

fn num(event: &Value, key: &str) -> u64 {
    event[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {event}"))
}

fn text<'v>(event: &'v Value, key: &str) -> &'v str {
    event[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {event}"))
}

fn kind(event: &Value) -> &str {
    text(event, "event")
}

/// Checks the task counts against the trace, which knows nothing of the counters: each of
/// `arrivals` (group, count) starts that many tasks, each spawn event one more, each task-done
/// event finishes a distinct started task, and the unfinished are the started ones never done.
fn assert_tasks_match_the_trace(summary: &Summary, events: &[Value], arrivals: &[(&str, u32)]) {
    let mut started: BTreeSet<String> = arrivals
        .iter()
        .flat_map(|&(group, count)| (1..=count).map(move |instance| format!("{group}#{instance}")))
        .collect();
    let mut done = BTreeSet::new();
    for event in events {
        match kind(event) {
            "spawn" => assert!(
                started.insert(text(event, "spawned").to_string()),
                "spawned twice: {event}"
            ),
            "task-done" => assert!(
                done.insert(text(event, "task").to_string()),
                "finished twice: {event}"
            ),
            _ => {}
        }
    }
    let never_started: Vec<_> = done.difference(&started).collect();
    assert!(
        never_started.is_empty(),
        "finished unstarted {never_started:?}"
    );
    let unfinished = started.difference(&done).count() as u64;
    assert_eq!(summary.get("tasks_started"), Some(started.len() as u64));
    assert_eq!(summary.get("tasks_finished"), Some(done.len() as u64));
    assert_eq!(summary.get("tasks_unfinished"), Some(unfinished));
    let of = |tasks: &BTreeSet<String>, group: &str| {
        let prefix = format!("{group}#");
        tasks
            .iter()
            .filter(|task| task.starts_with(&prefix))
            .count() as u64
    };
    for section in &summary.groups {
        let name = &section.name;
        assert_eq!(section.get("started"), Some(of(&started, name)), "{name}");
        assert_eq!(section.get("finished"), Some(of(&done, name)), "{name}");
    }
}

/// A worker's time as its trace shows it: from each of its polls, and from each of its parks, to
/// its next poll or park, or to the end of the run.
#[derive(Debug, Default)]
struct TracedTime {
    polling_ns: u64,
    parked_ns: u64,
}

fn traced_time(events: &[Value], end_ns: u64) -> BTreeMap<String, TracedTime> {
    let mut times: BTreeMap<String, TracedTime> = BTreeMap::new();
    let mut charge = |worker: String, (parked, since_ns): (bool, u64), until_ns: u64| {
        let time = times.entry(worker).or_default();
        let bucket = if parked {
            &mut time.parked_ns
        } else {
            &mut time.polling_ns
        };
        *bucket += until_ns - since_ns;
    };
    let mut last = BTreeMap::new();
    for event in events {
        let parked = match kind(event) {
            "poll" => false,
            "park" => true,
            _ => continue,
        };
        let (worker, t_ns) = (text(event, "worker").to_string(), num(event, "t_ns"));
        if let Some(previous) = last.insert(worker.clone(), (parked, t_ns)) {
            charge(worker, previous, t_ns);
        }
    }
    for (worker, previous) in last {
        charge(worker, previous, end_ns);
    }
    times
}

/// Checks each worker's time against its trace: parked exactly as long as its parks lasted, and
/// busy plus waiting for a core no longer than its polls lasted. Unless a thread of the run went
/// into `block_in_place` (`no_block_in_place` false), which leaves a worker without a thread for
/// a while, polls and parks account for all of it and nothing is idle.
fn assert_worker_time_matches_the_trace(
    summary: &Summary,
    events: &[Value],
    no_block_in_place: bool,
) {
    let traced = traced_time(events, summary.t_ns);
    assert_eq!(traced.len(), summary.parts.len(), "{traced:?}");
    for worker in &summary.parts {
        let time = &traced[&worker.name];
        let metric = |name: &str| worker.get(name).unwrap();
        let on_cpu = metric("busy") + metric("waiting_for_core");
        assert_eq!(metric("parked"), time.parked_ns, "{}", worker.name);
        assert!(on_cpu <= time.polling_ns, "{}: {time:?}", worker.name);
        if no_block_in_place {
            assert_eq!(on_cpu, time.polling_ns, "{}", worker.name);
            assert_eq!(metric("idle"), 0, "{}", worker.name);
        }
    }
}

#[test]
fn tasks_still_pending_at_the_end_are_the_unfinished_ones() {
    let groups = r#"
[[model.task]]
name = "quick"
runtime = "rt"
count = 3
steps = [{ cpu = "1ms" }, { spawn = "spawned" }]
[[model.task]]
name = "spawned"
runtime = "rt"
steps = [{ sleep = "10ms" }]
[[model.task]]
name = "sleeper"
runtime = "rt"
count = 4
steps = [{ sleep = "1h" }]
[[model.task]]
name = "hog"
runtime = "rt"
count = 1
start = "5s"
steps = [{ cpu = "40s" }]
"#;
    let (summary, events) = traced(&one_runtime(1, 2, "", groups), 1);
    assert_tasks_match_the_trace(
        &summary,
        &events,
        &[("quick", 3), ("sleeper", 4), ("hog", 1)],
    );
    assert_eq!(summary.get("tasks_unfinished"), Some(5));
    // The hog's cpu step, cut by the end of the run, is charged up to the end.
    assert_worker_time_matches_the_trace(&summary, &events, true);
    let busy: u64 = summary.parts.iter().map(|w| w.get("busy").unwrap()).sum();
    assert_eq!(busy, 3 * NS_PER_MS + 25_000 * NS_PER_MS);
}

/// Checks that each phase of every io call ends at the event that ends it: the send at a poll
/// of the connection's task, the notice of the reply at a poll of the owner runtime's driver,
/// and the resume at the requester's own poll. Returns the io events.
fn assert_io_phases_end_at_their_events(events: &[Value]) -> Vec<&Value> {
    let (mut polls, mut driver_polls, mut ios) = (BTreeSet::new(), BTreeSet::new(), Vec::new());
    for (index, event) in events.iter().enumerate() {
        let t_ns = num(event, "t_ns");
        match kind(event) {
            "poll" => {
                polls.insert((text(event, "task").to_string(), t_ns));
            }
            "driver-poll" => {
                let (runtime, _) = text(event, "worker").rsplit_once('-').unwrap();
                driver_polls.insert((runtime.to_string(), t_ns));
            }
            "io" => {
                let sent_ns = t_ns - num(event, "latency_ns") + num(event, "send_wait_ns");
                let connection = format!("conn{}", event["connection"]);
                assert!(polls.contains(&(connection, sent_ns)), "unsent: {event}");
                let noticed_ns = t_ns - num(event, "resume_wait_ns");
                let owner = text(event, "owner").to_string();
                assert!(
                    driver_polls.contains(&(owner, noticed_ns)),
                    "unnoticed: {event}"
                );
                let resumed = &events[index - 1];
                assert!(
                    kind(resumed) == "poll"
                        && resumed["task"] == event["task"]
                        && num(resumed, "t_ns") == t_ns,
                    "not resumed by a poll: {event}"
                );
                ios.push(event);
            }
            _ => {}
        }
    }
    ios
}

#[test]
fn each_io_phase_of_the_incident_ends_at_the_event_that_ends_it() {
    let incident =
        std::fs::read_to_string("scenarios/executor/flush-compaction-shared-pool.toml").unwrap();
    let body = incident.split_once("[model]").unwrap().1;
    let (_, events) = traced(&format!("[model]{body}"), 1);
    let ios = assert_io_phases_end_at_their_events(&events);
    assert!(ios.len() > 100, "{} io events", ios.len());
    let mut slow = 0;
    for event in ios {
        // Every io step's latency is drawn from 45-55 ms; a new connection takes 1 ms more.
        let connect_ns = if event["reused"] == true {
            0
        } else {
            NS_PER_MS
        };
        let network = (45 * NS_PER_MS + connect_ns)..=(55 * NS_PER_MS + connect_ns);
        assert!(network.contains(&num(event, "network_ns")), "{event}");
        if num(event, "latency_ns") > 500 * NS_PER_MS {
            slow += 1;
            // A slow call waited both to be sent and for the owner's driver, on the cpu runtime.
            assert_eq!(event["owner"], "cpu", "{event}");
            assert!(num(event, "send_wait_ns") > 100 * NS_PER_MS, "{event}");
            assert!(num(event, "driver_wait_ns") > 100 * NS_PER_MS, "{event}");
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

/// A step of the generated tasks, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Cpu(u64),
    Yield,
    Sleep(u64),
    Io(u64),
    SpawnBlocking(u64),
    BlockInPlace(u64),
    Spawn,
}

impl Step {
    fn toml(self) -> String {
        match self {
            Step::Cpu(ms) => format!(r#"{{ cpu = "{ms}ms" }}"#),
            Step::Yield => "{ yield = true }".to_string(),
            Step::Sleep(ms) => format!(r#"{{ sleep = "{ms}ms" }}"#),
            Step::Io(ms) => format!(r#"{{ io = "http", latency = "{ms}ms" }}"#),
            Step::SpawnBlocking(ms) => format!(r#"{{ spawn_blocking = "{ms}ms" }}"#),
            Step::BlockInPlace(ms) => format!(r#"{{ block_in_place = "{ms}ms" }}"#),
            Step::Spawn => r#"{ spawn = "child" }"#.to_string(),
        }
    }

    /// Whether the poll that runs this step ends with it.
    fn suspends(self) -> bool {
        matches!(
            self,
            Step::Yield | Step::Sleep(_) | Step::Io(_) | Step::SpawnBlocking(_)
        )
    }
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u64..20).prop_map(Step::Cpu),
        Just(Step::Yield),
        (0u64..20).prop_map(Step::Sleep),
        (1u64..30).prop_map(Step::Io),
        (0u64..20).prop_map(Step::SpawnBlocking),
        (0u64..20).prop_map(Step::BlockInPlace),
        Just(Step::Spawn),
    ]
}

/// Each task of a trace followed through its group's steps: the cpu steps each poll ran, summed
/// by the worker that polled, and for each io event, that the network took the latency of the io
/// step the poll before it resumes from.
fn replay_steps(events: &[Value], groups: &[(&str, &[Step])]) -> BTreeMap<String, u64> {
    let mut cpu_ns: BTreeMap<String, u64> = BTreeMap::new();
    // By task: its next step, and the step that ended the poll before its latest one.
    let mut progress: BTreeMap<String, (usize, Option<Step>)> = BTreeMap::new();
    for event in events {
        let task = match kind(event) {
            "poll" | "io" => text(event, "task"),
            _ => continue,
        };
        let group = task.split('#').next();
        let Some(&(_, steps)) = groups.iter().find(|(name, _)| group == Some(name)) else {
            continue;
        };
        let (next, resumed_from) = progress.entry(task.to_string()).or_default();
        if kind(event) == "io" {
            let Some(Step::Io(ms)) = *resumed_from else {
                panic!("{event} resumes from {resumed_from:?}")
            };
            assert_eq!(num(event, "network_ns"), ms * NS_PER_MS, "{event}");
            continue;
        }
        let worker = cpu_ns.entry(text(event, "worker").to_string()).or_default();
        *resumed_from = next.checked_sub(1).map(|last| steps[last]);
        while let Some(&step) = steps.get(*next) {
            *next += 1;
            match step {
                Step::Cpu(ms) => *worker += ms * NS_PER_MS,
                step if step.suspends() => break,
                _ => {}
            }
        }
    }
    cpu_ns
}

/// The scenario of the property below: a runtime `a` whose parent tasks spawn children on a
/// runtime `b`, both using one connection pool.
fn two_runtimes(cores: u32, workers: u32, lifo_slot: bool, idle: u32, shared: bool) -> String {
    format!(
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
"#
    )
}

fn task_group(name: &str, runtime: &str, arrivals: &str, steps: &[Step]) -> String {
    let steps: Vec<String> = steps.iter().map(|step| step.toml()).collect();
    format!(
        "[[model.task]]\nname = \"{name}\"\nruntime = \"{runtime}\"\n{arrivals}\nsteps = [{}]\n",
        steps.join(", ")
    )
}

proptest! {
    #![proptest_config(config())]

    /// Whatever the tasks do, the summary agrees with the trace: every task started is finished
    /// or counted unfinished (and short work always finishes), each worker's busy, waiting,
    /// parked and idle time matches its polls, parks and the cpu steps those polls ran, and each
    /// io call's phases end at the events that end them.
    #[test]
    fn the_summary_accounts_for_every_task_and_worker_nanosecond_the_trace_shows(
        (cores, workers, lifo_slot) in (1u32..4, 1u32..4, any::<bool>()),
        (idle, shared) in (0u32..3, any::<bool>()),
        steps in prop::collection::vec(step(), 1..6),
        child_steps in prop::collection::vec(
            step().prop_filter("no recursion", |s| *s != Step::Spawn),
            1..4,
        ),
        count in 1u32..20,
        seed in 0u64..1000,
    ) {
        let arrivals = format!("count = {count}\nevery = \"7ms\"\narrival = \"poisson\"");
        let text = format!(
            "{}{}{}",
            two_runtimes(cores, workers, lifo_slot, idle, shared),
            task_group("parent", "a", &arrivals, &steps),
            task_group("child", "b", "", &child_steps),
        );
        let (summary, events) = traced(&text, seed);
        assert_tasks_match_the_trace(&summary, &events, &[("parent", count)]);
        prop_assert_eq!(summary.get("tasks_unfinished"), Some(0));
        let spawns = steps.iter().filter(|step| **step == Step::Spawn).count() as u64;
        prop_assert_eq!(group(&summary, "child", "started"), u64::from(count) * spawns);

        let in_place = |steps: &[Step]| steps.iter().any(|s| matches!(s, Step::BlockInPlace(_)));
        let no_block_in_place = !in_place(&steps) && !in_place(&child_steps);
        assert_worker_time_matches_the_trace(&summary, &events, no_block_in_place);
        let cpu_ns = replay_steps(&events, &[("parent", &steps), ("child", &child_steps)]);
        for worker in &summary.parts {
            // A poll that went into block_in_place may finish its cpu steps off the worker.
            let busy = worker.get("busy").unwrap();
            let polled = cpu_ns.get(&worker.name).copied().unwrap_or(0);
            prop_assert!(busy <= polled, "{}: busy {busy}, polls ran {polled}", worker.name);
            if no_block_in_place {
                prop_assert_eq!(busy, polled, "{}", &worker.name);
            }
        }
        let ios = assert_io_phases_end_at_their_events(&events);
        prop_assert_eq!(ios.len() as u64, summary.get("io_calls").unwrap());
        for name in ["parent", "child"] {
            let metric = |m: &str| group(&summary, name, m);
            prop_assert!(metric("p50_latency") <= metric("p99_latency"));
            prop_assert!(metric("p99_latency") <= metric("max_latency"));
            prop_assert!(metric("p99_io_latency") <= metric("max_io_latency"));
        }
    }
}

/// One 1 s ticker that ticks ten times, through a 5 s process freeze from 2.5 s.
fn ticker_through_a_freeze(missed_tick: &str) -> Summary {
    let groups = format!(
        r#"
[[model.task]]
name = "ticker"
runtime = "rt"
count = 1
repeat = 10
steps = [{{ tick = "1s", missed_tick = "{missed_tick}" }}]
[[fault]]
kind = "process-suspend"
at = "2.5s"
duration = "5s"
"#
    );
    run(&one_runtime(1, 1, "", &groups))
}

#[test]
fn a_tick_step_follows_its_missed_tick_behaviour_through_a_freeze() {
    // Ticks at 0, 1 and 2 s; the one due at 3 s fires at the resume, 7.5 s. Burst then fires the
    // ones due at 4 to 7 s at once and goes on at 8 and 9 s; skip goes on from the next multiple
    // of the period after the resume, 8 s, to the tenth tick at 13 s; delay from a period after
    // the resume, 8.5 s, to 13.5 s.
    let slack_ns = ticklab::machine::LINUX_TIMER_SLACK_NS;
    for (missed_tick, last_tick_ms) in [("burst", 9_000), ("skip", 13_000), ("delay", 13_500)] {
        let summary = ticker_through_a_freeze(missed_tick);
        assert_eq!(group(&summary, "ticker", "timers"), 10, "{missed_tick}");
        // The worker parks for whole ticks counted from the millisecond rounded down, so each
        // wake carries the sub-millisecond part of the last one, plus the slack, to the next:
        // the last tick is late by a few slacks, within its millisecond.
        let last_tick_ns = group(&summary, "ticker", "max_latency");
        assert!(
            (last_tick_ms * NS_PER_MS + slack_ns..(last_tick_ms + 1) * NS_PER_MS)
                .contains(&last_tick_ns),
            "{missed_tick}: last tick at {last_tick_ns} ns"
        );
        assert_eq!(
            group(&summary, "ticker", "max_timer_lateness"),
            4_500 * NS_PER_MS,
            "{missed_tick}: the tick due at 3 s fires at the resume"
        );
    }
}

#[test]
fn a_block_step_holds_its_worker_and_the_task_in_its_lifo_slot() {
    let groups = r#"
[[model.task]]
name = "blocker"
runtime = "rt"
count = 1
steps = [{ spawn = "child" }, { block = "2s" }]
[[model.task]]
name = "child"
runtime = "rt"
steps = [{ cpu = "1ms" }]
"#;
    let (summary, events) = traced(&one_runtime(2, 2, "", groups), 0);
    // `std::thread::sleep` is a timed wait: on Linux it ends the timer slack late.
    let block_ns = 2_000 * NS_PER_MS + ticklab::machine::LINUX_TIMER_SLACK_NS;
    // The child waits in the blocked worker's LIFO slot, which the other worker cannot steal.
    assert_eq!(group(&summary, "blocker", "max_latency"), block_ns);
    assert_eq!(
        group(&summary, "child", "max_latency"),
        block_ns + NS_PER_MS
    );
    let blocks: Vec<&Value> = events
        .iter()
        .filter(|event| kind(event) == "blocking" && text(event, "section") == "block")
        .collect();
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    let worker = text(blocks[0], "worker");
    let blocked_ns = num(blocks[0], "t_ns") - num(blocks[0], "started_ns");
    assert_eq!(blocked_ns, block_ns);
    let part = summary
        .parts
        .iter()
        .find(|part| part.name == worker)
        .expect("the blocked worker is in the summary");
    assert_eq!(part.get("blocked"), Some(blocked_ns));
    assert_eq!(part.get("busy"), Some(NS_PER_MS), "blocking uses no CPU");
}

#[test]
fn an_io_timeout_gives_up_on_a_slow_reply_and_a_cancelled_one_wakes_nobody() {
    let groups = r#"
[[model.pool]]
name = "http"
idle = 4
[[model.task]]
name = "slow"
runtime = "rt"
count = 1
steps = [{ io = "http", latency = "200ms", timeout = "100ms" }, { sleep = "1s" }]
[[model.task]]
name = "fast"
runtime = "rt"
count = 1
start = "2s"
steps = [{ io = "http", latency = "50ms", timeout = "100ms" }, { sleep = "1s" }]
"#;
    let summary = run(&one_runtime(1, 1, "", groups));
    let slack_ns = ticklab::machine::LINUX_TIMER_SLACK_NS;
    // The slow call gives up at 100 ms (the parked driver's wait ends the slack late); its sleep's
    // deadline, 1.10005 s, rounds up to tick 1101. The worker parks at 100.05 ms, in tick 100,
    // for the 1001 ticks left: to 1101.05 ms, and its wait ends the slack late.
    assert_eq!(group(&summary, "slow", "timeouts"), 1);
    assert_eq!(group(&summary, "slow", "io_calls"), 0);
    assert_eq!(
        group(&summary, "slow", "max_latency"),
        1_101 * NS_PER_MS + slack_ns + slack_ns
    );
    // The fast call's reply cancels its timeout: had the timer still fired at 2.1 s, it would
    // have cut the sleep after it short. Its sleep starts when the parked worker's wait ends, the
    // slack after the reply, and that carries into the sleep's own park.
    assert_eq!(group(&summary, "fast", "timeouts"), 0);
    assert_eq!(group(&summary, "fast", "io_calls"), 1);
    assert_eq!(
        group(&summary, "fast", "max_latency"),
        1_050 * NS_PER_MS + slack_ns + slack_ns
    );
    assert_eq!(group(&summary, "fast", "timers"), 1, "only its sleep");
}

/// A runtime whose driver drops every sleep, known only to test builds (the models'
/// `planted-bugs` feature): what must eventually happen to a sleeping task, waking, never does.
#[test]
fn a_task_whose_sleep_is_never_fired_is_reported_and_breaks_the_run() {
    let output = assert_cmd::Command::cargo_bin("ticklab")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "tests/planted/driver-drops-sleeps.toml"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let trace = String::from_utf8(output.stdout).unwrap();
    assert!(
        trace.contains("BROKEN    napper#1 never woke from a sleep due 990ms ago, though rt-1 is parked on the driver"),
        "{trace}"
    );
    assert!(
        trace.contains("UNFINISHED napper#1 after 1s: asleep on a timer due 990ms ago"),
        "{trace}"
    );
    let sound = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/planted/driver-drops-sleeps.toml"),
    )
    .unwrap()
    .replace("driver = \"drops-sleeps\"", "driver = \"tokio\"");
    let scenario = ticklab::loader::parse("sound.toml", &sound).unwrap();
    let report = ticklab::run::run_scenario(
        &scenario,
        &ticklab::run::RunOptions::default(),
        &mut ticklab::trace::NoTrace,
    )
    .unwrap();
    assert!(report.passed(), "{:?}", report.outcomes);
    assert_eq!(report.summary.get("tasks_unfinished"), Some(0));
}
