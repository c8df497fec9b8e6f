//! What a run keeps for its picture: each host's faults and wall steps, its clocks on either
//! side of every fault edge, and the network's partitions and spikes.
//!
//! Between two edges a host's clocks run at its crystal's rate (or a slew's), so readings at the
//! start, on both sides of each edge and at the end draw every clock exactly as straight lines.

use ticklab_sim::{Edge, FaultEdge};

use super::clockwork::Reading;

/// One fault of a host that lasts (a suspend, a freeze, a slew, a sleep that held its thread),
/// as every picture draws a fault band.
pub(crate) use crate::plot::collect::Band;

/// A partition or latency spike, with the hosts it struck (`None`: every other host).
#[derive(Clone, Debug)]
pub(crate) struct NetworkBand {
    pub(crate) kind: &'static str,
    pub(crate) from_ns: u64,
    pub(crate) to_ns: u64,
    pub(crate) a: usize,
    pub(crate) b: Option<usize>,
}

/// What the picture shows of one host.
#[derive(Clone, Debug)]
pub(crate) struct HostRecord {
    pub(crate) name: String,
    pub(crate) platform: &'static str,
    pub(crate) bands: Vec<Band>,
    /// Those still under way: (fault number, kind, from).
    open: Vec<(usize, &'static str, u64)>,
    /// When, and the step as the trace says it (`wall-step by -5s`).
    pub(crate) wall_steps: Vec<(u64, String)>,
    /// (physical time, what the clocks read), in time order.
    pub(crate) clocks: Vec<(u64, Reading)>,
}

/// What the picture shows of a whole run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    pub(crate) hosts: Vec<HostRecord>,
    pub(crate) network: Vec<NetworkBand>,
    pub(crate) seed: u64,
    pub(crate) wall_start_ns: i64,
}

impl Record {
    pub(crate) fn new(hosts: Vec<(String, &'static str)>, seed: u64, wall_start_ns: i64) -> Self {
        let hosts = hosts
            .into_iter()
            .map(|(name, platform)| HostRecord {
                name,
                platform,
                bands: Vec::new(),
                open: Vec::new(),
                wall_steps: Vec::new(),
                clocks: Vec::new(),
            })
            .collect();
        Record {
            hosts,
            network: Vec::new(),
            seed,
            wall_start_ns,
        }
    }

    /// What `host`'s clocks read at `at_ns`.
    pub(crate) fn clocks(&mut self, host: usize, at_ns: u64, reading: Reading) {
        let clocks = &mut self.hosts[host].clocks;
        if clocks.last() != Some(&(at_ns, reading)) {
            clocks.push((at_ns, reading));
        }
    }

    /// A fault edge of `host`, at physical time `at_ns`.
    pub(crate) fn edge(&mut self, host: usize, at_ns: u64, edge: &FaultEdge) {
        let kind = edge.fault.kind().name();
        let record = &mut self.hosts[host];
        match edge.edge {
            Edge::Point => record.wall_steps.push((at_ns, edge.fault.to_string())),
            Edge::Begin => record.open.push((edge.fault_index, kind, at_ns)),
            Edge::End => {
                if let Some(open) = record.open.iter().position(|o| o.0 == edge.fault_index) {
                    let (_, kind, from_ns) = record.open.remove(open);
                    record.bands.push(Band {
                        kind,
                        from_ns,
                        to_ns: at_ns,
                    });
                }
            }
        }
    }

    /// A sleep held `host`'s thread from `from_ns` to `to_ns`.
    pub(crate) fn held(&mut self, host: usize, from_ns: u64, to_ns: u64) {
        self.hosts[host].bands.push(Band {
            kind: "thread-sleep",
            from_ns,
            to_ns,
        });
    }

    /// The run ended at `end_ns`: what is under way ends there. `network` holds the
    /// partitions and spikes that began before it, cut at it.
    pub(crate) fn finish(&mut self, end_ns: u64, network: Vec<NetworkBand>) {
        for record in &mut self.hosts {
            for (_, kind, from_ns) in std::mem::take(&mut record.open) {
                record.bands.push(Band {
                    kind,
                    from_ns,
                    to_ns: end_ns,
                });
            }
            record.bands.sort_by_key(|band| (band.from_ns, band.to_ns));
        }
        self.network = network;
    }
}
