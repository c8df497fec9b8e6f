//! A leader lease, as Chubby, etcd and ZooKeeper-style lock services hand them out.
//!
//! A coordinator grants the lease for `length` on its own clock. Each candidate asks for it every
//! `renew_every` (on its `Instant`); the holder's ask renews it. A holder counts its lease from
//! when it *sent* the ask, on the lease's clock, and gives it up `length × (1 − drift_bound)`
//! later: safe while no two clocks drift apart by more than the bound, and while the clock is
//! not stepped. The holder writes to storage every `write_every`, checking its lease first and
//! sending `write_takes` later; a process frozen in between sends a stale write when it thaws.
//! With fencing, each write carries the lease's token and storage refuses any older than the
//! newest it has seen.
//!
//! A host holds the lease, as far as this workload's bookkeeping goes, while its own clock reads
//! before its expiry: a host asleep whose monotonic clock stopped holds it all the while.

mod coordinator;
mod leaderless;
mod spec;
mod workload;

pub use spec::LeaseConfig;
pub(crate) use spec::validate;

use ticklab_sim::{ClockId, EdgeEffect, Platform};

use super::event_kind::HostEventKind;
use super::out::Out;
use super::workload::{HostId, Hosts, WakeId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LeaseMsg {
    Ask { ask: u64 },
    Granted { ask: u64, token: u64 },
    Write { token: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LeaseWake {
    /// A candidate's next ask.
    Ask,
    /// The holder's next write: it checks its lease.
    Write,
    /// A write checked `token` and now goes out.
    Send { token: u64 },
    /// Bookkeeping: the host's clock reaches its lease's end.
    Expiry,
    /// The coordinator's clock reaches the lease's end, with candidates waiting.
    Expire,
}

/// What the coordinator knows.
#[derive(Debug, Default)]
struct Grant {
    holder: Option<HostId>,
    /// On the coordinator's lease clock.
    expires_ns: i64,
    token: u64,
    last_holder: Option<HostId>,
}

#[derive(Debug, Default)]
struct Candidate {
    last_ask: u64,
    /// The lease clock's reading when the last ask went out.
    asked_at_ns: i64,
    /// When this host believes its lease ends, on its lease clock.
    until_ns: Option<i64>,
    token: u64,
    holds: bool,
    expiry: Option<WakeId>,
    writing: bool,
}

#[derive(Debug)]
pub(crate) struct Lease {
    config: LeaseConfig,
    clocks: Vec<ClockId>,
    instants: Vec<ClockId>,
    grant: Grant,
    /// Candidates the coordinator turned away, with their latest ask, first come first.
    waiting: Vec<(HostId, u64)>,
    expiry_check: Option<WakeId>,
    candidates: Vec<Candidate>,
    newest_token_seen: u64,
    holders: usize,
    two_since_ns: Option<u64>,
    leaderless: leaderless::Leaderless,
    pub(crate) values: LeaseValues,
}

#[derive(Debug, Default)]
pub(crate) struct LeaseValues {
    granted: u64,
    takeovers: u64,
    stretches: u64,
    two_leader_ns: u64,
    longest_ns: u64,
    first_ns: Option<u64>,
    writes: u64,
    stale_accepted: u64,
    stale_rejected: u64,
    first_takeover_ns: Option<u64>,
    last_takeover_ns: Option<u64>,
}

impl Lease {
    pub(crate) fn new(
        config: &LeaseConfig,
        platforms: &[Platform],
        longest_latency_ns: u64,
    ) -> Self {
        Lease {
            config: config.clone(),
            clocks: platforms.iter().map(|p| config.clock.on(*p)).collect(),
            instants: platforms.iter().map(|p| p.instant_clock()).collect(),
            grant: Grant::default(),
            waiting: Vec::new(),
            expiry_check: None,
            candidates: platforms.iter().map(|_| Candidate::default()).collect(),
            newest_token_seen: 0,
            holders: 0,
            two_since_ns: None,
            leaderless: leaderless::Leaderless::new(config, longest_latency_ns),
            values: LeaseValues::default(),
        }
    }

    /// Opens or closes a stretch without a leader, as holders and reachability change.
    pub(crate) fn note_leaders(&mut self, hosts: &Hosts<'_, Lease>, out: &mut Out<'_>) {
        let open = self.holders == 0
            && leaderless::Leaderless::reachable(
                hosts,
                self.config.coordinator,
                &self.config.candidates,
            );
        self.leaderless.update(open, hosts.now_ns(), out);
    }

    pub(crate) fn start(&mut self, hosts: &mut Hosts<'_, Lease>) {
        for &host in &self.config.candidates {
            hosts.wake_at(
                host,
                self.instants[host],
                hosts.read(host, self.instants[host]),
                LeaseWake::Ask,
            );
        }
    }

    fn after(&self, hosts: &Hosts<'_, Lease>, host: HostId, wait_ns: u64) -> i64 {
        hosts
            .read(host, self.instants[host])
            .saturating_add(wait_ns as i64)
    }

    pub(crate) fn on_wake(
        &mut self,
        host: HostId,
        wake: LeaseWake,
        hosts: &mut Hosts<'_, Lease>,
        out: &mut Out<'_>,
    ) {
        match wake {
            LeaseWake::Ask => {
                let candidate = &mut self.candidates[host];
                candidate.last_ask += 1;
                candidate.asked_at_ns = hosts.read(host, self.clocks[host]);
                let ask = candidate.last_ask;
                hosts.send(host, self.config.coordinator, LeaseMsg::Ask { ask });
                let next = self.after(hosts, host, self.config.renew_every_ns);
                hosts.wake_at(host, self.instants[host], next, LeaseWake::Ask);
            }
            LeaseWake::Write => {
                let now = hosts.read(host, self.clocks[host]);
                let candidate = &mut self.candidates[host];
                let valid = candidate.until_ns.is_some_and(|until| now < until);
                if !valid {
                    candidate.writing = false;
                    return;
                }
                let token = candidate.token;
                if self.config.write_takes_ns == 0 {
                    self.send_write(host, token, hosts);
                } else {
                    let at = self.after(hosts, host, self.config.write_takes_ns);
                    hosts.done_at(host, self.instants[host], at, LeaseWake::Send { token });
                }
                let Some(every_ns) = self.config.write_every_ns else {
                    return;
                };
                let next = self.after(hosts, host, every_ns);
                hosts.wake_at(host, self.instants[host], next, LeaseWake::Write);
            }
            LeaseWake::Send { token } => self.send_write(host, token, hosts),
            LeaseWake::Expiry => {
                self.candidates[host].expiry = None;
                self.recheck(host, hosts, out);
            }
            LeaseWake::Expire => self.expire(hosts, out),
        }
    }

    fn send_write(&mut self, host: HostId, token: u64, hosts: &mut Hosts<'_, Lease>) {
        hosts.send(host, self.config.storage, LeaseMsg::Write { token });
    }

    pub(crate) fn on_message(
        &mut self,
        from: HostId,
        to: HostId,
        msg: LeaseMsg,
        hosts: &mut Hosts<'_, Lease>,
        out: &mut Out<'_>,
    ) {
        match msg {
            LeaseMsg::Ask { ask } => self.ask(from, ask, hosts, out),
            LeaseMsg::Granted { ask, token } => {
                let candidate = &mut self.candidates[to];
                if ask != candidate.last_ask {
                    return;
                }
                let length_ns = u128::from(self.config.length_ns);
                let margin_ns = length_ns * u128::from(self.config.drift_bound_ppb) / 1_000_000_000;
                let kept_ns = (length_ns - margin_ns) as u64;
                candidate.until_ns = Some(candidate.asked_at_ns.saturating_add(kept_ns as i64));
                candidate.token = token;
                if !candidate.writing && self.config.write_every_ns.is_some() {
                    candidate.writing = true;
                    let now = hosts.read(to, self.instants[to]);
                    hosts.wake_at(to, self.instants[to], now, LeaseWake::Write);
                }
                self.recheck(to, hosts, out);
            }
            LeaseMsg::Write { token } => self.write(from, token, hosts, out),
        }
    }

    /// The coordinator answers an ask: a renewal for the holder, a grant if the lease is free or
    /// has run out by its clock. Anyone else waits, and gets the lease the moment it runs out,
    /// as a lock service's waiters are told when a lease expires.
    pub(crate) fn on_host_edge(
        &mut self,
        host: HostId,
        effect: EdgeEffect,
        hosts: &mut Hosts<'_, Lease>,
        out: &mut Out<'_>,
    ) {
        if effect.changed_clock == Some(self.clocks[host]) {
            self.recheck(host, hosts, out);
        }
        self.note_leaders(hosts, out);
    }

    /// Whether `host` holds the lease by its clock now; files the bookkeeping wake for when
    /// that changes.
    fn recheck(&mut self, host: HostId, hosts: &mut Hosts<'_, Lease>, out: &mut Out<'_>) {
        let clock = self.clocks[host];
        let now = hosts.read(host, clock);
        let candidate = &mut self.candidates[host];
        let holds = candidate.until_ns.is_some_and(|until| now < until);
        if let Some(expiry) = candidate.expiry.take() {
            hosts.cancel(expiry);
        }
        if let (true, Some(until)) = (holds, candidate.until_ns) {
            candidate.expiry = Some(hosts.observe_at(host, clock, until, LeaseWake::Expiry));
        }
        if holds == candidate.holds {
            return;
        }
        candidate.holds = holds;
        let token = candidate.token;
        if holds {
            self.holders += 1;
            out.event(
                hosts.now_ns(),
                host,
                HostEventKind::Leader,
                now,
                |_| format!("holds the lease, token {token}"),
                None,
            );
        } else {
            self.holders -= 1;
            // A host that cannot run learns it only when it runs again; until then it acts on
            // whatever it checked before it stopped.
            let unnoticed = hosts.stopped(host).map_or(String::new(), |why| {
                format!(", which it cannot notice while {why}")
            });
            out.event(
                hosts.now_ns(),
                host,
                HostEventKind::StepsDown,
                now,
                |_| format!("its lease with token {token} has run out by its clock{unnoticed}"),
                None,
            );
        }
        self.count_leaders(host, hosts, out);
        self.note_leaders(hosts, out);
    }

    fn count_leaders(&mut self, host: HostId, hosts: &Hosts<'_, Lease>, out: &mut Out<'_>) {
        let now_ns = hosts.now_ns();
        match (self.holders >= 2, self.two_since_ns) {
            (true, None) => {
                self.two_since_ns = Some(now_ns);
                self.values.stretches += 1;
                self.values.first_ns.get_or_insert(now_ns);
                let holders = self.holders;
                out.event(
                    hosts.now_ns(),
                    host,
                    HostEventKind::TwoLeaders,
                    0,
                    |_| format!("{holders} hosts hold the lease"),
                    None,
                );
                out.violation(now_ns, || format!("{holders} hosts hold the lease at once"));
            }
            (false, Some(since_ns)) => {
                self.close_stretch(since_ns, now_ns);
                out.event(
                    hosts.now_ns(),
                    host,
                    HostEventKind::OneLeader,
                    0,
                    |_| "one leader or none again".to_string(),
                    Some(now_ns - since_ns),
                );
            }
            _ => {}
        }
    }

    fn close_stretch(&mut self, since_ns: u64, now_ns: u64) {
        self.two_since_ns = None;
        let lasted_ns = now_ns - since_ns;
        self.values.two_leader_ns += lasted_ns;
        self.values.longest_ns = self.values.longest_ns.max(lasted_ns);
    }

    /// The metrics of [`super::LEASE_METRICS`], by name.
    pub(crate) fn finish(&mut self, end_ns: u64, out: &mut Out<'_>) -> Vec<(&'static str, u64)> {
        if let Some(since_ns) = self.two_since_ns {
            self.close_stretch(since_ns, end_ns);
        }
        self.leaderless.finish(end_ns, out);
        let values = &self.values;
        let never = |at_ns: Option<u64>| at_ns.unwrap_or(super::NOT_YET);
        vec![
            ("leases_granted", values.granted),
            ("takeovers", values.takeovers),
            ("two_leader_stretches", values.stretches),
            ("two_leader_time", values.two_leader_ns),
            ("longest_two_leaders", values.longest_ns),
            (
                "first_two_leaders",
                values.first_ns.unwrap_or(super::NOT_YET),
            ),
            ("writes_accepted", values.writes),
            ("stale_writes_accepted", values.stale_accepted),
            ("stale_writes_rejected", values.stale_rejected),
            ("first_takeover_at", never(values.first_takeover_ns)),
            ("last_takeover_at", never(values.last_takeover_ns)),
            ("longest_without_leader", self.leaderless.longest_ns),
            (
                "longest_without_leader_at",
                never(self.leaderless.longest_from_ns),
            ),
        ]
    }
}
