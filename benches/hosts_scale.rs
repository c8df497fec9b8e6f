//! How hosts scenarios scale: N hosts, each sending a heartbeat every second to the next 3 and
//! watching the 3 before it, for one virtual hour, on each network. Prints the wall time of one
//! run of each and the virtual seconds it simulates per wall second; BENCHMARKS.md quotes them.
//!
//! Run with `cargo bench --bench hosts_scale`; `HOSTS_SCALE_TURMOIL_MAX=500` also runs turmoil at
//! 500 hosts (left out by default: it takes far longer than the rest together).

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

fn main() {
    // `cargo bench` passes `--bench`; a filter argument, if any, picks networks by name.
    let filter: Option<String> = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let turmoil_max: usize = std::env::var("HOSTS_SCALE_TURMOIL_MAX")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100);
    println!("| network | hosts | heartbeats | wall time | virtual s per wall s |");
    println!("|---|---:|---:|---:|---:|");
    for network in ["events", "turmoil"] {
        if filter
            .as_deref()
            .is_some_and(|filter| !network.contains(filter))
        {
            continue;
        }
        for hosts in [10, 100, 500] {
            if network == "turmoil" && hosts > turmoil_max {
                println!(
                    "| {network} | {hosts} | | not run (HOSTS_SCALE_TURMOIL_MAX={turmoil_max}) | |"
                );
                continue;
            }
            let text = scenario(hosts, network);
            let parsed =
                ticklab::scenario::parse("hosts_scale.toml", &text).expect("a valid scenario");
            let started = Instant::now();
            let report =
                run_scenario(&parsed, &RunOptions::default(), &mut NoTrace).expect("the run ends");
            let wall_s = started.elapsed().as_secs_f64();
            let beats = report.summary.get("heartbeats_sent").unwrap_or(0);
            println!(
                "| {network} | {hosts} | {beats} | {wall_s:.2} s | {:.0} |",
                VIRTUAL_S as f64 / wall_s
            );
        }
    }
}
