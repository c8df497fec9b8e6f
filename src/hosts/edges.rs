//! The trace lines of what happens to hosts and links: a host's fault edges, with the host
//! named, and partitions and spikes beginning and ending.

use std::io;

use ticklab_sim::{ClockId, EdgeEffect, FaultEdge};

use super::cluster::{Cluster, HostId};
use super::network::Window;
use crate::runner::faults::record_edge;
use crate::trace::{Event, FaultEvent, TraceSink, Wall};

/// Numbers every fault of a hosts scenario once: each host's in host order, then the partitions,
/// then the latency spikes. Hosts number their own faults from 0, and a plot or a reader tells
/// two faults apart by their number.
#[derive(Debug)]
pub(crate) struct FaultNumbers {
    /// Each host's first fault's number.
    host_first: Vec<usize>,
    partitions_first: usize,
    spikes_first: usize,
}

impl FaultNumbers {
    pub(crate) fn new(faults_per_host: impl Iterator<Item = usize>, partitions: usize) -> Self {
        let mut host_first = Vec::new();
        let mut next = 0;
        for faults in faults_per_host {
            host_first.push(next);
            next += faults;
        }
        FaultNumbers {
            host_first,
            partitions_first: next,
            spikes_first: next + partitions,
        }
    }

    fn of_host(&self, host: HostId, index: usize) -> usize {
        self.host_first[host] + index
    }

    fn of_window(&self, is_partition: bool, index: usize) -> usize {
        let first = if is_partition {
            self.partitions_first
        } else {
            self.spikes_first
        };
        first + index
    }
}

/// What a run's fault lines need beyond the moment: the hosts' names, every fault's number, and
/// when the run ends.
#[derive(Debug)]
pub(crate) struct EdgeLines {
    pub(crate) names: std::rc::Rc<[String]>,
    pub(crate) numbers: FaultNumbers,
    pub(crate) run_for_ns: u64,
}

impl EdgeLines {
    /// Traces a host's fault edge, as a one-machine run traces its own, with the host named.
    pub(crate) fn host(
        &self,
        cluster: &Cluster,
        host: HostId,
        edge: &FaultEdge,
        effect: &EdgeEffect,
        sink: &mut dyn TraceSink,
    ) -> io::Result<()> {
        let names = &self.names;
        if !sink.wants_events() {
            return Ok(());
        }
        let instant_ns = cluster.instant_ns(host);
        let wall = Wall(cluster.read(host, ClockId::Wall));
        let fault = FaultEvent {
            t_ns: cluster.now_ns(),
            fault: self.numbers.of_host(host, edge.fault_index),
            kind: edge.fault.kind().name(),
            what: format!("{}: {}", names[host], edge.fault),
            host: Some(names[host].clone()),
            instant_ns,
            wall,
        };
        record_edge(edge.edge, &fault, effect.resumed_after_ns, sink)
    }

    /// Traces a partition or latency spike beginning or ending.
    pub(crate) fn network(
        &self,
        cluster: &Cluster,
        begins: bool,
        is_partition: bool,
        index: usize,
        sink: &mut dyn TraceSink,
    ) -> io::Result<()> {
        let (names, numbers, run_for_ns) = (&self.names, &self.numbers, self.run_for_ns);
        if !sink.wants_events() {
            return Ok(());
        }
        let window = cluster.network.window(is_partition, index);
        let other = window
            .pair
            .b
            .map_or("every other host", |b| names[b].as_str());
        let between = format!("{} and {other}", names[window.pair.a]);
        let lasts = if window.end_ns >= run_for_ns {
            " until the end".to_string()
        } else {
            format!(
                " for {}",
                ticklab_sim::Compact((window.end_ns - window.at_ns) as i64)
            )
        };
        let what = match (is_partition, begins) {
            (true, true) => format!("partition between {between}{lasts}"),
            (true, false) => self.partition_end(cluster, &between, window),
            (false, true) => format!(
                "latency between {between} rises to {}{lasts}",
                range_text(window.latency_ns)
            ),
            // Another spike may still hold, or a link of the pair's own: say what holds now.
            (false, false) => match window.pair.b {
                Some(b) => {
                    let range = cluster.network.range_at(window.pair.a, b, cluster.now_ns());
                    format!(
                        "latency between {between} falls back to {}",
                        range_text(range)
                    )
                }
                None => format!(
                    "latency between {between} falls back to each pair's own range, or a spike still \
                     under way"
                ),
            },
        };
        let fault = FaultEvent {
            t_ns: cluster.now_ns(),
            fault: numbers.of_window(is_partition, index),
            kind: if is_partition {
                "partition"
            } else {
                "latency-spike"
            },
            what,
            host: None,
            instant_ns: cluster.now_ns() as i64,
            wall: Wall(cluster.read(window.pair.a, ClockId::Wall)),
        };
        if begins {
            sink.record(&Event::FaultBegin(&fault))
        } else {
            sink.record(&Event::FaultEnd(&fault))
        }
    }
}

impl EdgeLines {
    /// What a partition's end leaves: the link repaired, or still cut by another partition of
    /// the same hosts that began before this one ended.
    fn partition_end(&self, cluster: &Cluster, between: &str, window: &Window) -> String {
        let now_ns = cluster.now_ns();
        let pairs = window.pair.pairs(self.names.len());
        let mut cut = 0;
        let mut by: Vec<(usize, u64)> = Vec::new();
        for &(a, b) in &pairs {
            if let Some(cover) = cluster.network.cut_by(a, b, now_ns) {
                cut += 1;
                if !by.contains(&cover) {
                    by.push(cover);
                }
            }
        }
        if cut == 0 {
            return format!("partition between {between} repaired");
        }
        by.sort_unstable();
        let by: Vec<String> = by
            .iter()
            .map(|&(index, end_ns)| {
                let until = if end_ns >= self.run_for_ns {
                    "the end".to_string()
                } else {
                    ticklab_sim::Compact(end_ns as i64).to_string()
                };
                format!(
                    "partition {} until {until}",
                    self.numbers.of_window(true, index)
                )
            })
            .collect();
        let which = match (pairs.len(), cut) {
            (1, _) => "the link is".to_string(),
            (all, cut) if all == cut => "its links are".to_string(),
            (all, 1) => format!("1 of its {all} links is"),
            (all, cut) => format!("{cut} of its {all} links are"),
        };
        format!(
            "partition between {between} ends, but {which} still cut by {}",
            by.join(" and ")
        )
    }
}

/// A latency range as written in a scenario: `2ms`, or `1ms-5ms`.
fn range_text((low_ns, high_ns): (u64, u64)) -> String {
    let low = ticklab_sim::Compact(low_ns as i64);
    if low_ns == high_ns {
        return low.to_string();
    }
    format!("{low}-{}", ticklab_sim::Compact(high_ns as i64))
}
