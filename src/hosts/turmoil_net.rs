//! turmoil as the network: every host is a turmoil host with a UDP socket, and every message
//! between hosts is a datagram turmoil carries, with turmoil's latency model.
//!
//! ticklab's world keeps every host's clocks and decides what runs when; turmoil only moves
//! bytes. Its clock advances a tick per step and every step visits every host and, for each,
//! every link, so a run steps turmoil only while a datagram is in flight and jumps over the
//! stretches where none is: turmoil's clock then lags physical time by a known offset, and no
//! latency turmoil measures ever spans a jump.
//!
//! Partitions, and hosts asleep, drop messages in ticklab's world, before and after turmoil, so
//! that both networks agree on what is lost. A latency spike sets turmoil's own link latency.
//!
//! A step of turmoil's (`Sim::step`) first moves its network's clock a tick ahead, then runs each
//! host in turn: a host sends at the start of the tick, but turmoil stamps the datagram with the
//! network's clock, already at its end, and delivers it once that clock reaches the stamp plus
//! the drawn latency. A message handed to turmoil at `t` goes out in the step from `t` to
//! `t + tick` and arrives by the end of the step in which the network's clock reaches
//! `t + tick + latency`, which is when the world takes it: a tick more than the latency. So
//! turmoil is given every latency less a tick, and a whole-tick latency takes exactly that long.
//! A latency of exactly one tick is then none at all for turmoil: the datagram is deliverable in
//! the step that sends it, but turmoil hands it only to hosts that run after the sender in that
//! step; one for a host that ran before waits for the next step, and is taken as arrived at the
//! end of this one, when turmoil had it ready.

use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};
use std::net::{Ipv4Addr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use tokio::sync::Notify;
use turmoil::net::UdpSocket;

use super::cluster::{HostId, Msg};
use super::network::{NetworkConfig, Pair};

const PORT: u16 = 9000;
/// Bytes of one encoded message: id, from, to, and the envelope: its workload, its kind and
/// its two words, which only the workload reads.
const DATAGRAM_BYTES: usize = 8 + 4 + 4 + 1 + 1 + 8 + 8;

/// A datagram a relay received: who it came from, and the message.
type Arrival = (HostId, HostId, u64, Msg);

/// A message handed to turmoil.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    id: u64,
    from: HostId,
    to: HostId,
    msg: Msg,
    /// The step whose relays send it: the one after it was handed over.
    out_step: u64,
    /// Physical time after which it counts as lost.
    give_up_ns: u64,
}

/// Messages waiting to go out of one host, and the bell that wakes its relay.
#[derive(Debug, Default)]
struct Outbox {
    queued: RefCell<VecDeque<(SocketAddr, [u8; DATAGRAM_BYTES])>>,
    bell: Notify,
}

/// What one turmoil step costs, counted in events of `--max-events`. A step visits every host
/// and, for each, scans the links for what it may deliver; with memory traffic on top it grows
/// about as the cube of the hosts (a step: 1.5 ms at 100 hosts, 274 ms at 500, BENCHMARKS.md),
/// against some 100 ns for an event of ticklab's own.
pub(crate) fn step_cost(hosts: usize) -> u64 {
    let hosts = hosts as u64;
    (hosts.saturating_mul(hosts).saturating_mul(hosts) / 128).max(1)
}

pub(crate) struct TurmoilNet {
    sim: turmoil::Sim<'static>,
    tick_ns: u64,
    /// Physical time minus turmoil's: what the jumps over idle stretches added up to.
    offset_ns: u64,
    outboxes: Vec<Rc<Outbox>>,
    inbox: Rc<RefCell<Vec<Arrival>>>,
    names: Vec<String>,
    addresses: Vec<std::net::IpAddr>,
    /// Messages handed to turmoil and not yet arrived, in sending order.
    in_flight: VecDeque<InFlight>,
    /// Messages taken as arrived while turmoil still held them for a host that had already run
    /// in the step: their datagrams, when a relay reads them, are not new.
    taken_early: BTreeSet<u64>,
    next_id: u64,
    longest_latency_ns: u64,
    network: NetworkConfig,
    /// Steps taken, and the most allowed: `max_events` over what a step costs.
    steps: u64,
    max_steps: u64,
}

impl std::fmt::Debug for TurmoilNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurmoilNet")
            .field("offset_ns", &self.offset_ns)
            .field("in_flight", &self.in_flight.len())
            .finish()
    }
}

impl TurmoilNet {
    pub(crate) fn new(
        names: &[String],
        network: &NetworkConfig,
        seed: u64,
        tick_ns: u64,
        run_for_ns: u64,
        max_events: u64,
    ) -> Self {
        let (low, high) = less_a_tick(network.latency_ns, tick_ns);
        let mut sim = turmoil::Builder::new()
            .rng_seed(seed)
            .tick_duration(Duration::from_nanos(tick_ns))
            .min_message_latency(low)
            .max_message_latency(high)
            // A relay drains its socket every step; room for every host's datagrams at once.
            .udp_capacity(1 << 16)
            // turmoil never runs longer than physical time; the jumps only shorten its run.
            .simulation_duration(Duration::from_nanos(
                run_for_ns.saturating_add(3_600_000_000_000),
            ))
            .build();
        let inbox: Rc<RefCell<Vec<Arrival>>> = Rc::default();
        let mut outboxes = Vec::new();
        for name in names {
            let outbox: Rc<Outbox> = Rc::default();
            outboxes.push(Rc::clone(&outbox));
            let inbox = Rc::clone(&inbox);
            sim.host(name.as_str(), move || {
                relay(Rc::clone(&outbox), Rc::clone(&inbox))
            });
        }
        let addresses = names.iter().map(|name| sim.lookup(name.as_str())).collect();
        let mut net = TurmoilNet {
            sim,
            tick_ns,
            offset_ns: 0,
            outboxes,
            inbox,
            names: names.to_vec(),
            addresses,
            in_flight: VecDeque::new(),
            taken_early: BTreeSet::new(),
            next_id: 0,
            longest_latency_ns: network.latency_ns.1,
            network: network.clone(),
            steps: 0,
            max_steps: max_events / step_cost(names.len()),
        };
        for (pair, range) in net.network.links.clone() {
            net.set_latency(pair, range);
        }
        net
    }

    /// Physical time as turmoil's clock plus the jumps.
    pub(crate) fn now_ns(&self) -> u64 {
        self.sim.elapsed().as_nanos() as u64 + self.offset_ns
    }

    pub(crate) fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// With nothing in flight, physical time may run ahead of turmoil's: the next datagram
    /// starts from `now_ns` as if turmoil had stepped all the way.
    pub(crate) fn catch_up(&mut self, now_ns: u64) {
        if !self.busy() && now_ns > self.now_ns() {
            self.offset_ns += now_ns - self.now_ns();
        }
    }

    /// Hands `msg` to `from`'s relay; it goes out on turmoil's next step.
    pub(crate) fn send(&mut self, from: HostId, to: HostId, msg: Msg) {
        self.next_id += 1;
        let id = self.next_id;
        let bytes = encode(id, from, to, msg);
        let target = SocketAddr::new(self.addresses[to], PORT);
        self.outboxes[from]
            .queued
            .borrow_mut()
            .push_back((target, bytes));
        self.outboxes[from].bell.notify_one();
        let give_up_ns = self.now_ns() + self.longest_latency_ns + 3 * self.tick_ns;
        self.in_flight.push_back(InFlight {
            id,
            from,
            to,
            msg,
            out_step: self.steps + 1,
            give_up_ns,
        });
    }

    /// One turmoil step: what arrived during it, and how many messages it will never deliver
    /// (past the longest latency any link has; none should be).
    pub(crate) fn step(&mut self) -> Result<(Vec<Arrival>, usize), String> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(format!(
                "turmoil stepped its {} hosts {} times by {}, more than --max-events allows \
                 (each step visits every host and scans its links)\n  hint: use network = \"events\" for a cluster \
                 this busy, raise `tick`, or raise the limit with --max-events",
                self.names.len(),
                self.max_steps,
                ticklab_sim::Secs(self.now_ns())
            ));
        }
        self.sim
            .step()
            .map_err(|error| format!("turmoil stopped: {error}"))?;
        let mut arrivals: Vec<Arrival> = std::mem::take(&mut *self.inbox.borrow_mut());
        arrivals.retain(|(_, _, id, _)| !self.taken_early.remove(id));
        let mut arrived: BTreeSet<u64> = arrivals.iter().map(|(_, _, id, _)| *id).collect();
        for early in self.ready_for_hosts_that_ran(&arrived) {
            arrivals.push((early.from, early.to, early.id, early.msg));
            arrived.insert(early.id);
            self.taken_early.insert(early.id);
        }
        let now_ns = self.now_ns();
        let mut vanished = 0;
        self.in_flight.retain(|flight| {
            if arrived.contains(&flight.id) {
                return false;
            }
            if flight.give_up_ns < now_ns {
                vanished += 1;
                return false;
            }
            true
        });
        Ok((arrivals, vanished))
    }

    /// The messages sent in the step just taken that did not arrive in it although turmoil no
    /// longer has them on a link: deliverable at once, they wait for their host's turn in the
    /// next step because it ran before their sender's in this one.
    fn ready_for_hosts_that_ran(&self, arrived: &BTreeSet<u64>) -> Vec<InFlight> {
        let candidates: Vec<InFlight> = self
            .in_flight
            .iter()
            .filter(|flight| flight.out_step == self.steps && !arrived.contains(&flight.id))
            .copied()
            .collect();
        if candidates.is_empty() {
            return candidates;
        }
        let mut on_links = BTreeSet::new();
        self.sim.links(|links| {
            for link in links {
                for sent in link {
                    if let turmoil::Protocol::Udp(datagram) = sent.protocol()
                        && let Some((_, _, id, _)) = decode(&datagram.0)
                    {
                        on_links.insert(id);
                    }
                }
            }
        });
        candidates
            .into_iter()
            .filter(|flight| !on_links.contains(&flight.id))
            .collect()
    }

    /// Sets the latency range between hosts `a` and `b`, as a spike beginning or ending leaves
    /// it.
    pub(crate) fn relink(&mut self, a: HostId, b: HostId, range_ns: (u64, u64)) {
        self.longest_latency_ns = self.longest_latency_ns.max(range_ns.1);
        let (low, high) = less_a_tick(range_ns, self.tick_ns);
        let (a, b) = (self.names[a].clone(), self.names[b].clone());
        self.sim.set_link_latency(a.as_str(), b.as_str(), low);
        self.sim
            .set_link_max_message_latency(a.as_str(), b.as_str(), high);
    }

    fn set_latency(&mut self, pair: Pair, range_ns: (u64, u64)) {
        self.longest_latency_ns = self.longest_latency_ns.max(range_ns.1);
        let (low, high) = less_a_tick(range_ns, self.tick_ns);
        let a = self.names[pair.a].clone();
        let others: Vec<String> = match pair.b {
            Some(b) => vec![self.names[b].clone()],
            None => self
                .names
                .iter()
                .filter(|name| **name != a)
                .cloned()
                .collect(),
        };
        for b in others {
            self.sim.set_link_latency(a.as_str(), b.as_str(), low);
            self.sim
                .set_link_max_message_latency(a.as_str(), b.as_str(), high);
        }
    }
}

/// What turmoil is given for a latency range: each end less the tick its step adds (module
/// docs). Validation keeps latencies on turmoil at a tick or more.
fn less_a_tick((low_ns, high_ns): (u64, u64), tick_ns: u64) -> (Duration, Duration) {
    (
        Duration::from_nanos(low_ns.saturating_sub(tick_ns)),
        Duration::from_nanos(high_ns.saturating_sub(tick_ns)),
    )
}

/// A host's software inside turmoil: sends what the world queued, and hands on what arrives.
async fn relay(outbox: Rc<Outbox>, inbox: Rc<RefCell<Vec<Arrival>>>) -> turmoil::Result {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, PORT)).await?;
    let mut buf = [0u8; DATAGRAM_BYTES];
    loop {
        let queued: Vec<_> = outbox.queued.borrow_mut().drain(..).collect();
        for (target, bytes) in queued {
            socket.send_to(&bytes, target).await?;
        }
        tokio::select! {
            received = socket.recv_from(&mut buf) => {
                let (len, _) = received?;
                if let Some(arrival) = decode(&buf[..len]) {
                    inbox.borrow_mut().push(arrival);
                }
            }
            () = outbox.bell.notified() => {}
        }
    }
}

fn encode(id: u64, from: HostId, to: HostId, msg: Msg) -> [u8; DATAGRAM_BYTES] {
    let mut bytes = [0u8; DATAGRAM_BYTES];
    bytes[0..8].copy_from_slice(&id.to_le_bytes());
    bytes[8..12].copy_from_slice(&(from as u32).to_le_bytes());
    bytes[12..16].copy_from_slice(&(to as u32).to_le_bytes());
    bytes[16] = msg.workload;
    bytes[17] = msg.kind;
    bytes[18..26].copy_from_slice(&msg.first.to_le_bytes());
    bytes[26..34].copy_from_slice(&msg.second.to_le_bytes());
    bytes
}

fn decode(bytes: &[u8]) -> Option<Arrival> {
    if bytes.len() != DATAGRAM_BYTES {
        return None;
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let msg = Msg {
        workload: bytes[16],
        kind: bytes[17],
        first: word(18),
        second: word(26),
    };
    Some((half(8) as usize, half(12) as usize, word(0), msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_survives_its_datagram() {
        for msg in [
            Msg {
                workload: 0,
                kind: 0,
                first: 7,
                second: 0,
            },
            Msg {
                workload: 2,
                kind: 1,
                first: 8,
                second: u64::MAX,
            },
            Msg {
                workload: u8::MAX,
                kind: u8::MAX,
                first: u64::MAX,
                second: 1,
            },
        ] {
            assert_eq!(decode(&encode(42, 3, 9, msg)), Some((3, 9, 42, msg)));
        }
    }
}
