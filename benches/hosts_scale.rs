//! How hosts scenarios scale: N hosts, each sending a heartbeat every second to the next 3 and
//! watching the 3 before it, for one virtual hour, on each of ticklab's networks; and the same
//! heartbeats written directly on turmoil (`hosts_rivals/bare_turmoil.rs`), the rival, in the
//! same run. Prints the wall time of one run of each, the virtual seconds it simulates per wall
//! second, and ticklab's speed as a multiple of bare turmoil's; BENCHMARKS.md quotes them.
//!
//! Run with `cargo bench --bench hosts_scale`. `HOSTS_SCALE_TURMOIL_MAX=500` also runs ticklab
//! on turmoil at 500 hosts (left out by default: it takes far longer than the rest together), and
//! `HOSTS_SCALE_BARE_MAX=500` bare turmoil (by default up to `HOSTS_SCALE_TURMOIL_MAX`). Bare
//! turmoil steps every 1 ms tick whatever is in flight, so it runs `HOSTS_SCALE_BARE_S` virtual
//! seconds (default 20) and its hour is that scaled up: each of its steps costs the same all hour.

#[path = "hosts_rivals/bare_turmoil.rs"]
mod bare_turmoil;

use std::time::Instant;

use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::NoTrace;

const VIRTUAL_S: u64 = 3_600;

fn scenario(hosts: usize, network: &str) -> String {
    format!(
        r#"
about = "{hosts} hosts, heartbeats every second to 3 peers, for an hour"
platform = "linux"
run_for = "{VIRTUAL_S}s"

[model]
kind = "hosts"
network = "{network}"
latency = ["1ms", "5ms"]

[[model.host]]
name = "node"
count = {hosts}

[model.heartbeat]
every = "1s"
suspect_after = "5s"
peers = 3
"#
    )
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// One ticklab run of the hour: (heartbeats sent, wall seconds).
fn ticklab_hour(hosts: usize, network: &str) -> (u64, f64) {
    let text = scenario(hosts, network);
    let parsed = ticklab::scenario::parse("hosts_scale.toml", &text).expect("a valid scenario");
    // The bench times whole hours, however long: `--max-events` would stop turmoil at 500 hosts.
    let options = RunOptions {
        max_events: u64::MAX,
        ..RunOptions::default()
    };
    let started = Instant::now();
    let report = run_scenario(&parsed, &options, &mut NoTrace).expect("the run ends");
    let wall_s = started.elapsed().as_secs_f64();
    let beats = report.summary.get("heartbeats_sent").unwrap_or(0);
    assert_eq!(
        report.summary.get("false_suspicions"),
        Some(0),
        "{network}: a fault-free run suspects nobody"
    );
    (beats, wall_s)
}

/// A rate for people to read: three significant digits below 100, whole numbers above.
fn rate_text(rate: f64) -> String {
    match rate {
        r if r >= 100.0 => format!("{r:.0}"),
        r if r >= 1.0 => format!("{r:.1}"),
        r => format!("{r:.4}"),
    }
}

fn main() {
    let turmoil_max = env_number("HOSTS_SCALE_TURMOIL_MAX", 100) as usize;
    let bare_max = env_number("HOSTS_SCALE_BARE_MAX", turmoil_max as u64) as usize;
    let bare_s = env_number("HOSTS_SCALE_BARE_S", 20).max(1);
    println!(
        "| contender | hosts | heartbeats | wall time | virtual s per wall s | ticklab's speed, as a multiple |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for hosts in [10, 100, 500] {
        let mut rates = Vec::new();
        for network in ["events", "turmoil"] {
            let contender = format!("ticklab, network = \"{network}\"");
            if network == "turmoil" && hosts > turmoil_max {
                println!(
                    "| {contender} | {hosts} | | not run (HOSTS_SCALE_TURMOIL_MAX={turmoil_max}) | | |"
                );
                continue;
            }
            let (beats, wall_s) = ticklab_hour(hosts, network);
            let rate = VIRTUAL_S as f64 / wall_s;
            rates.push((network, rate));
            println!(
                "| {contender} | {hosts} | {beats} | {wall_s:.2} s | {} | |",
                rate_text(rate)
            );
        }
        if hosts > bare_max {
            println!(
                "| bare turmoil | {hosts} | | not run (HOSTS_SCALE_BARE_MAX={bare_max}) | | |"
            );
            continue;
        }
        let started = Instant::now();
        let counts = bare_turmoil::run(hosts, bare_s);
        let wall_s = started.elapsed().as_secs_f64();
        // Each host hears from 3 peers a second, less the first second's latency.
        let expected = (hosts * 3) as u64 * bare_s;
        assert!(
            counts.received + (hosts * 3) as u64 >= expected && counts.suspicions == 0,
            "bare turmoil carried {counts:?}, expected about {expected} heartbeats"
        );
        let rate = bare_s as f64 / wall_s;
        let hour_s = VIRTUAL_S as f64 / rate;
        let multiples: Vec<String> = rates
            .iter()
            .map(|(network, ticklab)| format!("{network}: {:.0}x", ticklab / rate))
            .collect();
        println!(
            "| bare turmoil ({bare_s} s run, hour scaled) | {hosts} | {} in {bare_s} s | {hour_s:.0} s for the hour | {} | {} |",
            counts.received,
            rate_text(rate),
            multiples.join(", ")
        );
    }
}
