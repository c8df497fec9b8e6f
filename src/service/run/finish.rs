//! The run's end: every host's clocks and what was under way for the picture, then each host's
//! tasks dropped on its own clocks.

use super::Runner;
use crate::hosts::network::{NetworkConfig, Window};
use crate::service::net::OnHost;
use crate::service::record::NetworkBand;

impl Runner {
    /// Every host's clocks as the run ended, and what was under way then.
    pub(super) fn finish_record(&mut self, ended_at_ns: u64, network: &NetworkConfig) {
        let mut clockwork = self.clockwork.lock();
        clockwork.now_ns = ended_at_ns;
        for host in 0..self.runtimes.len() {
            self.record
                .clocks(host, ended_at_ns, clockwork.reading(host));
        }
        drop(clockwork);
        let windows = |windows: &[Window], kind: &'static str| {
            windows
                .iter()
                .filter(|window| window.at_ns < ended_at_ns)
                .map(|window| NetworkBand {
                    kind,
                    from_ns: window.at_ns,
                    to_ns: window.end_ns.min(ended_at_ns),
                    a: window.pair.a,
                    b: window.pair.b,
                })
                .collect::<Vec<_>>()
        };
        let mut bands = windows(&network.partitions, "partition");
        bands.extend(windows(&network.spikes, "latency-spike"));
        self.record.finish(ended_at_ns, bands);
    }

    /// Drops every host's tasks, each on its own clocks, then its runtime.
    pub(super) fn shut_down(&mut self) {
        for host in 0..self.runtimes.len() {
            self.clockwork.lock().current = Some(host);
            let _on = OnHost::enter(&self.fabric, host);
            self.runtimes[host].shut_down();
        }
        self.clockwork.lock().current = None;
    }
}
