//! Hosts scenarios against hand-worked figures: per-host clocks and drift, what a suspend or a
//! freeze does to the messages a host gets, both networks, and the sweep that finds two leaders.

#[path = "hosts/liveness.rs"]
mod liveness;
#[path = "hosts/machine_keys.rs"]
mod machine_keys;
#[path = "hosts/machines.rs"]
mod machines;
#[path = "hosts/network.rs"]
mod network;
#[path = "hosts/output.rs"]
mod output;
#[path = "hosts/thaw.rs"]
mod thaw;

use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::{NoTrace, Summary};

const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

fn run(text: &str) -> Summary {
    let scenario =
        ticklab::loader::parse("test.toml", text).unwrap_or_else(|error| panic!("{error}"));
    run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary
}

/// Runs `text` and returns its summary and its trace as JSON objects, one per event.
fn run_json(text: &str) -> (Summary, Vec<serde_json::Value>) {
    let scenario =
        ticklab::loader::parse("test.toml", text).unwrap_or_else(|error| panic!("{error}"));
    let mut sink = ticklab::trace::JsonlSink::new(Vec::new());
    let summary = run_scenario(&scenario, &RunOptions::default(), &mut sink)
        .unwrap()
        .summary;
    let trace = String::from_utf8(sink.into_inner()).unwrap();
    let events = trace
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (summary, events)
}

fn value(summary: &Summary, metric: &str) -> u64 {
    summary
        .get(metric)
        .unwrap_or_else(|| panic!("no metric {metric}"))
}

/// Two candidates and a lock service, every link exactly 1 ms one way.
fn lease(network: &str, lock_faults: &str, a_host: &str, lease: &str) -> String {
    format!(
        r#"
about = "lease"
platform = "linux"
run_for = "2m"

[model]
kind = "hosts"
network = "{network}"
latency = "1ms"

[[model.host]]
name = "lock"
{lock_faults}

[[model.host]]
name = "node-a"
{a_host}

[[model.host]]
name = "node-b"

[model.lease]
coordinator = "lock"
{lease}
"#
    )
}

#[test]
fn a_forward_step_of_the_coordinators_wall_clock_makes_two_leaders_until_the_holders_own_expiry() {
    // node-a's ask at 0 arrives first and wins; node-b waits. Both ask every 3 s. At 20 s the
    // lock's wall clock jumps 60 s: the lease it renewed at 18.001 (to 28.001 on its clock) has
    // run out, so it goes to node-b at once, who holds it from 20.001. node-a counted its lease
    // from its ask at 18 s: 10 s less 200 ppm, to 27.998.
    let text = lease(
        "events",
        "[[model.host.fault]]\nkind = \"wall-step\"\nat = \"20s\"\nby = \"1m\"",
        "",
        "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"wall\"\ndrift_bound_ppm = 200",
    );
    let summary = run(&text);
    assert_eq!(value(&summary, "takeovers"), 1);
    assert_eq!(value(&summary, "two_leader_stretches"), 1);
    assert_eq!(value(&summary, "first_two_leaders"), 20 * S + MS);
    assert_eq!(
        value(&summary, "longest_two_leaders"),
        27_998 * MS - (20 * S + MS)
    );
    assert_eq!(value(&summary, "invariant_violations"), 1);

    let monotonic = text.replace("clock = \"wall\"", "clock = \"monotonic\"");
    let summary = run(&monotonic);
    assert_eq!(value(&summary, "takeovers"), 0);
    assert_eq!(value(&summary, "two_leader_time"), 0);
}

#[test]
fn a_slow_crystal_beyond_the_drift_bound_overlaps_the_next_leader_by_what_it_lost() {
    // node-a runs 2000 ppm slow and loses the lock at 30 s. Its last ask went out when its
    // clock read 27 s, at physical 27/0.998 s; it keeps the lease 30 s less 200 ppm by that
    // clock, to 56.994 s, physical 56.994/0.998. The lock counts 30 s from the ask's arrival
    // (1 ms later) and hands the lease on at once; node-b holds it 1 ms after that.
    let text = lease(
        "events",
        "",
        "drift_ppm = -2000",
        "length = \"30s\"\nrenew_every = \"3s\"\nclock = \"monotonic\"\ndrift_bound_ppm = 200",
    ) + "\n[[model.partition]]\nbetween = [\"node-a\", \"lock\"]\nat = \"30s\"\n";
    let summary = run(&text);
    let physical = |local_s: f64| local_s / 0.998 * 1e9;
    let handed_on = physical(27.0) + 1e6 + 30e9;
    let expected = physical(56.994) - (handed_on + 1e6);
    let overlap = value(&summary, "longest_two_leaders") as f64;
    assert!(
        (overlap - expected).abs() < 10.0,
        "{overlap} ns, expected {expected}"
    );
    assert_eq!(value(&summary, "two_leader_stretches"), 1);

    let within = text.replace("drift_ppm = -2000", "drift_ppm = -150");
    assert_eq!(value(&run(&within), "two_leader_stretches"), 0);
}

#[test]
fn a_frozen_leader_writes_on_its_stale_lease_when_it_thaws_and_fencing_refuses_it() {
    let text = lease(
        "events",
        "",
        "[[model.host.fault]]\nkind = \"process-suspend\"\nat = \"20.05s\"\nduration = \"20s\"",
        "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"monotonic\"\nwrite_every = \"100ms\"\nwrite_takes = \"100ms\"",
    );
    let summary = run(&text);
    // The write checked at 20.0 s goes out when node-a thaws at 40.05 s: node-b holds the lease.
    assert_eq!(value(&summary, "stale_writes_accepted"), 1);
    assert_eq!(value(&summary, "two_leader_stretches"), 0);
    let fenced = run(&text.replace("write_takes", "fencing = true\nwrite_takes"));
    assert_eq!(value(&fenced, "stale_writes_accepted"), 0);
    assert_eq!(value(&fenced, "stale_writes_rejected"), 1);
}

/// Three hosts sending each other heartbeats every second, one of them with `fault`.
fn heartbeats(fault: &str, clock: &str) -> String {
    format!(
        r#"
about = "heartbeats"
platform = "linux"
run_for = "1m"

[model]
kind = "hosts"
network = "events"
latency = "1ms"

[[model.host]]
name = "a"
{fault}

[[model.host]]
name = "b"

[[model.host]]
name = "c"

[model.heartbeat]
every = "1s"
suspect_after = "3500ms"
clock = "{clock}"
peers = 2
"#
    )
}

#[test]
fn a_sleeping_host_loses_its_messages_and_a_frozen_one_reads_them_when_it_thaws() {
    let asleep = run(&heartbeats(
        "[[model.host.fault]]\nkind = \"system-suspend\"\nat = \"10.5s\"\nduration = \"10s\"",
        "boottime",
    ));
    // b and c each send a beat a second to a: ten seconds of them are lost.
    assert_eq!(value(&asleep, "messages_lost"), 20);
    // On waking, a's boottime detector finds both peers silent for 10 s.
    assert_eq!(value(&asleep, "false_suspicions"), 2);
    assert_eq!(value(&asleep, "failures_detected"), 1);

    let frozen = run(&heartbeats(
        "[[model.host.fault]]\nkind = \"process-suspend\"\nat = \"10.5s\"\nduration = \"10s\"",
        "boottime",
    ));
    assert_eq!(value(&frozen, "messages_lost"), 0);
    // Its kernel kept the beats, which came before its checks were due: on thawing it reads them
    // first, and suspects no one.
    assert_eq!(value(&frozen, "false_suspicions"), 0);
    // b and c suspected a 3.5 s after its last beat at 10 s (arrived 10.001 s): it froze at 10.5.
    assert_eq!(
        value(&frozen, "max_detection_time"),
        13_501 * MS - 10_500 * MS
    );

    let monotonic = run(&heartbeats(
        "[[model.host.fault]]\nkind = \"system-suspend\"\nat = \"10.5s\"\nduration = \"10s\"",
        "monotonic",
    ));
    assert_eq!(value(&monotonic, "false_suspicions"), 0);
}

#[test]
fn a_fast_crystal_sends_its_heartbeats_that_much_more_often() {
    let summary = run(&heartbeats("drift_ppm = 100000", "monotonic"));
    // 60 s: b and c send 60 beats to each of 2 peers; a, 10% fast, sends 66 (its 0 s to 65 s).
    assert_eq!(value(&summary, "heartbeats_sent"), 2 * 60 * 2 + 2 * 66);
}

#[test]
fn a_laptops_deadlines_on_a_stopped_monotonic_clock_resolve_a_whole_sleep_late() {
    let text = r#"
about = "laptop"
platform = "linux"
run_for = "1m"

[model]
kind = "hosts"
network = "events"
latency = "10ms"

[[model.host]]
name = "laptop"

[[model.host.fault]]
kind = "system-suspend"
at = "20.005s"
duration = "30s"

[[model.host]]
name = "server"

[model.rpc]
clients = ["laptop"]
server = "server"
design = "global-heap"
call_every = "100ms"
timeout = "1s"
serve_time = "0ms"
"#;
    let summary = run(text);
    // The call sent at 20 s is answered at 20.02 s, while the laptop sleeps: the only timeout.
    assert_eq!(value(&summary, "timeouts"), 1);
    assert_eq!(value(&summary, "max_timeout_lateness"), 30 * S);
    assert_eq!(value(&summary, "messages_lost"), 1);
    assert_eq!(value(&summary, "calls_lost"), 0);
    let windows = run(&text.replace("platform = \"linux\"", "platform = \"windows\""));
    // Windows' Instant counts the sleep: the deadline at 21 s resolves on waking at 50.005 s.
    assert_eq!(value(&windows, "max_timeout_lateness"), 29_005 * MS);
    // The summary says when: on Linux 30 s after the deadline at 21 s; on Windows, on waking.
    assert_eq!(value(&summary, "worst_timeout_at"), 51 * S);
    assert_eq!(value(&windows, "worst_timeout_at"), 50_005 * MS);
}

#[test]
fn turmoil_and_the_event_network_agree_on_what_a_fault_does() {
    let mut first_two_leaders = Vec::new();
    for network in ["turmoil", "events"] {
        let text = lease(
            network,
            "[[model.host.fault]]\nkind = \"wall-step\"\nat = \"20s\"\nby = \"1m\"",
            "",
            "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"wall\"\ndrift_bound_ppm = 200",
        );
        let summary = run(&text);
        assert_eq!(value(&summary, "two_leader_stretches"), 1, "{network}");
        first_two_leaders.push(value(&summary, "first_two_leaders"));
        assert_eq!(value(&summary, "messages_lost"), 0, "{network}");
    }
    // The lock service grants at the step, and the grant takes its 1 ms on either network.
    assert_eq!(first_two_leaders, [20_001 * MS; 2]);
}

#[test]
fn a_sweep_from_the_clean_lease_finds_two_leaders_and_shrinks_them_to_one_fault_on_one_host() {
    let registry = ticklab::Registry::builtin();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/hosts/lease-sweep-base.toml"
    );
    let base = std::fs::read_to_string(path).unwrap();
    let outcome = ticklab::sweep::sweep(
        &registry,
        path,
        &base,
        200,
        0,
        ticklab::sweep::Shard::WHOLE,
        |_, _, _| {},
    )
    .unwrap();
    let failure = outcome.failure.expect("two leaders found");
    assert!(
        failure.reason.contains("hosts hold the lease at once"),
        "{}",
        failure.reason
    );
    assert_eq!(failure.minimal.faults.len(), 1, "{:?}", failure.minimal);
    let regression = ticklab::loader::parse("regression.toml", &failure.text).unwrap();
    let config = regression
        .model
        .config::<ticklab::hosts::HostsConfig>()
        .unwrap();
    let faulty: Vec<&str> = config
        .hosts
        .iter()
        .filter(|host| !host.faults.is_empty())
        .map(|host| host.name.as_str())
        .collect();
    assert_eq!(faulty.len(), 1, "{faulty:?}");
    // The regression file replays the failure.
    let report = run_scenario(&regression, &RunOptions::default(), &mut NoTrace).unwrap();
    assert!(!report.passed());
    assert!(value(&report.summary, "two_leader_stretches") >= 1);
}

/// A user's own design, registered by name, arms the deadlines as the built-in ones do.
struct UsersHeap;

impl ticklab::models::timer::BuildTimerDesign for UsersHeap {
    const NAME: &'static str = "users-heap";
    const ABOUT: &'static str = "a global heap under a user's name";
    type Design<P2: ticklab::models::sync::Primitives, P: Send + 'static> =
        ticklab::models::timer::GlobalHeap<P2, P>;
    fn build<P2: ticklab::models::sync::Primitives, P: Send + 'static>(
        params: &ticklab::models::timer::TimerParams,
    ) -> Self::Design<P2, P> {
        <ticklab::models::timer::builtin::GlobalHeapDesign as ticklab::models::timer::BuildTimerDesign>::build(params)
    }
}

#[test]
fn a_users_registered_timer_design_arms_the_rpc_deadlines() {
    let registry = ticklab::Registry::builtin().with_timer_design::<UsersHeap>();
    let text = r#"
about = "a user's design across hosts"
platform = "linux"
run_for = "10s"

[model]
kind = "hosts"
network = "events"
latency = "10ms"

[[model.partition]]
between = ["client", "server"]
at = "5s"
duration = "1s"

[[model.host]]
name = "client"

[[model.host]]
name = "server"

[model.rpc]
clients = ["client"]
server = "server"
design = "users-heap"
call_every = "100ms"
timeout = "50ms"
serve_time = "0ms"
"#;
    let scenario = registry
        .parse("users.toml", text)
        .unwrap_or_else(|error| panic!("{error}"));
    let summary = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary;
    // Calls sent from 5 s to 5.9 s, inside the partition, time out: ten of them.
    assert_eq!(value(&summary, "timeouts"), 10);
    assert_eq!(value(&summary, "calls_resolved_twice"), 0);
    assert_eq!(value(&summary, "calls"), 100);
    let unknown = ticklab::loader::parse("users.toml", text).unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("unknown timer design `users-heap`")
    );
}

/// Two hosts whose faults overlap, each the first of its own host, and a partition.
const OVERLAPPING_FAULTS: &str = r#"
about = "overlapping faults on two hosts"
platform = "linux"
run_for = "40s"

[model]
kind = "hosts"
network = "events"
latency = "1ms"

[[model.partition]]
between = ["a", "c"]
at = "5s"
duration = "2s"

[[model.host]]
name = "a"

[[model.host.fault]]
kind = "system-suspend"
at = "10s"
duration = "10s"

[[model.host]]
name = "b"

[[model.host.fault]]
kind = "process-suspend"
at = "15s"
duration = "15s"

[[model.host]]
name = "c"

[model.heartbeat]
every = "1s"
suspect_after = "3s"
peers = 2
"#;

#[test]
fn every_fault_of_a_hosts_run_has_a_number_of_its_own_and_names_its_host() {
    let (_, events) = run_json(OVERLAPPING_FAULTS);
    let of = |kind: &str| -> Vec<&serde_json::Value> {
        events.iter().filter(|e| e["event"] == kind).collect()
    };
    let begins: Vec<(u64, Option<&str>)> = of("fault-begin")
        .iter()
        .map(|e| (e["fault"].as_u64().unwrap(), e["host"].as_str()))
        .collect();
    // Host faults in host order, then the partition.
    assert_eq!(begins, [(2, None), (0, Some("a")), (1, Some("b"))]);
    let resumed: Vec<&str> = of("resume")
        .iter()
        .map(|e| e["host"].as_str().unwrap())
        .collect();
    assert_eq!(resumed, ["a", "b"]);
    // Each host is declared as the run starts, in the scenario's order.
    let declared: Vec<&str> = of("host")
        .iter()
        .map(|e| e["host"].as_str().unwrap())
        .collect();
    assert_eq!(declared, ["a", "b", "c"]);
}

#[test]
fn a_plot_draws_each_hosts_faults_on_its_own_row_whatever_their_numbers() {
    let scenario = ticklab::loader::parse("faults.toml", OVERLAPPING_FAULTS).unwrap();
    let svg = ticklab::plot::plot(&[scenario], &RunOptions::default())
        .unwrap()
        .svg;
    let label = |text: &str| svg.contains(&format!("\n{text}\n"));
    assert!(label("system-suspend (1)"), "{svg}");
    assert!(label("process-suspend (1)"));
    assert!(label("a") && label("b") && label("c"));
    // The partition shades the panel and is named, with its count, in the legend.
    assert!(label("partition (1)"));
}

/// A client and a server, 1 ms apart; `network` carries, `extra` adds tables, `rpc` ends the
/// [model.rpc] table.
fn rpc_pair(network: &str, extra: &str, rpc: &str) -> String {
    format!(
        r#"
about = "rpc"
platform = "linux"
run_for = "3s"

[model]
kind = "hosts"
network = "{network}"
latency = "1ms"

[[model.host]]
name = "client"
{extra}

[[model.host]]
name = "server"

[model.rpc]
clients = ["client"]
server = "server"
serve_time = "0ms"
{rpc}
"#
    )
}

#[test]
fn every_built_in_design_fires_the_deadlines_a_partition_leaves_unanswered() {
    let partition =
        "[[model.partition]]\nbetween = [\"client\", \"server\"]\nat = \"1s\"\nduration = \"1s\"";
    let registry = ticklab::Registry::builtin();
    let designs: Vec<&str> = registry.timer_designs().map(|entry| entry.name).collect();
    assert!(designs.contains(&"go-timers"), "{designs:?}");
    for design in designs {
        let rpc = format!("design = \"{design}\"\ncall_every = \"100ms\"\ntimeout = \"500ms\"");
        let summary = run(&rpc_pair("events", partition, &rpc));
        // Calls sent from 1 s to 1.9 s are dropped on the way; each times out.
        assert_eq!(value(&summary, "timeouts"), 10, "{design}");
        assert_eq!(value(&summary, "calls_lost"), 0, "{design}");
        // On the wall clock too, though it steps back an hour the moment the threads start.
        let stepped = format!(
            "[[model.host.fault]]\nkind = \"wall-step\"\nat = \"0s\"\nby = \"-1h\"\n\n{partition}"
        );
        let summary = run(&rpc_pair(
            "events",
            &stepped,
            &format!("{rpc}\nclock = \"wall\""),
        ));
        assert_eq!(
            value(&summary, "timeouts"),
            10,
            "{design} on the wall clock"
        );
        assert_eq!(
            value(&summary, "early_timeouts"),
            0,
            "{design} on the wall clock"
        );
    }
}

#[test]
fn a_wall_step_fires_wall_clock_deadlines_at_the_timer_threads_next_wake_and_counts_them_early() {
    let extra = "[[model.host.fault]]\nkind = \"wall-step\"\nat = \"1s\"\nby = \"1m\"\n\n\
                 [[model.partition]]\nbetween = [\"client\", \"server\"]\nat = \"500ms\"\nduration = \"1s\"";
    let rpc =
        "design = \"bucketed\"\nclock = \"wall\"\ncall_every = \"100ms\"\ntimeout = \"800ms\"";
    let (summary, events) = run_json(&rpc_pair("events", extra, rpc));
    let fired: Vec<u64> = events
        .iter()
        .filter(|e| e["event"] == "timeout" || e["event"] == "early-timeout")
        .map(|e| e["t_ns"].as_u64().unwrap())
        .collect();
    // The thread slept, on CLOCK_MONOTONIC, until call 5's deadline at 1.3 s; the step made
    // calls 6 to 9 due as well, 100 to 400 ms before their time.
    assert_eq!(fired[..5], [1_300 * MS; 5]);
    assert_eq!(value(&summary, "early_timeouts"), 4);
}

#[test]
fn turmoil_and_the_event_network_agree_on_latency_after_spikes_end() {
    let back_to_back = "[[model.spike]]\nbetween = [\"client\", \"server\"]\nat = \"1s\"\nduration = \"1s\"\nlatency = \"100ms\"\n\n\
                        [[model.spike]]\nbetween = [\"client\", \"server\"]\nat = \"2s\"\nduration = \"1s\"\nlatency = \"100ms\"";
    let reversed_link = "[[model.link]]\nbetween = [\"server\", \"client\"]\nlatency = \"60ms\"\n\n\
                         [[model.spike]]\nbetween = [\"client\", \"server\"]\nat = \"1s\"\nduration = \"500ms\"\nlatency = \"10ms\"";
    // A 150 ms timeout: every call during the spikes, 2 s of them back to back, times out. A
    // 100 ms one: the 60 ms link's 120 ms round trips time out, except during the 10 ms spike.
    for (what, extra, timeout, timeouts) in [
        ("back to back", back_to_back, "150ms", 19),
        ("reversed link", reversed_link, "100ms", 24),
    ] {
        let rpc =
            format!("design = \"tokio-wheel\"\ncall_every = \"100ms\"\ntimeout = \"{timeout}\"");
        let events = run(&rpc_pair("events", extra, &rpc));
        let turmoil = run(&rpc_pair("turmoil", extra, &rpc));
        assert_eq!(value(&events, "timeouts"), timeouts, "{what}");
        assert_eq!(value(&turmoil, "timeouts"), timeouts, "{what}: turmoil");
    }
}

#[test]
fn a_host_outside_the_detector_is_never_a_missed_failure() {
    let text = r#"
about = "subset"
platform = "linux"
run_for = "1m"

[model]
kind = "hosts"
network = "events"

[[model.host]]
name = "a"
[[model.host]]
name = "b"
[[model.host]]
name = "c"
[[model.host.fault]]
kind = "system-suspend"
at = "10s"
duration = "30s"

[model.heartbeat]
every = "1s"
suspect_after = "3s"
hosts = ["a", "b"]
"#;
    let summary = run(text);
    assert_eq!(value(&summary, "failures_missed"), 0);
    assert_eq!(value(&summary, "suspicions"), 0);
}

#[test]
fn a_lapsed_lease_goes_to_the_candidate_that_waited_longest() {
    // The lock's wall clock jumps twice: each jump hands the lease on. a holds it first; b and
    // c queue in that order; at 10 s it goes to b, at 11 s to c, not back to a.
    let faults = "[[model.host.fault]]\nkind = \"wall-step\"\nat = \"10s\"\nby = \"1m\"\n\n\
                  [[model.host.fault]]\nkind = \"wall-step\"\nat = \"11s\"\nby = \"1m\"";
    let text = lease(
        "events",
        faults,
        "",
        "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"wall\"",
    )
    .replace(
        "[[model.host]]\nname = \"node-b\"",
        "[[model.host]]\nname = \"node-b\"\n\n[[model.host]]\nname = \"node-c\"",
    );
    let (_, events) = run_json(&text);
    let granted: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "lease-granted")
        .map(|e| e["detail"].as_str().unwrap())
        .collect();
    assert!(granted[0].contains("node-a with token 1"), "{granted:?}");
    assert!(granted[1].contains("node-b with token 2"), "{granted:?}");
    assert!(granted[2].contains("node-c with token 3"), "{granted:?}");
}

#[test]
fn a_drifting_host_reports_its_stop_in_physical_time() {
    let text = heartbeats(
        "drift_ppm = 100000\n[[model.host.fault]]\nkind = \"system-suspend\"\nat = \"10s\"\nduration = \"30s\"",
        "monotonic",
    );
    let (_, events) = run_json(&text);
    let stopped: Vec<u64> = events
        .iter()
        .filter(|e| e["event"] == "resume")
        .map(|e| e["stopped_ns"].as_u64().unwrap())
        .collect();
    assert_eq!(stopped, [30 * S]);
}

#[test]
fn a_cluster_too_big_for_turmoil_is_refused_before_it_is_built() {
    let cluster = |hosts: u32, run_for: &str| {
        format!(
            r#"
about = "big"
platform = "linux"
run_for = "{run_for}"

[model]
kind = "hosts"

[[model.host]]
name = "node"
count = {hosts}

[model.heartbeat]
every = "1s"
suspect_after = "5s"
"#
        )
    };
    // One step is too much; an hour of steps, one a second at the least, is too much.
    for (hosts, run_for) in [(4000, "1s"), (500, "1h")] {
        let scenario = ticklab::loader::parse("big.toml", &cluster(hosts, run_for)).unwrap();
        let error = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&format!("{hosts} hosts on turmoil")),
            "{message}"
        );
        assert!(message.contains("network = \"events\""), "{message}");
    }
}
