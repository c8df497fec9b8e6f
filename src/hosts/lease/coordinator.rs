//! The lock service's side of the lease: grants, renewals, handing a lapsed lease to the first
//! waiter, and storage taking writes with or without fencing.

use super::super::event_kind::HostEventKind;
use super::super::out::Out;
use super::super::workload::{HostId, Hosts};
use super::{Lease, LeaseMsg, LeaseWake};

impl Lease {
    pub(super) fn ask(
        &mut self,
        from: HostId,
        ask: u64,
        hosts: &mut Hosts<'_, Lease>,
        out: &mut Out<'_>,
    ) {
        let coordinator = self.config.coordinator;
        let now = hosts.read(coordinator, self.clocks[coordinator]);
        let live = self.grant.holder.is_some() && now < self.grant.expires_ns;
        let holder = self.grant.holder == Some(from);
        // A lapsed lease goes to whoever has waited longest, not to whoever asks next.
        let queued_ahead = !live
            && self
                .waiting
                .first()
                .is_some_and(|(first, _)| *first != from);
        if (live && !holder) || queued_ahead {
            match self.waiting.iter_mut().find(|(host, _)| *host == from) {
                Some(entry) => entry.1 = ask,
                None => self.waiting.push((from, ask)),
            }
            let (holder, expires_ns) = (self.grant.holder, self.grant.expires_ns);
            let ahead = self
                .waiting
                .iter()
                .position(|(host, _)| *host == from)
                .unwrap_or(0);
            let line = match ahead {
                0 => "first in line".to_string(),
                ahead => format!("behind {ahead}"),
            };
            out.event(
                hosts.now_ns(),
                coordinator,
                HostEventKind::Waits,
                now,
                |names| {
                    let why = match holder {
                        Some(holder) if live => format!(
                            "{} holds it for {} more by this clock",
                            names.of(holder),
                            ticklab_sim::Compact(expires_ns - now)
                        ),
                        _ => "it lapsed, and goes to who waited longest".to_string(),
                    };
                    format!(
                        "{} asks for the lease and waits, {line}: {why}",
                        names.of(from)
                    )
                },
                None,
            );
            if queued_ahead {
                let (first, first_ask) = self.waiting[0];
                self.grant_to(first, first_ask, now, hosts, out);
            }
            self.watch_expiry(hosts);
            return;
        }
        self.grant_to(from, ask, now, hosts, out);
        self.watch_expiry(hosts);
    }

    /// With candidates waiting, the coordinator checks the lease when it runs out by its clock.
    fn watch_expiry(&mut self, hosts: &mut Hosts<'_, Lease>) {
        if self.waiting.is_empty() || self.expiry_check.is_some() {
            return;
        }
        let coordinator = self.config.coordinator;
        let tag = LeaseWake::Expire;
        let at = self.grant.expires_ns;
        self.expiry_check = Some(hosts.wake_at(coordinator, self.clocks[coordinator], at, tag));
    }

    /// The coordinator's check at the lease's end: still unrenewed, it goes to the first waiter.
    pub(super) fn expire(&mut self, hosts: &mut Hosts<'_, Lease>, out: &mut Out<'_>) {
        self.expiry_check = None;
        let coordinator = self.config.coordinator;
        let now = hosts.read(coordinator, self.clocks[coordinator]);
        if now >= self.grant.expires_ns && !self.waiting.is_empty() {
            let (host, ask) = self.waiting[0];
            self.grant_to(host, ask, now, hosts, out);
        }
        // Renewed meanwhile, or handed on with others still waiting: look again at its end.
        self.watch_expiry(hosts);
    }

    fn grant_to(
        &mut self,
        host: HostId,
        ask: u64,
        now: i64,
        hosts: &mut Hosts<'_, Lease>,
        out: &mut Out<'_>,
    ) {
        let coordinator = self.config.coordinator;
        self.waiting.retain(|(waiter, _)| *waiter != host);
        let grant = &mut self.grant;
        if grant.holder != Some(host) || now >= grant.expires_ns {
            grant.token += 1;
            grant.holder = Some(host);
            if grant.last_holder != Some(host) {
                if grant.last_holder.is_some() {
                    self.values.takeovers += 1;
                    let now_ns = hosts.now_ns();
                    self.values.first_takeover_ns.get_or_insert(now_ns);
                    self.values.last_takeover_ns = Some(now_ns);
                }
                let token = grant.token;
                out.event(
                    hosts.now_ns(),
                    coordinator,
                    HostEventKind::LeaseGranted,
                    now,
                    |names| format!("grants the lease to {} with token {token}", names.of(host)),
                    None,
                );
                grant.last_holder = Some(host);
            }
        } else {
            let until = ticklab_sim::Compact(now.saturating_add(self.config.length_ns as i64));
            out.event(
                hosts.now_ns(),
                coordinator,
                HostEventKind::Renewed,
                now,
                |names| {
                    format!(
                        "renews {}'s lease until this clock reads {until}",
                        names.of(host)
                    )
                },
                None,
            );
        }
        grant.expires_ns = now.saturating_add(self.config.length_ns as i64);
        self.values.granted += 1;
        let token = grant.token;
        hosts.send(coordinator, host, LeaseMsg::Granted { ask, token });
    }

    /// Storage takes a write; it is stale if the coordinator has not granted its sender the
    /// lease, or that grant has run out by the coordinator's clock.
    pub(super) fn write(
        &mut self,
        from: HostId,
        token: u64,
        hosts: &mut Hosts<'_, Lease>,
        out: &mut Out<'_>,
    ) {
        let coordinator = self.config.coordinator;
        let now = hosts.read(coordinator, self.clocks[coordinator]);
        let current = self.grant.holder == Some(from)
            && self.grant.token == token
            && now < self.grant.expires_ns;
        let storage = self.config.storage;
        let clock_ns = hosts.read(storage, self.clocks[storage]);
        if self.config.fencing && token < self.newest_token_seen {
            self.values.stale_rejected += 1;
            let newest = self.newest_token_seen;
            out.event(
                hosts.now_ns(),
                storage,
                HostEventKind::Fenced,
                clock_ns,
                |names| {
                    format!(
                        "refuses a write from {} with token {token}: it has seen {newest}",
                        names.of(from)
                    )
                },
                None,
            );
            return;
        }
        self.newest_token_seen = self.newest_token_seen.max(token);
        self.values.writes += 1;
        if !current {
            self.values.stale_accepted += 1;
            out.event(hosts.now_ns(), storage, HostEventKind::StaleWrite, clock_ns, |names| {
                format!("accepts a write from {} with token {token}, which no longer holds the lease", names.of(from))
            }, None);
            out.violation(hosts.now_ns(), || {
                format!("storage accepted a stale write with token {token}")
            });
        }
    }
}
