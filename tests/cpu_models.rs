//! The lock and idle models against figures worked out by hand: with a profile whose every cost
//! is fixed (p50 = p99), each spawn, wait and idle call has an exact cost.

use ticklab::loader;
use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::{NoTrace, Summary};
use ticklab_sim::{NS_PER_MS, NS_PER_US};

/// The reference profile with every figure's p99 equal to its p50.
fn fixed_profile() -> (tempfile::TempDir, String) {
    let folder = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for line in ticklab::profile::REFERENCE.lines() {
        match line.split_once("{ p50 = \"") {
            Some((key, rest)) => {
                let p50 = rest.split('"').next().unwrap();
                text.push_str(&format!("{key}{{ p50 = \"{p50}\", p99 = \"{p50}\" }}\n"));
            }
            None => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    let path = folder.path().join("fixed.toml");
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_string();
    (folder, path)
}

fn run(model: &str, profile: &str, run_for: &str) -> Summary {
    let text = format!(
        "about = \"a test\"\nplatform = \"linux\"\nrun_for = \"{run_for}\"\n[model]\nprofile = \"{profile}\"\n{model}"
    );
    let scenario = loader::parse("test.toml", &text).unwrap_or_else(|error| panic!("{error}"));
    run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary
}

#[test]
fn a_lone_fork_costs_its_base_plus_its_cost_per_gib_mapped() {
    let (_folder, profile) = fixed_profile();
    let summary = run(
        r#"kind = "lock"
cores = 2
lock = "mutex"
spawn = "fork"
spawners = 1
spawn_every = "1s"
memory = "2GiB""#,
        &profile,
        "10s",
    );
    // 56 us + 19 ms/GiB x 2 GiB, never contended.
    assert_eq!(summary.get("p50_spawn_cost"), Some(38_056 * NS_PER_US));
    assert_eq!(summary.get("max_spawn_cost"), Some(38_056 * NS_PER_US));
    assert_eq!(summary.get("max_wait"), Some(0));
}

#[test]
fn readers_share_a_rw_lock_and_queue_on_a_mutex() {
    let (_folder, profile) = fixed_profile();
    let model = |lock: &str| {
        format!(
            r#"kind = "lock"
cores = 8
lock = "{lock}"
spawn = "vfork"
spawners = 0
spawn_every = "1s"
readers = 8
read_every = "1ms"
read_hold = "500us"
memory = "0B""#
        )
    };
    let shared = run(&model("rw"), &profile, "5s");
    let exclusive = run(&model("mutex"), &profile, "5s");
    assert_eq!(
        shared.get("max_wait"),
        Some(0),
        "readers never wait for readers"
    );
    assert!(
        exclusive.get("p99_wait").unwrap() >= 500 * NS_PER_US,
        "{:?}",
        exclusive.get("p99_wait")
    );
}

#[test]
fn a_lock_holder_without_a_core_makes_everyone_wait_longer() {
    let (_folder, profile) = fixed_profile();
    let model = |busy: u32| {
        format!(
            r#"kind = "lock"
cores = 1
lock = "mutex"
spawn = "fork"
spawners = 4
spawn_every = "200ms"
busy_threads = {busy}
memory = "1GiB""#
        )
    };
    let alone = run(&model(0), &profile, "60s");
    let crowded = run(&model(1), &profile, "60s");
    // A busy thread shares the only core, so each 19 ms fork takes about twice as long to run,
    // and the lock is held that much longer.
    assert!(
        crowded.get("p99_wait").unwrap() > 2 * alone.get("p99_wait").unwrap(),
        "alone {:?}, crowded {:?}",
        alone.get("p99_wait"),
        crowded.get("p99_wait")
    );
    let spawner = crowded
        .parts
        .iter()
        .find(|part| part.name == "spawner-0")
        .unwrap();
    assert!(spawner.get("waiting_for_core").unwrap() > 0);
}

#[test]
fn idle_calls_cost_exactly_their_fixed_profile_figures() {
    let (_folder, profile) = fixed_profile();
    let summary = run(
        r#"kind = "idle"
strategies = ["sleep0", "yield", "condvar"]
calls = 1000
timeout = "1ms""#,
        &profile,
        "10s",
    );
    let metric = |strategy: &str, name: &str| summary.lookup(Some(strategy), name).unwrap();
    assert_eq!(metric("sleep0", "total_time"), 1000 * 67 * NS_PER_US);
    // 25.8 us of CPU in each 67 us call.
    assert_eq!(metric("sleep0", "cpu_percent"), 39);
    assert_eq!(metric("yield", "total_time"), 1000 * 500);
    assert_eq!(metric("yield", "cpu_percent"), 100);
    // Each timed wait overshoots its 1 ms by 72 us.
    assert_eq!(
        metric("condvar", "total_time"),
        1000 * (NS_PER_MS + 72 * NS_PER_US)
    );
}

#[test]
fn a_condvar_wakes_for_an_event_and_a_fixed_sleep_does_not() {
    let (_folder, profile) = fixed_profile();
    let summary = run(
        r#"kind = "idle"
strategies = ["condvar", "sleep"]
timeout = "10ms"
arrival = "periodic"
every = "25ms""#,
        &profile,
        "1s",
    );
    let metric = |strategy: &str, name: &str| summary.lookup(Some(strategy), name).unwrap();
    // Signalled: 9.4 us after each event.
    assert_eq!(metric("condvar", "max_wake_latency"), 9_400);
    // A 10 ms sleep (plus 67 us) notices an event up to a whole sleep late.
    assert!(metric("sleep", "max_wake_latency") > 5 * NS_PER_MS);
    assert_eq!(metric("condvar", "events"), 39);
}

#[test]
fn periodic_spawns_come_exactly_once_a_period() {
    let (_folder, profile) = fixed_profile();
    let summary = run(
        r#"kind = "lock"
cores = 2
lock = "mutex"
spawn = "vfork"
spawners = 3
spawn_every = "1s"
arrival = "periodic"
memory = "0B""#,
        &profile,
        "10s",
    );
    // Each spawner starts within the first second, at its own phase, then once a second.
    assert_eq!(summary.get("spawns"), Some(30));
}

#[test]
fn a_suspended_idle_loop_uses_no_cpu_until_the_resume() {
    let (_folder, profile) = fixed_profile();
    let text = format!(
        r#"about = "a test"
platform = "linux"
run_for = "20s"
[model]
kind = "idle"
profile = "{profile}"
strategies = ["spin", "sleep0"]
arrival = "periodic"
every = "7s"
handle = "1ms"
[[fault]]
kind = "process-suspend"
at = "1s"
duration = "15s""#
    );
    let scenario = loader::parse("test.toml", &text).unwrap_or_else(|error| panic!("{error}"));
    let summary = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary;
    let metric = |strategy: &str, name: &str| summary.lookup(Some(strategy), name).unwrap();
    // Running for 5 of the 20 s: the spin loop burns a core for exactly those.
    assert_eq!(metric("spin", "cpu_percent"), 25);
    assert_eq!(metric("spin", "time_per_call"), 60);
    // The events at 7 s and 14 s came during the suspend and were noticed at the resume.
    assert_eq!(metric("spin", "events"), 2);
    assert_eq!(metric("spin", "max_wake_latency"), 9_000 * NS_PER_MS);
}

#[test]
fn handling_past_the_end_of_the_run_is_not_charged() {
    let (_folder, profile) = fixed_profile();
    let summary = run(
        r#"kind = "idle"
strategies = ["epoll"]
arrival = "periodic"
every = "1s"
handle = "10s""#,
        &profile,
        "5s",
    );
    // Idle for the first second, then handling from 1 s to the end: 4 of 5 s, not 10.
    assert_eq!(summary.lookup(Some("epoll"), "cpu_percent"), Some(80));
}

#[test]
fn a_smaller_timer_slack_shortens_sleep_zero_by_the_difference() {
    let (_folder, profile) = fixed_profile();
    let summary = run(
        r#"kind = "idle"
strategies = ["sleep0", "condvar"]
calls = 1000
timer_slack = "1ns""#,
        &profile,
        "10s",
    );
    // 67 us with the default 50 us of slack; 17 us with 1 ns (semantics.md measured 17 us).
    assert_eq!(
        summary.lookup(Some("sleep0"), "time_per_call"),
        Some(17_001)
    );
    // The condvar's 72 us overshoot drops to 22 us (measured: 19 us).
    assert_eq!(
        summary.lookup(Some("condvar"), "time_per_call"),
        Some(NS_PER_MS + 22_001)
    );
}
