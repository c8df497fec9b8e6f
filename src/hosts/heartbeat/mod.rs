//! A heartbeat failure detector. Every host sends a heartbeat every `every` (on its `Instant`)
//! to the next `peers` hosts, and suspects a peer it has not heard from for `suspect_after` on
//! the detector's clock. After a system suspend, a detector whose clock counts the suspend finds
//! every peer silent for that long and suspects them all at once; one whose clock stopped does
//! not notice the gap.
//!
//! A suspicion is false when the suspected peer was running at the time. A peer that stops (its
//! system asleep or its process frozen) is detected when a watcher suspects it while stopped, or
//! already suspects it as it stops. What must eventually happen: one stopped for longer than
//! `suspect_after`, a heartbeat and the slowest link is suspected by someone; one that no watcher
//! suspects is missed, and the run reports it as a broken invariant.

mod spec;
mod workload;

pub(crate) use spec::DEFAULT_PEERS;
pub use spec::HeartbeatConfig;
pub(crate) use spec::validate;

use ticklab_sim::{ClockId, EdgeEffect, Platform};

use super::event_kind::HostEventKind;
use super::out::Out;
use super::workload::{HostId, Hosts, WakeId};

/// A heartbeat, naming the watch its receiver keeps of its sender: at thousands of hosts,
/// looking the watch up on arrival is one more cache miss per heartbeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Beat {
    pub(crate) watch: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BeatWake {
    /// Time to send the next heartbeats.
    Send,
    /// The detector checks its watch number `watch` of every host's watches.
    Check { watch: u32 },
}

/// One host's view of one peer it watches.
#[derive(Debug)]
struct Watch {
    peer: HostId,
    last_heard_ns: i64,
    suspected: bool,
    check: Option<WakeId>,
}

/// Every host's watches, in one list: a heartbeat's arrival looks its watch up, and at
/// thousands of hosts a list per host would be one more cache miss on each.
#[derive(Debug)]
struct Watches {
    /// Where each host's watches begin in `all`; one more entry marks the end.
    first: Vec<u32>,
    all: Vec<Watch>,
}

impl Watches {
    fn new(by_host: Vec<Vec<Watch>>) -> Self {
        let mut first = Vec::with_capacity(by_host.len() + 1);
        let mut all = Vec::new();
        for watches in by_host {
            first.push(all.len() as u32);
            all.extend(watches);
        }
        first.push(all.len() as u32);
        Watches { first, all }
    }

    fn range(&self, host: HostId) -> std::ops::Range<usize> {
        self.first[host] as usize..self.first[host + 1] as usize
    }
}

impl std::ops::Index<HostId> for Watches {
    type Output = [Watch];

    fn index(&self, host: HostId) -> &[Watch] {
        &self.all[self.range(host)]
    }
}

impl std::ops::IndexMut<HostId> for Watches {
    fn index_mut(&mut self, host: HostId) -> &mut [Watch] {
        let range = self.range(host);
        &mut self.all[range]
    }
}

#[derive(Debug, Default)]
struct PeerHealth {
    down_since_ns: Option<u64>,
    detected: bool,
}

#[derive(Debug)]
pub(crate) struct Heartbeat {
    config: HeartbeatConfig,
    clocks: Vec<ClockId>,
    instants: Vec<ClockId>,
    /// Whom each host sends to, and the watch each of them keeps of it.
    targets: Vec<Vec<(HostId, Beat)>>,
    watches: Watches,
    health: Vec<PeerHealth>,
    sent: u64,
    suspicions: u64,
    false_suspicions: u64,
    detected: u64,
    missed: u64,
    max_detection_ns: u64,
    first_false_ns: Option<u64>,
    /// How long a host may be down before a detector must have suspected it: the silence it
    /// waits for, a heartbeat's period (the last one may have left just before the host
    /// stopped), and the slowest link.
    noticeable_ns: u64,
}

impl Heartbeat {
    pub(crate) fn new(
        config: &HeartbeatConfig,
        platforms: &[Platform],
        longest_latency_ns: u64,
    ) -> Self {
        let n = config.hosts.len();
        let mut targets = vec![Vec::new(); platforms.len()];
        let mut watches: Vec<Vec<Watch>> = platforms.iter().map(|_| Vec::new()).collect();
        for (position, &host) in config.hosts.iter().enumerate() {
            for step in 1..=config.peers {
                let peer = config.hosts[(position + step) % n];
                targets[host].push((peer, watches[peer].len()));
                watches[peer].push(Watch {
                    peer: host,
                    last_heard_ns: 0,
                    suspected: false,
                    check: None,
                });
            }
        }
        let watches = Watches::new(watches);
        let targets = targets
            .into_iter()
            .map(|peers| {
                let beat = |(peer, nth): (HostId, usize)| Beat {
                    watch: (watches.range(peer).start + nth) as u32,
                };
                peers
                    .into_iter()
                    .map(|target| (target.0, beat(target)))
                    .collect()
            })
            .collect();
        Heartbeat {
            config: config.clone(),
            clocks: platforms.iter().map(|p| config.clock.on(*p)).collect(),
            instants: platforms.iter().map(|p| p.instant_clock()).collect(),
            targets,
            watches,
            health: platforms.iter().map(|_| PeerHealth::default()).collect(),
            sent: 0,
            suspicions: 0,
            false_suspicions: 0,
            detected: 0,
            missed: 0,
            max_detection_ns: 0,
            first_false_ns: None,
            noticeable_ns: config
                .suspect_after_ns
                .saturating_add(config.every_ns)
                .saturating_add(longest_latency_ns),
        }
    }

    pub(crate) fn start(&mut self, hosts: &mut Hosts<'_, Self>) {
        for host in self.config.hosts.clone() {
            let now = hosts.read(host, self.instants[host]);
            hosts.wake_at(host, self.instants[host], now, BeatWake::Send);
            for watch in self.watches.range(host) {
                // Every peer counts as just heard from when the run starts.
                self.watches.all[watch].last_heard_ns = hosts.read(host, self.clocks[host]);
                self.arm(host, watch, hosts);
            }
        }
    }

    /// Files the check of `host`'s watch number `index` (of every host's) for when its peer
    /// will have been silent too long.
    fn arm(&mut self, host: HostId, index: usize, hosts: &mut Hosts<'_, Self>) {
        let watch = &mut self.watches.all[index];
        if let Some(check) = watch.check.take() {
            hosts.cancel(check);
        }
        let at = watch
            .last_heard_ns
            .saturating_add(self.config.suspect_after_ns as i64);
        let tag = BeatWake::Check {
            watch: index as u32,
        };
        watch.check = Some(hosts.wake_at(host, self.clocks[host], at, tag));
    }

    pub(crate) fn on_wake(
        &mut self,
        host: HostId,
        wake: BeatWake,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        match wake {
            BeatWake::Send => {
                for &(peer, beat) in &self.targets[host] {
                    hosts.send(host, peer, beat);
                    self.sent += 1;
                }
                let next = hosts
                    .read(host, self.instants[host])
                    .saturating_add(self.config.every_ns as i64);
                hosts.wake_at(host, self.instants[host], next, BeatWake::Send);
            }
            BeatWake::Check { watch: index } => {
                let index = index as usize;
                self.watches.all[index].check = None;
                let now = hosts.read(host, self.clocks[host]);
                let watch = &self.watches.all[index];
                let silent_ns = now.saturating_sub(watch.last_heard_ns);
                let suspect_after_ns = self.config.suspect_after_ns as i64;
                if silent_ns < suspect_after_ns {
                    self.arm(host, index, hosts);
                    return;
                }
                // Silent long enough: the check is not armed again until the peer is heard.
                if !watch.suspected && self.config.detector.suspects(silent_ns, suspect_after_ns) {
                    self.suspect(host, index, silent_ns, now, hosts, out);
                }
            }
        }
    }

    fn suspect(
        &mut self,
        host: HostId,
        index: usize,
        silent_ns: i64,
        now: i64,
        hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        let peer = self.watches.all[index].peer;
        self.watches.all[index].suspected = true;
        self.suspicions += 1;
        let now_ns = hosts.now_ns();
        let health = &mut self.health[peer];
        let (kind, verdict) = match health.down_since_ns {
            None => {
                self.false_suspicions += 1;
                self.first_false_ns.get_or_insert(now_ns);
                let verdict = false_verdict(hosts, host, peer);
                (HostEventKind::FalseSuspect, verdict)
            }
            Some(since_ns) => {
                if !health.detected {
                    health.detected = true;
                    self.detected += 1;
                    self.max_detection_ns = self.max_detection_ns.max(now_ns - since_ns);
                }
                (
                    HostEventKind::Suspects,
                    format!(
                        "rightly: it stopped {} ago",
                        ticklab_sim::Approx(now_ns - since_ns)
                    ),
                )
            }
        };
        out.event(
            hosts.now_ns(),
            host,
            kind,
            now,
            |names| {
                format!(
                    "suspects {}, silent for {} by its {} clock, {verdict}",
                    names.of(peer),
                    ticklab_sim::Approx(silent_ns.max(0) as u64),
                    self.config.clock.name()
                )
            },
            None,
        );
    }

    pub(crate) fn on_message(
        &mut self,
        (from, to): (HostId, HostId),
        beat: Beat,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        let index = beat.watch as usize;
        debug_assert_eq!(self.watches.all[index].peer, from, "a beat names its watch");
        let now = hosts.read(to, self.clocks[to]);
        let watch = &mut self.watches.all[index];
        watch.last_heard_ns = now;
        if watch.suspected {
            watch.suspected = false;
            out.event(
                hosts.now_ns(),
                to,
                HostEventKind::Trusts,
                now,
                |names| format!("hears from {} again", names.of(from)),
                None,
            );
        }
        // A check still armed finds the peer heard from when it comes due, and arms itself
        // again for the new silence: filing a fresh one per heartbeat would leave the queue
        // a stale check per heartbeat, which at thousands of hosts is most of what it holds.
        if self.watches.all[index].check.is_none() {
            self.arm(to, index, hosts);
        }
    }

    pub(crate) fn on_host_edge(
        &mut self,
        host: HostId,
        effect: EdgeEffect,
        hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        // The hosts a host sends to are those that watch it; one nobody watches is nobody's to
        // detect.
        if self.targets[host].is_empty() {
            return;
        }
        let now_ns = hosts.now_ns();
        // A watcher that already suspects the host as it stops has detected it.
        let suspected = self.targets[host]
            .iter()
            .any(|&(_, beat)| self.watches.all[beat.watch as usize].suspected);
        if effect.stopped {
            let health = &mut self.health[host];
            health.down_since_ns = Some(now_ns);
            health.detected = suspected;
            self.detected += u64::from(suspected);
        }
        if effect.resumed_after_ns.is_some() {
            self.close_outage(host, now_ns, hosts, out);
        }
    }

    /// A host's outage ends now: a detector must have suspected it if one of its watchers ran
    /// long enough to notice. One that went unnoticed is a broken invariant; one no watcher
    /// could see (they were down too, or had only just come back) is nobody's fault.
    fn close_outage(
        &mut self,
        host: HostId,
        now_ns: u64,
        hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        let health = &mut self.health[host];
        let Some(since_ns) = health.down_since_ns.take() else {
            return;
        };
        let down_ns = now_ns - since_ns;
        let noticeable_ns = self.noticeable_ns;
        // Held heartbeats reach a watcher as it thaws, so its silence counts from then.
        let some_watcher_could = self.targets[host].iter().any(|&(watcher, _)| {
            hosts.running_since_ns(watcher).is_some_and(|running_ns| {
                now_ns.saturating_sub(running_ns.max(since_ns)) > noticeable_ns
            })
        });
        if health.detected || !some_watcher_could {
            return;
        }
        self.missed += 1;
        let noticeable_ns = self.noticeable_ns;
        let name = out.name_of(host).to_string();
        out.violation(now_ns, || {
            format!(
                "{name} was down for {} from {} and no detector suspected it, though one must \
                 within {} (suspect_after, a heartbeat and the slowest link)",
                ticklab_sim::Approx(down_ns),
                ticklab_sim::Secs(since_ns),
                ticklab_sim::Approx(noticeable_ns)
            )
        });
    }

    /// The metrics of [`super::HEARTBEAT_METRICS`], by name.
    pub(crate) fn finish(
        &mut self,
        end_ns: u64,
        hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)> {
        for host in self.config.hosts.clone() {
            self.close_outage(host, end_ns, hosts, out);
        }
        vec![
            ("heartbeats_sent", self.sent),
            ("suspicions", self.suspicions),
            ("false_suspicions", self.false_suspicions),
            ("failures_detected", self.detected),
            ("failures_missed", self.missed),
            ("max_detection_time", self.max_detection_ns),
            (
                "first_false_suspicion",
                self.first_false_ns.unwrap_or(super::NOT_YET),
            ),
        ]
    }
}

/// Why a suspicion of a running `peer` by `host` was false, as far as the machines say: a peer
/// that runs but is behind on its heartbeat work, and a watcher that hears late what was sent on
/// time because it is behind itself.
fn false_verdict(hosts: &Hosts<'_, Heartbeat>, host: HostId, peer: HostId) -> String {
    let waiting = |pieces: usize| match pieces {
        1 => "1 piece of heartbeat work waiting for its thread".to_string(),
        pieces => format!("{pieces} pieces of heartbeat work waiting for its thread"),
    };
    let mut verdict = match hosts.work_waiting(peer, workload::THREAD) {
        0 => "falsely: it is running".to_string(),
        behind => format!("falsely: it is running, with {}", waiting(behind)),
    };
    let own = hosts.work_waiting(host, workload::THREAD);
    if own > 0 {
        verdict.push_str(&format!(
            "; this host is behind itself, with {}",
            waiting(own)
        ));
    }
    verdict
}
