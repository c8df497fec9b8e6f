//! What a lease must eventually do: find a holder. The time with no leader, while some candidate
//! could reach the lock service (both running, no partition between them), is measured stretch by
//! stretch; a holder that stops is replaced once its lease runs out and a waiting candidate's ask
//! and grant cross the network, so a stretch longer than the lease, a renewal period and a round
//! trip on the slowest link is a broken invariant.

use super::super::cluster::{Cluster, HostId};
use super::super::runner::Out;

#[derive(Debug)]
pub(super) struct Leaderless {
    /// Longer than this without a leader is a violation.
    limit_ns: u64,
    since_ns: Option<u64>,
    pub(super) longest_ns: u64,
    pub(super) longest_from_ns: Option<u64>,
}

impl Leaderless {
    pub(super) fn new(length_ns: u64, renew_every_ns: u64, longest_latency_ns: u64) -> Self {
        Leaderless {
            limit_ns: length_ns
                .saturating_add(renew_every_ns)
                .saturating_add(2 * longest_latency_ns),
            since_ns: None,
            longest_ns: 0,
            longest_from_ns: None,
        }
    }

    /// Whether some candidate could reach `coordinator` now.
    pub(super) fn reachable(cluster: &Cluster, coordinator: HostId, candidates: &[HostId]) -> bool {
        let now_ns = cluster.now_ns();
        cluster.stopped(coordinator).is_none()
            && candidates.iter().any(|&candidate| {
                cluster.stopped(candidate).is_none()
                    && !cluster.network.partitioned(candidate, coordinator, now_ns)
                    && !cluster.network.partitioned(coordinator, candidate, now_ns)
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
                     lock service; a lease, a renewal and a round trip take {}",
                    ticklab_sim::Approx(lasted_ns),
                    ticklab_sim::Secs(since_ns),
                    ticklab_sim::Approx(limit_ns)
                )
            });
        }
    }
}
