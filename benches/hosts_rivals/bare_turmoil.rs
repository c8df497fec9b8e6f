//! The rival: the same heartbeats written directly on turmoil, as a turmoil user would. Every host
//! is a turmoil host whose one task sends a heartbeat every second to the next 3 hosts over UDP,
//! records when it last heard from each of the 3 before it, and every second suspects those
//! silent for 5 s. turmoil steps every 1 ms tick for the whole span, as `Sim::run` does.
//!
//! This is turmoil at its fastest for the workload: one task per host (no spawns, no channels),
//! the default 1 ms tick and the same latency range as ticklab's scenarios.

use std::cell::Cell;
use std::net::{Ipv4Addr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use tokio::time::{Instant, MissedTickBehavior};
use turmoil::net::UdpSocket;

const PORT: u16 = 9000;
const PEERS: usize = 3;
const SUSPECT_AFTER: Duration = Duration::from_secs(5);

/// What a bare run did: heartbeats sent and received, and suspicions raised.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub sent: u64,
    pub received: u64,
    pub suspicions: u64,
}

/// Runs `hosts` hosts for `virtual_s` seconds of turmoil's clock.
pub fn run(hosts: usize, virtual_s: u64) -> Counts {
    let mut sim = turmoil::Builder::new()
        .rng_seed(0)
        .tick_duration(Duration::from_millis(1))
        .min_message_latency(Duration::from_millis(1))
        .max_message_latency(Duration::from_millis(5))
        .simulation_duration(Duration::from_secs(virtual_s + 60))
        .build();
    let sent = Rc::new(Cell::new(0u64));
    let received = Rc::new(Cell::new(0u64));
    let suspicions = Rc::new(Cell::new(0u64));
    let names: Vec<String> = (1..=hosts).map(|index| format!("node-{index}")).collect();
    for (index, name) in names.iter().enumerate() {
        let targets: Vec<String> = (1..=PEERS)
            .map(|step| names[(index + step) % hosts].clone())
            .collect();
        let tally = Tally {
            sent: Rc::clone(&sent),
            received: Rc::clone(&received),
            suspicions: Rc::clone(&suspicions),
        };
        sim.host(name.as_str(), move || host(targets.clone(), tally.clone()));
    }
    for _ in 0..virtual_s * 1_000 {
        sim.step().expect("turmoil steps");
    }
    Counts {
        sent: sent.get(),
        received: received.get(),
        suspicions: suspicions.get(),
    }
}

/// The counters every host adds to; turmoil runs all hosts on one thread.
#[derive(Clone)]
struct Tally {
    sent: Rc<Cell<u64>>,
    received: Rc<Cell<u64>>,
    suspicions: Rc<Cell<u64>>,
}

fn bump(counter: &Cell<u64>) {
    counter.set(counter.get() + 1);
}

async fn host(targets: Vec<String>, tally: Tally) -> turmoil::Result {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, PORT)).await?;
    let targets: Vec<SocketAddr> = targets
        .iter()
        .map(|name| SocketAddr::new(turmoil::lookup(name.as_str()), PORT))
        .collect();
    // Who this host watches is whoever sends to it; the first heartbeat adds them.
    let mut last_heard: Vec<(std::net::IpAddr, Instant, bool)> = Vec::with_capacity(PEERS);
    let mut beat = tokio::time::interval(Duration::from_secs(1));
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
