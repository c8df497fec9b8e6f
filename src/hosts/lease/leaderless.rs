//! What a lease must eventually do: find a holder. The time with no leader, while some candidate
//! could reach the lock service (both running, no partition between them), is measured stretch by
//! stretch; a holder that stops is replaced once its lease runs out and a waiting candidate's ask
//! and grant cross the network. A holder gives its lease up `length × drift_bound` early, and the
//! lock service counts from when it granted, a trip after the holder asked. So a stretch longer
//! than the lease, that margin, a renewal period and three trips on the slowest link is a broken
//! invariant.

use super::super::out::Out;
use super::super::workload::{HostId, Hosts};

#[derive(Debug)]
pub(super) struct Leaderless {
    /// Longer than this without a leader is a violation.
    limit_ns: u64,
    since_ns: Option<u64>,
    pub(super) longest_ns: u64,
    pub(super) longest_from_ns: Option<u64>,
}

impl Leaderless {
    pub(super) fn new(config: &super::spec::LeaseConfig, longest_latency_ns: u64) -> Self {
        let drift_margin_ns =
            u128::from(config.length_ns) * u128::from(config.drift_bound_ppb) / 1_000_000_000;
        Leaderless {
            limit_ns: config
                .length_ns
                .saturating_add(u64::try_from(drift_margin_ns).unwrap_or(u64::MAX))
                .saturating_add(config.renew_every_ns)
                .saturating_add(3 * longest_latency_ns),
            since_ns: None,
            longest_ns: 0,
            longest_from_ns: None,
        }
    }

    /// Whether some candidate could reach `coordinator` now.
    pub(super) fn reachable(
        hosts: &Hosts<'_, super::Lease>,
        coordinator: HostId,
        candidates: &[HostId],
    ) -> bool {
        hosts.stopped(coordinator).is_none()
            && candidates.iter().any(|&candidate| {
                hosts.stopped(candidate).is_none()
                    && !hosts.partitioned(candidate, coordinator)
                    && !hosts.partitioned(coordinator, candidate)
            })
    }

    /// Opens or closes a stretch: `open` says whether there is no leader while a candidate could
    /// reach the lock service.
    pub(super) fn update(&mut self, open: bool, now_ns: u64, out: &mut Out<'_>) {
        match (open, self.since_ns) {
            (true, None) => self.since_ns = Some(now_ns),
            (false, Some(since_ns)) => self.close(since_ns, now_ns, out),
            _ => {}
        }
    }

    pub(super) fn finish(&mut self, end_ns: u64, out: &mut Out<'_>) {
        if let Some(since_ns) = self.since_ns {
            self.close(since_ns, end_ns, out);
        }
    }

    fn close(&mut self, since_ns: u64, now_ns: u64, out: &mut Out<'_>) {
        self.since_ns = None;
        let lasted_ns = now_ns - since_ns;
        if lasted_ns > self.longest_ns {
            self.longest_ns = lasted_ns;
            self.longest_from_ns = Some(since_ns);
        }
        if lasted_ns > self.limit_ns {
            let limit_ns = self.limit_ns;
            out.violation(now_ns, || {
                format!(
                    "no host held the lease for {} from {}, while a candidate could reach the \
                     lock service; a lease, its drift margin, a renewal and three trips take {}",
                    ticklab_sim::Approx(lasted_ns),
                    ticklab_sim::Secs(since_ns),
                    ticklab_sim::Approx(limit_ns)
                )
            });
        }
    }
}
