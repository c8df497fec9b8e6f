//! What a workload is to the cluster, and all it reaches of it.
//!
//! A workload (lease, heartbeat, rpc, …) is a [`Workload`]: what it does at the start, on one of
//! its wakes, on one of its messages arriving, when a host stops or resumes, when the network
//! changes, and what it reports at the end. It reaches the hosts only through [`Hosts`]: send a
//! message, set a wake on a host's clock, read a host's clocks, ask whether a host runs. The
//! cluster carries its messages and wakes as words it does not read ([`Payload`]), so adding a
//! workload changes nothing in the cluster.

use std::marker::PhantomData;

use ticklab_sim::{ClockId, EdgeEffect};

use super::cluster::Cluster;
use super::out::Out;
pub(crate) use super::step::{HostId, WakeId, Words};
use super::step::{Msg, WakeTag, WorkloadId};
use super::threads::Role;
use crate::memory::Footprint;

/// A workload's own message or wake type, as the words the cluster carries. `unpack` gets back
/// only what `pack` made: the cluster hands a workload its own envelopes alone.
pub(crate) trait Payload: Copy {
    fn pack(self) -> Words;
    fn unpack(words: Words) -> Self;
}

/// One workload of a hosts run. Its methods are called by the run's binding, one step at a time,
/// with the hosts as they are at that moment.
pub(crate) trait Workload: std::fmt::Debug + 'static {
    /// What its hosts send each other.
    type Msg: Payload;
    /// What its wakes are for. It packs into one word (`second` stays 0).
    type Wake: Payload;

    /// What it does as the run starts: its first wakes, and its first lines.
    fn start(&mut self, hosts: &mut Hosts<'_, Self>, out: &mut Out<'_>);

    /// One of its wakes came due on `host`.
    fn on_wake(
        &mut self,
        host: HostId,
        wake: Self::Wake,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    );

    /// One of its messages arrived.
    fn on_message(
        &mut self,
        from_to: (HostId, HostId),
        msg: Self::Msg,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    );

    /// A fault edge of `host` stopped or resumed it, or moved a clock.
    fn on_host_edge(
        &mut self,
        _host: HostId,
        _effect: EdgeEffect,
        _hosts: &mut Hosts<'_, Self>,
        _out: &mut Out<'_>,
    ) {
    }

    /// A partition or latency spike began or ended.
    fn on_network(&mut self, _hosts: &mut Hosts<'_, Self>, _out: &mut Out<'_>) {}

    /// The run ended at `end_ns`: its metrics, by name.
    fn finish(
        &mut self,
        end_ns: u64,
        hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)>;

    /// What it holds now, for the run's memory bound.
    fn footprint(&self) -> Footprint {
        Footprint::new()
    }

    /// Its thread on a host with a CPU that handles `wake`, by the workload's own numbering;
    /// `None` for bookkeeping no thread does (a host's clock reaching its lease's end).
    fn thread_for_wake(&self, wake: Self::Wake) -> Option<u32>;

    /// Its thread that handles `msg` on the host it arrives at.
    fn thread_for_message(&self, msg: Self::Msg) -> u32;

    /// Its thread's name, as the trace and the summary give it.
    fn thread_name(&self, thread: u32) -> String;

    /// The CPU a wake's work takes on a host with a CPU.
    fn wake_cost_ns(&self, wake: Self::Wake) -> u64;

    /// The CPU a message's work takes on a host with a CPU.
    fn message_cost_ns(&self, msg: Self::Msg) -> u64;

    /// The message in words, for a line that says it was lost: `a heartbeat`.
    fn message_name(&self, msg: Self::Msg) -> &'static str;

    /// What its wakes are for, one and many (`heartbeat send`, `heartbeat sends`), in the order
    /// a thaw line lists them.
    fn timer_kinds(&self) -> &'static [(&'static str, &'static str)];

    /// Which of [`Workload::timer_kinds`] `wake` is.
    fn timer_kind(&self, wake: Self::Wake) -> usize;
}

/// The hosts as a workload reaches them: its own messages and wakes, every host's clocks, and
/// whether a host runs. Nothing else of the cluster.
pub(crate) struct Hosts<'a, W: ?Sized> {
    cluster: &'a mut Cluster,
    workload: WorkloadId,
    of: PhantomData<fn(&W)>,
}

impl<'a, W: Workload + ?Sized> Hosts<'a, W> {
    pub(super) fn new(cluster: &'a mut Cluster, workload: WorkloadId) -> Self {
        Hosts {
            cluster,
            workload,
            of: PhantomData,
        }
    }

    /// Physical time now, in ns since the run began.
    #[inline]
    pub(crate) fn now_ns(&self) -> u64 {
        self.cluster.now_ns()
    }

    /// What `clock` on `host` reads now.
    #[inline]
    pub(crate) fn read(&self, host: HostId, clock: ClockId) -> i64 {
        self.cluster.read(host, clock)
    }

    /// Sends `msg`; it arrives after the link's latency, unless a partition drops it.
    #[inline]
    pub(crate) fn send(&mut self, from: HostId, to: HostId, msg: W::Msg) {
        let msg = Msg::new(self.workload, msg.pack());
        self.cluster.send(from, to, msg);
    }

    /// A thread's timed wait: `wake` comes when `host`'s `clock` reads `target_ns`, as its
    /// platform's timers end waits, once the host can run.
    #[inline]
    pub(crate) fn wake_at(
        &mut self,
        host: HostId,
        clock: ClockId,
        target_ns: i64,
        wake: W::Wake,
    ) -> WakeId {
        let tag = self.tag(wake);
        self.cluster.wake_at(host, clock, target_ns, tag)
    }

    /// Work or I/O that ends when `host`'s `clock` reads `target_ns`: exactly then, once the
    /// host can run.
    pub(crate) fn done_at(
        &mut self,
        host: HostId,
        clock: ClockId,
        target_ns: i64,
        wake: W::Wake,
    ) -> WakeId {
        let tag = self.tag(wake);
        self.cluster.done_at(host, clock, target_ns, tag)
    }

    /// Bookkeeping: `wake` comes when `host`'s `clock` reads `target_ns`, whether or not the
    /// host can run.
    pub(crate) fn observe_at(
        &mut self,
        host: HostId,
        clock: ClockId,
        target_ns: i64,
        wake: W::Wake,
    ) -> WakeId {
        let tag = self.tag(wake);
        self.cluster.observe_at(host, clock, target_ns, tag)
    }

    /// Cancels a wake it set, even one already due and waiting for its host's thread.
    #[inline]
    pub(crate) fn cancel(&mut self, id: WakeId) {
        self.cluster.cancel(id);
    }

    pub(crate) fn can_run(&self, host: HostId) -> bool {
        self.cluster.can_run(host)
    }

    /// Since when `host`'s process has been able to run, in physical ns; `None` while it cannot.
    pub(crate) fn running_since_ns(&self, host: HostId) -> Option<u64> {
        self.cluster.running_since_ns(host)
    }

    /// Why `host` cannot run now, if it cannot: `asleep` or `frozen`.
    pub(crate) fn stopped(&self, host: HostId) -> Option<&'static str> {
        self.cluster.stopped(host)
    }

    /// Whether a partition cuts messages from `from` to `to` now.
    pub(crate) fn partitioned(&self, from: HostId, to: HostId) -> bool {
        self.cluster
            .network
            .partitioned(from, to, self.cluster.now_ns())
    }

    /// Pieces of work waiting for its `thread` on `host`, the running batch's included.
    pub(crate) fn work_waiting(&self, host: HostId, thread: u32) -> usize {
        let role = Role {
            workload: self.workload,
            thread,
        };
        self.cluster.work_waiting(host, role)
    }

    #[inline]
    fn tag(&self, wake: W::Wake) -> WakeTag {
        WakeTag::new(self.workload, wake.pack())
    }
}

#[cfg(test)]
mod tests {
    /// The files that carry the workloads' messages and wakes: none may name a workload, so
    /// that a new one changes nothing here.
    const CARRIERS: [(&str, &str); 11] = [
        ("cluster/mod.rs", include_str!("cluster/mod.rs")),
        ("cluster/faults.rs", include_str!("cluster/faults.rs")),
        ("cluster/ground.rs", include_str!("cluster/ground.rs")),
        ("cluster/work.rs", include_str!("cluster/work.rs")),
        ("queue.rs", include_str!("queue.rs")),
        ("step.rs", include_str!("step.rs")),
        ("network.rs", include_str!("network.rs")),
        ("turmoil_net.rs", include_str!("turmoil_net.rs")),
        ("edges.rs", include_str!("edges.rs")),
        ("thaw.rs", include_str!("thaw.rs")),
        ("threads.rs", include_str!("threads.rs")),
    ];

    /// The workloads' files: they reach the cluster through this file alone.
    const WORKLOADS: [(&str, &str); 11] = [
        ("heartbeat/mod.rs", include_str!("heartbeat/mod.rs")),
        ("heartbeat/spec.rs", include_str!("heartbeat/spec.rs")),
        (
            "heartbeat/workload.rs",
            include_str!("heartbeat/workload.rs"),
        ),
        ("lease/mod.rs", include_str!("lease/mod.rs")),
        ("lease/coordinator.rs", include_str!("lease/coordinator.rs")),
        ("lease/leaderless.rs", include_str!("lease/leaderless.rs")),
        ("lease/spec.rs", include_str!("lease/spec.rs")),
        ("lease/workload.rs", include_str!("lease/workload.rs")),
        ("rpc/mod.rs", include_str!("rpc/mod.rs")),
        ("rpc/spec.rs", include_str!("rpc/spec.rs")),
        ("rpc/workload.rs", include_str!("rpc/workload.rs")),
    ];

    #[test]
    fn the_cluster_names_no_workload() {
        for (file, text) in CARRIERS {
            for workload in ["lease", "heartbeat", "rpc"] {
                assert!(
                    !text.contains(&format!("{workload}::")),
                    "src/hosts/{file} names the {workload} workload"
                );
            }
        }
    }

    #[test]
    fn a_workload_reaches_the_cluster_only_through_its_handle() {
        let internals = [
            "cluster",
            "queue",
            "step",
            "threads",
            "network",
            "turmoil_net",
            "dispatch",
            "binding",
        ];
        for (file, text) in WORKLOADS {
            for internal in internals {
                assert!(
                    !text.contains(&format!("{internal}::")),
                    "src/hosts/{file} reaches into {internal}"
                );
            }
        }
    }
}
