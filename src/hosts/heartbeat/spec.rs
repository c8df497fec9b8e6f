//! The `[model.heartbeat]` table.

use ticklab_models::detector::Detector;
use toml::Spanned;

use super::super::spec::{HostClock, HostNames, positive_ns};
use super::super::workload::HostId;
use crate::hosts::keys::workloads::HeartbeatSpec;
use crate::scenario::error::ScenarioError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeartbeatConfig {
    pub every_ns: u64,
    pub suspect_after_ns: u64,
    pub clock: HostClock,
    /// Each host sends to this many next hosts, and watches as many before it.
    pub peers: usize,
    pub hosts: Vec<HostId>,
    /// How a watcher decides to suspect a silent peer.
    pub detector: Detector,
    /// CPU each heartbeat sent, received or checked takes its thread, on a host with a
    /// `[machine]`.
    pub cpu_ns: u64,
}

pub(crate) const DEFAULT_PEERS: i64 = 3;

pub(crate) fn validate(
    names: &HostNames<'_>,
    spec: &Spanned<HeartbeatSpec>,
) -> Result<HeartbeatConfig, ScenarioError> {
    let heartbeat = spec.get_ref();
    let every_ns = positive_ns(
        names,
        &heartbeat.every,
        "every",
        "how often a host sends its heartbeat, such as \"1s\"",
    )?;
    let suspect_after_ns = positive_ns(
        names,
        &heartbeat.suspect_after,
        "suspect_after",
        "how long a silent peer takes to be suspected, such as \"5s\"",
    )?;
    if suspect_after_ns <= every_ns {
        return Err(names
            .error(heartbeat.suspect_after.span(), "`suspect_after` must be longer than `every`")
            .with_hint("a detector waits for a few missed heartbeats: three to five times `every` is usual"));
    }
    let hosts = match &heartbeat.hosts {
        None => (0..names.len()).collect(),
        Some(list) => {
            let mut hosts = Vec::new();
            for name in list.get_ref() {
                let host = names.resolve(name)?;
                if hosts.contains(&host) {
                    return Err(names
                        .error(name.span(), "a host is listed twice")
                        .with_hint("list each host that sends heartbeats once"));
                }
                hosts.push(host);
            }
            if hosts.len() < 2 {
                return Err(names
                    .error(list.span(), "heartbeats need at least two hosts")
                    .with_hint("list the hosts that watch each other, or leave `hosts` out for all of them"));
            }
            hosts
        }
    };
    let peers = crate::scenario::numbers::optional_whole(
        names.file(),
        &heartbeat.peers,
        "peers",
        1..=64,
        DEFAULT_PEERS,
        "each host sends to this many others, such as 3",
    )? as usize;
    Ok(HeartbeatConfig {
        every_ns,
        suspect_after_ns,
        clock: heartbeat.clock.map_or(HostClock::Instant, |clock| clock.0),
        peers: peers.min(hosts.len() - 1),
        hosts,
        detector: heartbeat
            .detector
            .map_or(Detector::Timeout, |detector| detector.0),
        cpu_ns: names.cpu_ns(&heartbeat.cpu, "[model.heartbeat]")?,
    })
}
