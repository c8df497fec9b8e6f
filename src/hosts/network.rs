//! The network between hosts: a latency range per link, spikes that raise it for a while, and
//! partitions that drop every message between two hosts until they are repaired.

use ticklab_sim::{Compact, SimRng};
use toml::Spanned;

use super::spec::{Carrier, HostNames};
use crate::hosts::keys::HostsSpec;
use crate::scenario::error::ScenarioError;
use crate::scenario::values::{DurationNs, DurationOrRange};

/// One way, when the file sets none: a datacentre's few milliseconds.
pub(super) const DEFAULT_LATENCY_NS: (u64, u64) = (1_000_000, 5_000_000);
/// Any one message takes at most this long; longer is a partition.
const MAX_LATENCY_NS: u64 = 3_600 * 1_000_000_000;

/// Two hosts, or one host and every other (`"*"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub a: usize,
    pub b: Option<usize>,
}

impl Pair {
    /// The pairs of hosts it names, among `hosts` hosts.
    pub fn pairs(self, hosts: usize) -> Vec<(usize, usize)> {
        match self.b {
            Some(b) => vec![(self.a, b)],
            None => (0..hosts)
                .filter(|&other| other != self.a)
                .map(|other| (self.a, other))
                .collect(),
        }
    }

    fn joins(self, from: usize, to: usize) -> bool {
        match self.b {
            Some(b) => (from == self.a && to == b) || (from == b && to == self.a),
            None => from == self.a || to == self.a,
        }
    }
}

/// A stretch of physical time in which something holds between a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub pair: Pair,
    pub at_ns: u64,
    /// `u64::MAX`: never repaired.
    pub end_ns: u64,
    /// For spikes: the latency range meanwhile.
    pub latency_ns: (u64, u64),
}

impl Window {
    fn covers(&self, from: usize, to: usize, at_ns: u64) -> bool {
        self.at_ns <= at_ns && at_ns < self.end_ns && self.pair.joins(from, to)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkConfig {
    pub latency_ns: (u64, u64),
    pub links: Vec<(Pair, (u64, u64))>,
    pub partitions: Vec<Window>,
    pub spikes: Vec<Window>,
}

impl NetworkConfig {
    /// The longest any message may take: the slowest of the network's, every link's and every
    /// spike's latencies.
    pub fn longest_latency_ns(&self) -> u64 {
        self.links
            .iter()
            .map(|(_, range)| range.1)
            .chain(self.spikes.iter().map(|spike| spike.latency_ns.1))
            .fold(self.latency_ns.1, u64::max)
    }
}

pub(crate) fn validate_network(
    names: &HostNames<'_>,
    spec: &HostsSpec,
    run_for_ns: u64,
    carrier: Carrier,
) -> Result<NetworkConfig, ScenarioError> {
    let latency_range = |latency: &Spanned<DurationOrRange>| latency_range(names, latency, carrier);
    let latency_ns = match &spec.latency {
        None => DEFAULT_LATENCY_NS,
        Some(latency) => latency_range(latency)?,
    };
    let links = spec
        .link
        .iter()
        .map(|link| {
            let link = link.get_ref();
            Ok((pair(names, &link.between)?, latency_range(&link.latency)?))
        })
        .collect::<Result<Vec<_>, ScenarioError>>()?;
    let mut partitions = Vec::new();
    for partition in &spec.partition {
        let partition = partition.get_ref();
        let at_ns = starts(names, &partition.at, run_for_ns)?;
        let end_ns = match &partition.duration {
            None => u64::MAX,
            Some(duration) => at_ns.saturating_add(lasts(names, duration)?),
        };
        partitions.push(Window {
            pair: pair(names, &partition.between)?,
            at_ns,
            end_ns,
            latency_ns: (0, 0),
        });
    }
    let mut spikes = Vec::new();
    for spike in &spec.spike {
        let spike = spike.get_ref();
        let at_ns = starts(names, &spike.at, run_for_ns)?;
        spikes.push(Window {
            pair: pair(names, &spike.between)?,
            at_ns,
            end_ns: at_ns.saturating_add(lasts(names, &spike.duration)?),
            latency_ns: latency_range(&spike.latency)?,
        });
    }
    Ok(NetworkConfig {
        latency_ns,
        links,
        partitions,
        spikes,
    })
}

fn pair(
    names: &HostNames<'_>,
    between: &Spanned<Vec<Spanned<String>>>,
) -> Result<Pair, ScenarioError> {
    let hint = "`between` names two hosts, such as [\"leader\", \"coordinator\"], or one host and \"*\" for every other";
    let [a, b] = between.get_ref().as_slice() else {
        return Err(names
            .error(between.span(), "`between` takes exactly two names")
            .with_hint(hint));
    };
    let a_index = names.resolve(a)?;
    if b.get_ref() == "*" {
        return Ok(Pair {
            a: a_index,
            b: None,
        });
    }
    let b_index = names.resolve(b)?;
    if a_index == b_index {
        return Err(names
            .error(between.span(), "a host has no link to itself")
            .with_hint(hint));
    }
    Ok(Pair {
        a: a_index,
        b: Some(b_index),
    })
}

/// A latency as written: one way's, or a range. On turmoil, at least a tick: turmoil moves a
/// message once a tick, so a shorter one would take a whole tick all the same.
fn latency_range(
    names: &HostNames<'_>,
    latency: &Spanned<DurationOrRange>,
    carrier: Carrier,
) -> Result<(u64, u64), ScenarioError> {
    let (low, high) = match *latency.get_ref() {
        DurationOrRange::Fixed(ns) => (ns.0, ns.0),
        DurationOrRange::Range(low, high) => (low.0, high.0),
    };
    if low > high || high > MAX_LATENCY_NS {
        return Err(names
            .error(
                latency.span(),
                "a latency range goes from its shortest to its longest, at most an hour",
            )
            .with_hint(
                "write one way's latency, such as \"2ms\", or a range such as [\"1ms\", \"5ms\"]",
            ));
    }
    if let Carrier::Turmoil { tick_ns } = carrier
        && low < tick_ns
    {
        let tick = Compact(tick_ns as i64);
        let hint = if low >= 1_000_000 {
            format!(
                "set `tick` to {} or less (whole milliseconds), or use network = \"events\", \
                 which takes any latency",
                Compact((low - low % 1_000_000) as i64)
            )
        } else {
            "turmoil's shortest tick is 1ms: use network = \"events\", which takes any latency, or \
             a latency of 1ms or more"
                .to_string()
        };
        return Err(names
            .error(
                latency.span(),
                format!(
                    "a latency of {} is shorter than turmoil's tick of {tick}",
                    Compact(low as i64)
                ),
            )
            .with_hint(hint));
    }
    Ok((low, high))
}

fn starts(
    names: &HostNames<'_>,
    at: &Spanned<DurationNs>,
    run_for_ns: u64,
) -> Result<u64, ScenarioError> {
    let at_ns = at.get_ref().0;
    if at_ns >= run_for_ns {
        return Err(names
            .error(at.span(), "this starts after the run has ended")
            .with_hint("network faults must start before `run_for`"));
    }
    Ok(at_ns)
}

fn lasts(names: &HostNames<'_>, duration: &Spanned<DurationNs>) -> Result<u64, ScenarioError> {
    match duration.get_ref().0 {
        0 => Err(names
            .error(
                duration.span(),
                "a network fault's duration must be more than zero",
            )
            .with_hint("give it a duration such as \"10s\", or remove it")),
        ns => Ok(ns),
    }
}

/// The network as a run sees it: what a message between two hosts takes, drawn from the run's
/// seed.
#[derive(Debug)]
pub(crate) struct Network {
    config: NetworkConfig,
    rng: SimRng,
}

impl Network {
    pub(crate) fn new(config: &NetworkConfig, seed: u64) -> Self {
        Network {
            config: config.clone(),
            rng: SimRng::for_purpose(seed, "hosts-latency"),
        }
    }

    pub(crate) fn partitioned(&self, from: usize, to: usize, at_ns: u64) -> bool {
        self.config
            .partitions
            .iter()
            .any(|window| window.covers(from, to, at_ns))
    }

    /// The partition that keeps `from` and `to` apart longest from `at_ns`, if one does: its
    /// index and when it is repaired.
    pub(crate) fn cut_by(&self, from: usize, to: usize, at_ns: u64) -> Option<(usize, u64)> {
        self.config
            .partitions
            .iter()
            .enumerate()
            .filter(|(_, window)| window.covers(from, to, at_ns))
            .max_by_key(|&(index, window)| (window.end_ns, std::cmp::Reverse(index)))
            .map(|(index, window)| (index, window.end_ns))
    }

    /// How long a message sent now from `from` to `to` takes; a spike under way wins over the
    /// link's own range, and that over the network's.
    pub(crate) fn draw_latency_ns(&mut self, from: usize, to: usize, now_ns: u64) -> u64 {
        let (low, high) = self.range_at(from, to, now_ns);
        self.rng.in_range(low, high)
    }

    /// The latency range between `from` and `to` at `now_ns`: the latest spike under way, else
    /// the last link written for the pair, either way round, else the network's.
    pub(crate) fn range_at(&self, from: usize, to: usize, now_ns: u64) -> (u64, u64) {
        let spiked = self
            .config
            .spikes
            .iter()
            .rev()
            .find(|window| window.covers(from, to, now_ns))
            .map(|window| window.latency_ns);
        let linked = || {
            self.config
                .links
                .iter()
                .rev()
                .find(|(pair, _)| pair.joins(from, to))
                .map(|(_, range)| *range)
        };
        spiked.or_else(linked).unwrap_or(self.config.latency_ns)
    }

    /// Every partition and spike edge, to trace: (time, begins, is a partition, index).
    pub(crate) fn edges(&self, run_for_ns: u64) -> Vec<(u64, bool, bool, usize)> {
        let mut edges = Vec::new();
        for (windows, is_partition) in [
            (&self.config.partitions, true),
            (&self.config.spikes, false),
        ] {
            for (index, window) in windows.iter().enumerate() {
                edges.push((window.at_ns, true, is_partition, index));
                if window.end_ns < run_for_ns {
                    edges.push((window.end_ns, false, is_partition, index));
                }
            }
        }
        edges.sort_by_key(|&(at_ns, begins, _, _)| (at_ns, !begins));
        edges
    }

    pub(crate) fn window(&self, is_partition: bool, index: usize) -> &Window {
        if is_partition {
            &self.config.partitions[index]
        } else {
            &self.config.spikes[index]
        }
    }
}
