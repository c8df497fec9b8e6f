//! Hosts as machines: a host's cores, the load on them and its timer resolution decide when its
//! workloads' threads act, and a host without a `[machine]` costs no time.

use super::{run, run_json, value};

/// Three plain hosts and one whose `[model.host.machine]` is `machine`, heartbeating `every`
/// to 3 peers each, suspecting after `suspect_after`, each heartbeat costing `cpu`.
fn cluster(machine: &str, heartbeat: &str) -> String {
    format!(
        r#"
about = "machines"
platform = "linux"
run_for = "1m"

[model]
kind = "hosts"
network = "events"
latency = ["1ms", "2ms"]

[[model.host]]
name = "node"
count = 3

[[model.host]]
name = "busy"
{machine}

[model.heartbeat]
peers = 3
{heartbeat}
"#
    )
}

const BUSY_PEER: &str = "every = \"100ms\"\nsuspect_after = \"1s\"\ncpu = \"5ms\"";

fn busy_machine(cores: u32) -> String {
    format!("[model.host.machine]\ncores = {cores}\nbusy_threads = 6")
}

#[test]
fn a_busy_peer_on_one_core_is_suspected_and_with_a_second_core_is_not() {
    let (one_core, events) = run_json(&cluster(&busy_machine(1), BUSY_PEER));
    let suspected: Vec<&serde_json::Value> = events
        .iter()
        .filter(|event| event["what"] == "false-suspect")
        .collect();
    assert!(value(&one_core, "false_suspicions") >= 30, "{one_core:?}");
    // Every watcher suspects the busy peer, which also falls behind on hearing its own peers.
    assert!(suspected.iter().any(|event| {
        event["host"] == "node-1"
            && event["detail"].as_str().unwrap().contains("suspects busy")
            && event["detail"]
                .as_str()
                .unwrap()
                .contains("pieces of heartbeat work waiting for its thread")
    }));
    let two_cores = run(&cluster(&busy_machine(2), BUSY_PEER));
    assert_eq!(value(&two_cores, "false_suspicions"), 0);
    assert!(value(&two_cores, "heartbeats_sent") > value(&one_core, "heartbeats_sent"));
}

#[test]
fn the_busy_peers_thread_is_named_in_its_events_and_its_cpu_in_the_summary() {
    let (summary, events) = run_json(&cluster(&busy_machine(1), BUSY_PEER));
    let busy_events: Vec<&serde_json::Value> = events
        .iter()
        .filter(|event| event["host"] == "busy" && event["what"] == "false-suspect")
        .collect();
    assert!(!busy_events.is_empty());
    assert!(
        busy_events
            .iter()
            .all(|event| event["thread"] == "heartbeat")
    );
    // The busy peer suspects its peers because it is behind itself, and says so.
    assert!(busy_events.iter().all(|event| {
        event["detail"]
            .as_str()
            .unwrap()
            .contains("this host is behind itself, with")
    }));
    // Hosts without a machine have no threads: their events name none.
    assert!(
        events
            .iter()
            .filter(|event| event["host"] == "node-1")
            .all(|event| event.get("thread").is_none())
    );
    let names: Vec<&str> = summary
        .threads
        .iter()
        .map(|thread| thread.name.as_str())
        .collect();
    assert_eq!(names, ["busy/heartbeat"]);
    // A seventh of one core, give or take: the six compaction threads have the rest.
    let busy_ns = summary.threads[0].busy_ns;
    let share = busy_ns as f64 / 60e9;
    assert!((0.12..0.16).contains(&share), "busy {busy_ns} ns");
}

/// Every 10 ms, suspected after 15 ms: a timer tick of 15.625 ms stretches every wait to it.
const TIGHT: &str = "every = \"10ms\"\nsuspect_after = \"15ms\"";

#[test]
fn a_windows_hosts_timer_tick_stretches_its_heartbeats_past_a_tight_timeout() {
    let windows = "platform = \"windows\"\n[model.host.machine]";
    let ticked = run(&cluster(windows, TIGHT));
    assert!(value(&ticked, "false_suspicions") > 0, "{ticked:?}");
    // About 64 heartbeats a second to each of 3 peers, not 100.
    let sent = value(&ticked, "heartbeats_sent");
    let plain = run(&cluster("", TIGHT));
    assert_eq!(value(&plain, "false_suspicions"), 0);
    let others = value(&plain, "heartbeats_sent") * 3 / 4;
    let busy_sent = sent - others;
    assert!((11_000..12_000).contains(&busy_sent), "{busy_sent}");
    // timeBeginPeriod(1): a 1 ms tick keeps it within the timeout.
    let fine = run(&cluster(
        "platform = \"windows\"\n[model.host.machine]\ntimer_resolution = \"1ms\"",
        TIGHT,
    ));
    assert_eq!(value(&fine, "false_suspicions"), 0);
}

#[test]
fn a_machine_that_costs_nothing_changes_no_figure() {
    let text = cluster("", BUSY_PEER.replace("cpu = \"5ms\"", "").as_str());
    let without = run(&text);
    let free = "[model.host.machine]\ntimer_slack = \"0s\"";
    let with = run(&cluster(free, &BUSY_PEER.replace("cpu = \"5ms\"", "")));
    assert_eq!(
        format!("{:?}", without.values),
        format!("{:?}", with.values)
    );
    // The free machine still has its thread, idle but for the moments it acts.
    assert_eq!(with.threads.len(), 1);
    assert!(without.threads.is_empty());
}

#[test]
fn cpu_without_any_machine_is_refused_at_the_key() {
    let text = cluster("", BUSY_PEER);
    let error = ticklab::loader::parse("test.toml", &text).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`cpu` in [model.heartbeat] needs a host with a machine"),
        "{message}"
    );
    let line = text
        .lines()
        .position(|line| line.starts_with("cpu"))
        .unwrap()
        + 1;
    assert!(message.contains(&format!("test.toml:{line}:")), "{message}");
}

#[test]
fn a_thawed_server_with_a_cpu_still_expires_sessions_only_when_its_timers_run_first() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/hosts/zookeeper-server-gc-io-first.toml"
    ))
    .unwrap();
    let text = text.split("\n[expect]").next().unwrap().to_string();
    // The server gets two cores; its timers and its pings go through one heartbeat thread.
    let with_cpu = |order: &str| {
        text.replace(
            "name = \"zk\"\n",
            "name = \"zk\"\n[model.host.machine]\ncores = 2\n",
        )
        .replace(
            "thaw_order = \"io-first\"",
            &format!("thaw_order = \"{order}\""),
        )
    };
    let expiries = |order: &str| value(&run(&with_cpu(order)), "false_suspicions");
    assert_eq!(expiries("io-first"), 0);
    assert_eq!(expiries("timers-first"), 3);
}

/// The names of the threads a run of `text` made, as `host/thread`.
fn thread_names(text: &str) -> Vec<String> {
    let (summary, _) = run_json(text);
    summary
        .threads
        .iter()
        .map(|thread| thread.name.clone())
        .collect()
}

#[test]
fn a_lease_runs_on_named_threads_of_the_hosts_that_do_its_work() {
    let lease = r#"
about = "lease"
platform = "linux"
run_for = "10s"

[machine]
cores = 2

[model]
kind = "hosts"
network = "events"
latency = "1ms"

[[model.host]]
name = "lock"

[[model.host]]
name = "a"

[model.lease]
coordinator = "lock"
length = "3s"
renew_every = "1s"
write_every = "500ms"
cpu = "1ms"
"#;
    assert_eq!(
        thread_names(lease),
        ["lock/lock-service", "lock/storage", "a/lease-holder"]
    );
}

#[test]
fn an_rpc_runs_on_named_threads_of_the_hosts_that_do_its_work() {
    let rpc = r#"
about = "rpc"
platform = "linux"
run_for = "2s"

[machine]
cores = 1

[model]
kind = "hosts"
network = "events"
latency = "1ms"

[[model.host]]
name = "client"

[[model.host]]
name = "server"

[model.rpc]
clients = ["client"]
server = "server"
design = "bucketed"
call_every = "100ms"
timeout = "500ms"
serve_time = "0ms"
cpu = "1ms"
"#;
    let threads = thread_names(rpc);
    assert!(
        threads.contains(&"client/rpc-client".to_string()),
        "{threads:?}"
    );
    assert!(
        threads.contains(&"client/timer-0".to_string()),
        "{threads:?}"
    );
    assert!(
        threads.contains(&"server/rpc-server".to_string()),
        "{threads:?}"
    );
}

#[test]
fn a_hosts_bursty_load_draws_its_bursts_from_the_seed_and_takes_cpu_from_its_threads() {
    let loaded = "[model.host.machine]\ncores = 1\nload = 0.9\nload_burst = \"50ms\"";
    let idle = "[model.host.machine]\ncores = 1";
    let heartbeat = "every = \"100ms\"\nsuspect_after = \"1s\"\ncpu = \"2ms\"";
    // Fixed latencies, so that the load is all the seed draws.
    let text = |machine: &str, seed: u32| {
        cluster(machine, heartbeat)
            .replace("latency = [\"1ms\", \"2ms\"]", "latency = \"1ms\"")
            .replace(
                "run_for = \"1m\"",
                &format!("seed = {seed}\nrun_for = \"1m\""),
            )
    };
    let (first, first_events) = run_json(&text(loaded, 0));
    let (again, again_events) = run_json(&text(loaded, 0));
    assert_eq!(first_events, again_events);
    assert_eq!(first.threads[0].busy_ns, again.threads[0].busy_ns);
    let (_, reseeded) = run_json(&text(loaded, 1));
    // The first event is the run's start, which names its seed.
    assert_ne!(
        first_events[1..],
        reseeded[1..],
        "another seed draws other bursts"
    );
    let (unloaded, idle_events) = run_json(&text(idle, 0));
    let (_, idle_reseeded) = run_json(&text(idle, 1));
    assert_eq!(
        idle_events[1..],
        idle_reseeded[1..],
        "without load the seed draws nothing here"
    );
    // The thread gets the work it needs either way, but waits for the core under load: its
    // heartbeats go out less often.
    assert!(
        value(&first, "heartbeats_sent") < value(&unloaded, "heartbeats_sent"),
        "{} vs {}",
        value(&first, "heartbeats_sent"),
        value(&unloaded, "heartbeats_sent")
    );
}

#[test]
fn a_timer_round_cancelled_while_it_waits_for_its_busy_thread_does_not_run() {
    // A client on one core shared with 3 busy threads: a timer round that came due waits for
    // the timer thread while the client's thread schedules a sooner timer, which cancels that
    // round and files another. Run anyway, the cancelled round would start a second chain of
    // rounds: 3.67 s of the timer thread's CPU in this minute, at 1 ms a round, against 2.61 s.
    let text = client_server(
        "[model.host.machine]\ncores = 1\nbusy_threads = 3",
        "",
        "call_every = \"10ms\"\ntimeout = \"50ms\"\nserve_time = [\"1ms\", \"80ms\"]\ncpu = \"1ms\"",
    );
    let summary = run(&text);
    assert_eq!(value(&summary, "calls_resolved_twice"), 0);
    assert_eq!(value(&summary, "calls_lost"), 0);
    let timer = summary
        .threads
        .iter()
        .find(|thread| thread.name == "client/timer-0")
        .unwrap();
    assert!(timer.busy_ns < 3_000_000_000, "{} ns", timer.busy_ns);
}

/// A client calling a server on `global-heap`, with `client` and `server` added to their hosts
/// and `rpc` to its table.
fn client_server(client: &str, server: &str, rpc: &str) -> String {
    format!(
        r#"
about = "rpc"
platform = "linux"
run_for = "60s"

[model]
kind = "hosts"
network = "events"
latency = "1ms"

[[model.host]]
name = "client"
{client}

[[model.host]]
name = "server"
{server}

[model.rpc]
clients = ["client"]
server = "server"
design = "global-heap"
{rpc}
"#
    )
}

#[test]
fn a_timer_thread_runs_one_round_per_deadline_on_a_host_with_a_machine() {
    // Every call times out: its deadline is the timer thread's only reason to run a round. A
    // round that came due as the first call scheduled its timer must not run twice over.
    let text = client_server(
        "[model.host.machine]\ntimer_slack = \"0s\"",
        "",
        "call_every = \"100ms\"\ntimeout = \"1s\"\nserve_time = \"10m\"\ncpu = \"1ms\"",
    );
    let summary = run(&text);
    let timeouts = value(&summary, "timeouts");
    assert_eq!(timeouts, 585);
    let timer = summary
        .threads
        .iter()
        .find(|thread| thread.name == "client/timer-0")
        .unwrap();
    // A round per deadline at 1 ms each, and the first round at the start.
    assert!(
        timer.busy_ns <= (timeouts + 2) * 1_000_000,
        "{} ns",
        timer.busy_ns
    );
}

#[test]
fn a_servers_answer_ends_when_its_work_does_not_on_its_timer_tick() {
    // A Windows server with a machine: its 1 ms of serving is work, not a timed wait, so the
    // 15.625 ms tick does not hold its answers past the client's 10 ms deadline.
    let rpc = "call_every = \"100ms\"\ntimeout = \"10ms\"\nserve_time = \"1ms\"";
    let windows = client_server("", "platform = \"windows\"\n[model.host.machine]", rpc);
    let summary = run(&windows);
    assert_eq!(value(&summary, "timeouts"), 0);
    assert_eq!(value(&summary, "replies"), value(&summary, "calls"));
}

/// A compaction that starts 20 s in and lasts 20 s on the busy peer's one core: six threads
/// beside its gossip thread, which needs 5 ms for each of the 3 heartbeats it sends and the 3
/// it hears every 100 ms, 30% of a core. With a seventh of the core it falls behind, so its
/// peers suspect it, but only while the compaction runs: nothing before 20 s, and with the core
/// its own again from 40 s, it catches up within the second its peers allow.
#[test]
fn load_that_starts_mid_run_makes_a_peer_suspected_only_while_it_lasts() {
    let compaction = "[model.host.machine]\ncores = 1\n[[model.host.fault]]\nkind = \
                      \"cpu-load\"\nat = \"20s\"\nduration = \"20s\"\nthreads = 6";
    let (summary, events) = run_json(&cluster(compaction, BUSY_PEER));
    let suspected_at_s: Vec<f64> = events
        .iter()
        .filter(|event| event["what"] == "false-suspect")
        .map(|event| event["t_ns"].as_u64().unwrap() as f64 / 1e9)
        .collect();
    assert!(suspected_at_s.len() >= 3, "{summary:?}");
    let (first, last) = (suspected_at_s[0], suspected_at_s[suspected_at_s.len() - 1]);
    assert!(
        first > 20.0 && last < 41.0,
        "suspected from {first} s to {last} s"
    );
    // The same peer idle all run is never suspected.
    let idle = run(&cluster("[model.host.machine]\ncores = 1", BUSY_PEER));
    assert_eq!(value(&idle, "false_suspicions"), 0);
}

#[test]
fn a_cpu_load_fault_is_refused_on_a_host_without_cores() {
    let text = cluster(
        "[model.host.machine]\ntimer_resolution = \"1ms\"\n[[model.host.fault]]\nkind = \
         \"cpu-load\"\nat = \"20s\"\nduration = \"20s\"\nthreads = 6",
        BUSY_PEER,
    );
    let error = ticklab::loader::parse("a.toml", &text)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("a cpu-load fault needs a machine with `cores`"),
        "{error}"
    );
}
