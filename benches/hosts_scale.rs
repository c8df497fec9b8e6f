//! What one heartbeat costs as the cluster grows. N hosts, each sending a heartbeat every second to
//! the next 3 and watching the 3 before it (suspect after 5 s), at 10, 100, 1,000 and 10,000
//! hosts on ticklab's `network = "events"`; and the same heartbeats written directly on turmoil
//! (`hosts_rivals/bare_turmoil.rs`), the rival, in the same run. Prints a markdown table for
//! BENCHMARKS.md: per run its heartbeats, wall time, the hour projected from it, wall ns per
//! heartbeat, heartbeats per wall second, and ticklab's cost per heartbeat as a ratio to bare
//! turmoil's at the same host count.
//!
//! Run with `cargo bench --bench hosts_scale`; each run is named on stderr as it starts, and the
//! table prints on stdout once all are done, in one piece (`2>/dev/null` leaves only it). A whole virtual hour at 10,000 hosts is over a
//! minute of CPU, so each size runs a shorter span, about 3.6 M heartbeats or fewer, and its hour
//! is projected from it (a run's cost per virtual second is flat once the first timeouts are
//! armed). The spans, in virtual seconds:
//! - `HOSTS_SCALE_S_10`, `HOSTS_SCALE_S_100` (default 3,600 each), `HOSTS_SCALE_S_1000` (600) and
//!   `HOSTS_SCALE_S_10000` (120): ticklab's span at that size; 0 leaves the size out;
//! - `HOSTS_SCALE_S`: every ticklab span at once (a per-size variable still wins);
//! - `HOSTS_SCALE_BARE_S` (default 20): bare turmoil's span, at every size it runs.
//!
//! Bare turmoil steps every 1 ms tick whatever is in flight, and each step visits every host and
//! every link: its cost grows about n³, so it runs only up to `HOSTS_SCALE_BARE_MAX` hosts
//! (default 100; 1,000 hosts would take hours of wall time for a few virtual seconds).
//! `HOSTS_SCALE_TURMOIL_MAX=100` adds rows for ticklab on `network = "turmoil"` up to that many
//! hosts, over the same spans as the events rows (default 0: none; 100 hosts take about 30 s).
//!
//! Wall time is one `Instant` reading around one run, not criterion: the runs last seconds to a
//! minute, criterion would repeat each at least ten times, and on a shared machine one run's noise
//! (about 10%) is far below the gaps being measured (orders of magnitude).

#[path = "hosts_rivals/bare_turmoil.rs"]
mod bare_turmoil;

use std::io::Write;
use std::time::Instant;

use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::NoTrace;

const HOUR_S: u64 = 3_600;
const PEERS: u64 = 3;

/// Each size and its default span: about 3.6 M heartbeats or fewer.
const SIZES: [(usize, u64); 4] = [(10, 3_600), (100, 3_600), (1_000, 600), (10_000, 120)];

fn scenario(hosts: usize, network: &str, virtual_s: u64) -> String {
    format!(
        r#"
about = "{hosts} hosts, heartbeats every second to 3 peers, for {virtual_s} s"
platform = "linux"
run_for = "{virtual_s}s"

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
peers = {PEERS}
"#
    )
}

/// What the run is told by its environment.
struct Plan {
    /// (hosts, ticklab's virtual seconds), sizes with a span of 0 left out.
    sizes: Vec<(usize, u64)>,
    bare_s: u64,
    bare_max: usize,
    turmoil_max: usize,
}

impl Plan {
    fn from_env() -> Plan {
        let all_s = env_number("HOSTS_SCALE_S");
        let sizes = SIZES
            .iter()
            .map(|&(hosts, default_s)| {
                let own_s = env_number(&format!("HOSTS_SCALE_S_{hosts}"));
                (hosts, own_s.or(all_s).unwrap_or(default_s))
            })
            .filter(|&(_, virtual_s)| virtual_s > 0)
            .collect();
        Plan {
            sizes,
            bare_s: env_number("HOSTS_SCALE_BARE_S").unwrap_or(20).max(1),
            bare_max: env_number("HOSTS_SCALE_BARE_MAX").unwrap_or(100) as usize,
            turmoil_max: env_number("HOSTS_SCALE_TURMOIL_MAX").unwrap_or(0) as usize,
        }
    }
}

/// The whole number in `name`, if set; anything else set there stops the bench with exit code 2.
fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    match text.trim().replace('_', "").parse() {
        Ok(value) => Some(value),
        Err(_) => {
            let _ = writeln!(
                std::io::stderr(),
                "hosts_scale: {name}={text:?} is not a whole number (hint: seconds, or hosts)"
            );
            std::process::exit(2);
        }
    }
}

/// One timed run: what it simulated and what it cost.
#[derive(Clone, Copy)]
struct Measured {
    virtual_s: u64,
    heartbeats: u64,
    wall_s: f64,
}

impl Measured {
    fn ns_per_heartbeat(&self) -> f64 {
        self.wall_s * 1e9 / self.heartbeats.max(1) as f64
    }
}

/// One ticklab run of `virtual_s` seconds on `network`.
fn ticklab_run(hosts: usize, network: &str, virtual_s: u64) -> Measured {
    let text = scenario(hosts, network, virtual_s);
    let parsed = ticklab::loader::parse("hosts_scale.toml", &text).expect("a valid scenario");
    // The bench times whatever span it is given: 10,000 hosts for an hour is over the default bound.
    let options = RunOptions {
        max_events: u64::MAX,
        ..RunOptions::default()
    };
    let started = Instant::now();
    let report = run_scenario(&parsed, &options, &mut NoTrace).expect("the run ends");
    let wall_s = started.elapsed().as_secs_f64();
    assert_eq!(
        report.summary.get("false_suspicions"),
        Some(0),
        "{network}, {hosts} hosts: a fault-free run suspects nobody"
    );
    let heartbeats = report.summary.get("heartbeats_sent").unwrap_or(0);
    assert!(heartbeats > 0, "{hosts} hosts sent no heartbeat");
    Measured {
        virtual_s,
        heartbeats,
        wall_s,
    }
}

/// One bare turmoil run of `virtual_s` seconds, checked to have carried every heartbeat.
fn bare_run(hosts: usize, virtual_s: u64) -> Measured {
    let started = Instant::now();
    let counts = bare_turmoil::run(hosts, virtual_s);
    let wall_s = started.elapsed().as_secs_f64();
    // Only the last second's heartbeats may still be in flight when the span ends.
    let in_flight_max = hosts as u64 * PEERS;
    assert!(
        counts.sent >= in_flight_max * virtual_s
            && counts.received + in_flight_max >= counts.sent
            && counts.suspicions == 0,
        "bare turmoil, {hosts} hosts for {virtual_s} s: {counts:?}"
    );
    Measured {
        virtual_s,
        heartbeats: counts.sent,
        wall_s,
    }
}

/// A whole number with thousands separators, as BENCHMARKS.md writes them.
fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// A figure for people to read: three significant digits below 100, grouped whole numbers above.
fn figure(value: f64) -> String {
    if value >= 100.0 {
        return grouped(value.round() as u64);
    }
    if value <= 0.0 {
        return "0".into();
    }
    let decimals = (2 - value.log10().floor() as i64).clamp(0, 9) as usize;
    format!("{value:.decimals$}")
}

/// ticklab's cost per heartbeat over bare turmoil's: "1/N" when ticklab is N times cheaper.
fn ratio_text(ticklab: &Measured, bare: Option<&Measured>) -> String {
    let Some(bare) = bare else {
        return "no bare turmoil run".into();
    };
    let ratio = ticklab.ns_per_heartbeat() / bare.ns_per_heartbeat();
    if ratio < 1.0 {
        format!("1/{}", figure(1.0 / ratio))
    } else {
        figure(ratio)
    }
}

fn measured_row(hosts: usize, contender: &str, run: &Measured, ratio: &str) -> String {
    let hour_s = run.wall_s * HOUR_S as f64 / run.virtual_s as f64;
    format!(
        "| {} | {contender} | {} | {} | {} | {} | {} | {} | {ratio} |",
        grouped(hosts as u64),
        grouped(run.virtual_s),
        grouped(run.heartbeats),
        figure(run.wall_s),
        figure(hour_s),
        figure(run.ns_per_heartbeat()),
        figure(run.heartbeats as f64 / run.wall_s),
    )
}

fn not_run_row(hosts: usize, contender: &str, why: &str) -> String {
    format!(
        "| {} | {contender} | | | {why} | | | | |",
        grouped(hosts as u64)
    )
}

/// Says on stderr what runs now: the table prints whole at the end, so that it pastes in one piece.
fn progress(what: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr(), "hosts_scale: {what}");
}

/// The rows of one cluster size: ticklab's runs, then bare turmoil's, which their ratios need.
fn size_rows(plan: &Plan, hosts: usize, virtual_s: u64) -> Vec<String> {
    let mut ticklab = Vec::new();
    for network in ["events", "turmoil"] {
        if network == "turmoil" && hosts > plan.turmoil_max {
            continue;
        }
        progress(format_args!(
            "{hosts} hosts on ticklab, network = {network:?}, {virtual_s} virtual s"
        ));
        let contender = format!("ticklab, `network = \"{network}\"`");
        ticklab.push((contender, ticklab_run(hosts, network, virtual_s)));
    }
    let bare = (hosts <= plan.bare_max).then(|| {
        progress(format_args!(
            "{hosts} hosts on bare turmoil, {} virtual s",
            plan.bare_s
        ));
        bare_run(hosts, plan.bare_s)
    });
    let mut rows: Vec<String> = ticklab
        .iter()
        .map(|(contender, run)| {
            measured_row(hosts, contender, run, &ratio_text(run, bare.as_ref()))
        })
        .collect();
    rows.push(match &bare {
        Some(run) => measured_row(hosts, "bare turmoil", run, ""),
        None => not_run_row(hosts, "bare turmoil", "not run (n³ steps)"),
    });
    rows
}

fn main() {
    let plan = Plan::from_env();
    let rows: Vec<String> = plan
        .sizes
        .iter()
        .flat_map(|&(hosts, virtual_s)| size_rows(&plan, hosts, virtual_s))
        .collect();
    println!(
        "| hosts | contender | virtual s | heartbeats | wall s | wall s for the hour (projected) \
         | ns per heartbeat | heartbeats per wall s | ticklab vs bare turmoil, cost per heartbeat |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        println!("{row}");
    }
}
