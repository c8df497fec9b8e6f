//! The hosts' CPUs and threads: the work a host with a `[machine]` gives its workload threads,
//! and what waits for them.

use ticklab_sim::ThreadId;

use super::{Cluster, HostId, Step};
use crate::hosts::threads::{Role, WorkCost};
use crate::machine::Cpu;

impl Cluster {
    /// Whether `host` has a CPU of its own.
    pub(crate) fn has_cpu(&self, host: HostId) -> bool {
        let word = self.counts.has_cpu.get(host / 64).copied().unwrap_or(0);
        word & (1 << (host % 64)) != 0
    }

    /// The CPU of `host`, and the moment, to run work on it; `None` for a host without one.
    pub(crate) fn cpu_of(&mut self, host: HostId) -> Option<&mut Cpu> {
        self.hosts[host].cpu.as_deref_mut()
    }

    /// `step` is work for `role`'s thread on `host`, which has a CPU: it waits for the thread.
    pub(crate) fn queue_work(
        &mut self,
        (host, role): (HostId, Role),
        step: Step,
        cost: &dyn WorkCost,
    ) {
        let mut threads = std::mem::take(&mut self.hosts[host].threads);
        threads.queue((host, role), step, self, cost);
        self.hosts[host].threads = threads;
    }

    /// `thread` of `host` had the CPU of its batch: its role; the batch's pieces come from
    /// [`Cluster::next_in_hand`].
    pub(crate) fn work_done(
        &mut self,
        host: HostId,
        thread: ThreadId,
        cost: &dyn WorkCost,
    ) -> Option<Role> {
        let mut threads = std::mem::take(&mut self.hosts[host].threads);
        let done = threads.done(host, thread, self, cost);
        self.hosts[host].threads = threads;
        done
    }

    /// The next piece of `host`'s finished batch, to be done now.
    pub(crate) fn next_in_hand(&mut self, host: HostId) -> Option<Step> {
        self.hosts[host].threads.next_in_hand()
    }

    /// Pieces of work waiting for `role`'s thread on `host`, the running batch's included.
    pub(crate) fn work_waiting(&self, host: HostId, role: Role) -> usize {
        self.hosts[host].threads.waiting(role)
    }
}
