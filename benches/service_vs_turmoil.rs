//! One user-code cluster on ticklab::service and on plain turmoil: N hosts (100 unless
//! `SERVICE_BENCH_HOSTS` says), each running the same async function, which sends a heartbeat
//! over UDP every second to the next 3 hosts, records when it last heard from each that sends
//! to it, and every second suspects those silent for 5 s. The function is written once, in
//! `heartbeat_host!`, and expanded over each network's types: turmoil's `net` and `lookup`, and
//! ticklab's, which have the same API.
//!
//! ticklab runs `SERVICE_BENCH_S` virtual seconds (default 3,600: the hour). turmoil steps every
//! 1 ms tick and visits every host on each, so its cost per virtual second is flat; it runs
//! `SERVICE_BENCH_TURMOIL_S` (default 20) and its hour is projected from them. Both draw each
//! datagram's latency from 1 ms to 5 ms. The bench checks that both carried every heartbeat and
//! suspected nobody, then prints a markdown table with the ratio of the two hours.
//!
//! Run with `cargo bench --bench service_vs_turmoil`. Wall time is one `Instant` reading around
//! each run: the runs take seconds, and their gap is orders of magnitude.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

const HOUR_S: u64 = 3_600;
const PEERS: usize = 3;
const PORT: u16 = 9000;
const SUSPECT_AFTER: Duration = Duration::from_secs(5);

/// The counters every host adds to; both simulators run all hosts on one thread.
#[derive(Clone, Default)]
struct Tally {
    sent: Rc<Cell<u64>>,
    received: Rc<Cell<u64>>,
    suspicions: Rc<Cell<u64>>,
}

fn bump(counter: &Cell<u64>) {
    counter.set(counter.get() + 1);
}

/// The user's host, over the network `$net` whose `lookup` is `$lookup`.
macro_rules! heartbeat_host {
    ($net:path, $lookup:path) => {
        pub async fn host(
            targets: Vec<String>,
            tally: super::Tally,
        ) -> Result<(), Box<dyn std::error::Error>> {
            use std::net::{Ipv4Addr, SocketAddr};
            use tokio::time::{Instant, MissedTickBehavior};
            use $net as net;

            use super::{PEERS, PORT, SUSPECT_AFTER, bump};

            let socket = net::UdpSocket::bind((Ipv4Addr::UNSPECIFIED, PORT)).await?;
            let targets: Vec<SocketAddr> = targets
                .iter()
                .map(|name| SocketAddr::new($lookup(name.as_str()), PORT))
                .collect();
            let mut last_heard: Vec<(std::net::IpAddr, Instant, bool)> = Vec::with_capacity(PEERS);
            let mut beat = tokio::time::interval(std::time::Duration::from_secs(1));
            beat.set_missed_tick_behavior(MissedTickBehavior::Delay);
            let mut buf = [0u8; 16];
            loop {
                tokio::select! {
                    _ = beat.tick() => {
                        for target in &targets {
                            socket.send_to(b"beat", *target).await?;
                            bump(&tally.sent);
                        }
                        let now = Instant::now();
                        for (_, heard, suspected) in &mut last_heard {
                            if !*suspected && now - *heard >= SUSPECT_AFTER {
                                *suspected = true;
                                bump(&tally.suspicions);
                            }
                        }
                    }
                    got = socket.recv_from(&mut buf) => {
                        let (_, from) = got?;
                        bump(&tally.received);
                        let now = Instant::now();
                        match last_heard.iter_mut().find(|(peer, _, _)| *peer == from.ip()) {
                            Some(entry) => *entry = (from.ip(), now, false),
                            None => last_heard.push((from.ip(), now, false)),
                        }
                    }
                }
            }
        }
    };
}

mod on_turmoil {
    heartbeat_host!(turmoil::net, turmoil::lookup);
}

mod on_ticklab {
    heartbeat_host!(ticklab::service::net, ticklab::service::net::lookup);
}

fn names(hosts: usize) -> Vec<String> {
    (1..=hosts).map(|index| format!("node-{index}")).collect()
}

fn targets(names: &[String], index: usize) -> Vec<String> {
    (1..=PEERS)
        .map(|step| names[(index + step) % names.len()].clone())
        .collect()
}

fn on_ticklab(hosts: usize, virtual_s: u64) -> (Tally, f64, u64) {
    let tally = Tally::default();
    let mut service = ticklab::service::Service::new();
    service
        .run_for(Duration::from_secs(virtual_s))
        .latency_between(Duration::from_millis(1), Duration::from_millis(5));
    let names = names(hosts);
    for (index, name) in names.iter().enumerate() {
        let (targets, tally) = (targets(&names, index), tally.clone());
        service.host(name, move || {
            on_ticklab::host(targets.clone(), tally.clone())
        });
    }
    let began = Instant::now();
    let run = service.run().expect("the service runs");
    (tally, began.elapsed().as_secs_f64(), run.steps())
}

fn on_turmoil(hosts: usize, virtual_s: u64) -> (Tally, f64) {
    let tally = Tally::default();
    let mut sim = turmoil::Builder::new()
        .rng_seed(0)
        .tick_duration(Duration::from_millis(1))
        .min_message_latency(Duration::from_millis(1))
        .max_message_latency(Duration::from_millis(5))
        .simulation_duration(Duration::from_secs(virtual_s + 60))
        .build();
    let names = names(hosts);
    for (index, name) in names.iter().enumerate() {
        let (targets, tally) = (targets(&names, index), tally.clone());
        sim.host(name.as_str(), move || {
            on_turmoil::host(targets.clone(), tally.clone())
        });
    }
    let began = Instant::now();
    for _ in 0..virtual_s * 1_000 {
        sim.step().expect("turmoil steps");
    }
    (tally, began.elapsed().as_secs_f64())
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Checks a run carried every heartbeat but those still in flight at its end, and suspected
/// nobody.
fn check(contender: &str, tally: &Tally, hosts: usize, virtual_s: u64) {
    let sent = tally.sent.get();
    let received = tally.received.get();
    assert!(
        sent >= (hosts * PEERS) as u64 * virtual_s,
        "{contender}: sent {sent}"
    );
    assert!(
        sent - received <= (hosts * PEERS) as u64,
        "{contender}: sent {sent}, received {received}"
    );
    assert_eq!(tally.suspicions.get(), 0, "{contender} suspected someone");
}

fn main() {
    let hosts = env_number("SERVICE_BENCH_HOSTS", 100) as usize;
    let ticklab_s = env_number("SERVICE_BENCH_S", HOUR_S);
    let turmoil_s = env_number("SERVICE_BENCH_TURMOIL_S", 20);
    eprintln!("{hosts} hosts on ticklab::service, {ticklab_s} virtual s");
    let (ticklab, ticklab_wall_s, steps) = on_ticklab(hosts, ticklab_s);
    check("ticklab::service", &ticklab, hosts, ticklab_s);
    eprintln!("{hosts} hosts on turmoil, {turmoil_s} virtual s");
    let (turmoil, turmoil_wall_s) = on_turmoil(hosts, turmoil_s);
    check("turmoil", &turmoil, hosts, turmoil_s);
    let hour = |wall_s: f64, virtual_s: u64| wall_s * HOUR_S as f64 / virtual_s as f64;
    let (ticklab_hour, turmoil_hour) = (
        hour(ticklab_wall_s, ticklab_s),
        hour(turmoil_wall_s, turmoil_s),
    );
    println!(
        "| contender | hosts | virtual s | heartbeats received | wall s | wall s for the hour |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    println!(
        "| ticklab::service | {hosts} | {ticklab_s} | {} | {ticklab_wall_s:.2} | {ticklab_hour:.1} |",
        ticklab.received.get()
    );
    println!(
        "| turmoil | {hosts} | {turmoil_s} | {} | {turmoil_wall_s:.2} | {turmoil_hour:.0} (projected) |",
        turmoil.received.get()
    );
    println!(
        "\nticklab::service runs the hour {:.0} times as fast as turmoil, in {steps} host steps \
         ({:.2} µs each).",
        turmoil_hour / ticklab_hour,
        ticklab_wall_s * 1e6 / steps as f64
    );
}
