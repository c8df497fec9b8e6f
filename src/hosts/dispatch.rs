//! The run's workloads behind one object-safe face: each [`Workload`] is wrapped with its number
//! in the run's list, and its envelopes are opened here, so the binding hands a step to
//! whichever workload it belongs to without naming any.

use ticklab_sim::EdgeEffect;

use super::cluster::Cluster;
use super::out::Out;
use super::step::{HostId, Msg, Step, WakeTag, WorkloadId};
use super::threads::{Role, WorkCost};
use super::workload::{Hosts, Payload, Workload};
use crate::memory::Footprint;

/// A workload of the run, its messages and wakes still sealed.
pub(crate) trait Running: std::fmt::Debug {
    fn start(&mut self, cluster: &mut Cluster, out: &mut Out<'_>);
    fn on_wake(&mut self, host: HostId, tag: WakeTag, cluster: &mut Cluster, out: &mut Out<'_>);
    fn on_message(
        &mut self,
        from: HostId,
        to: HostId,
        msg: Msg,
        cluster: &mut Cluster,
        out: &mut Out<'_>,
    );
    fn on_host_edge(
        &mut self,
        host: HostId,
        effect: EdgeEffect,
        cluster: &mut Cluster,
        out: &mut Out<'_>,
    );
    fn on_network(&mut self, cluster: &mut Cluster, out: &mut Out<'_>);
    fn finish(
        &mut self,
        end_ns: u64,
        cluster: &mut Cluster,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)>;
    fn footprint(&self) -> Footprint;
    fn thread_for_wake(&self, tag: WakeTag) -> Option<u32>;
    fn thread_for_message(&self, msg: Msg) -> u32;
    fn thread_name(&self, thread: u32) -> String;
    fn work_ns(&self, step: &Step) -> u64;
    fn message_name(&self, msg: Msg) -> &'static str;
    fn timer_kinds(&self) -> &'static [(&'static str, &'static str)];
    fn timer_kind(&self, tag: WakeTag) -> usize;
}

/// A workload and its number in the run's list.
#[derive(Debug)]
struct Numbered<W> {
    id: WorkloadId,
    workload: W,
}

/// `workload`, as the `id`th of the run's list.
pub(crate) fn numbered<W: Workload>(id: WorkloadId, workload: W) -> Box<dyn Running> {
    Box::new(Numbered { id, workload })
}

impl<W: Workload> Running for Numbered<W> {
    fn start(&mut self, cluster: &mut Cluster, out: &mut Out<'_>) {
        self.workload.start(&mut Hosts::new(cluster, self.id), out);
    }

    #[inline]
    fn on_wake(&mut self, host: HostId, tag: WakeTag, cluster: &mut Cluster, out: &mut Out<'_>) {
        let wake = W::Wake::unpack(tag.words());
        self.workload
            .on_wake(host, wake, &mut Hosts::new(cluster, self.id), out);
    }

    #[inline]
    fn on_message(
        &mut self,
        from: HostId,
        to: HostId,
        msg: Msg,
        cluster: &mut Cluster,
        out: &mut Out<'_>,
    ) {
        let msg = W::Msg::unpack(msg.words());
        self.workload
            .on_message((from, to), msg, &mut Hosts::new(cluster, self.id), out);
    }

    fn on_host_edge(
        &mut self,
        host: HostId,
        effect: EdgeEffect,
        cluster: &mut Cluster,
        out: &mut Out<'_>,
    ) {
        self.workload
            .on_host_edge(host, effect, &mut Hosts::new(cluster, self.id), out);
    }

    fn on_network(&mut self, cluster: &mut Cluster, out: &mut Out<'_>) {
        self.workload
            .on_network(&mut Hosts::new(cluster, self.id), out);
    }

    fn finish(
        &mut self,
        end_ns: u64,
        cluster: &mut Cluster,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)> {
        self.workload
            .finish(end_ns, &Hosts::new(cluster, self.id), out)
    }

    fn footprint(&self) -> Footprint {
        self.workload.footprint()
    }

    fn thread_for_wake(&self, tag: WakeTag) -> Option<u32> {
        self.workload.thread_for_wake(W::Wake::unpack(tag.words()))
    }

    fn thread_for_message(&self, msg: Msg) -> u32 {
        self.workload
            .thread_for_message(W::Msg::unpack(msg.words()))
    }

    fn thread_name(&self, thread: u32) -> String {
        self.workload.thread_name(thread)
    }

    fn work_ns(&self, step: &Step) -> u64 {
        match *step {
            Step::Wake { tag, .. } => self.workload.wake_cost_ns(W::Wake::unpack(tag.words())),
            Step::Message { msg, .. } => self.workload.message_cost_ns(W::Msg::unpack(msg.words())),
            Step::Lost { .. } | Step::Network { .. } => 0,
        }
    }

    fn message_name(&self, msg: Msg) -> &'static str {
        self.workload.message_name(W::Msg::unpack(msg.words()))
    }

    fn timer_kinds(&self) -> &'static [(&'static str, &'static str)] {
        self.workload.timer_kinds()
    }

    fn timer_kind(&self, tag: WakeTag) -> usize {
        self.workload.timer_kind(W::Wake::unpack(tag.words()))
    }
}

/// The run's workloads, by number.
#[derive(Debug, Default)]
pub(crate) struct Listed(pub(crate) Vec<Box<dyn Running>>);

impl Listed {
    /// Adds the workload `make` builds, given its number.
    pub(crate) fn push(&mut self, make: impl FnOnce(WorkloadId) -> Box<dyn Running>) {
        let id = WorkloadId::try_from(self.0.len()).expect("fewer than 256 workloads");
        self.0.push(make(id));
    }

    #[inline]
    pub(crate) fn get(&mut self, id: WorkloadId) -> &mut dyn Running {
        &mut *self.0[usize::from(id)]
    }

    /// The thread of its host that handles `step`; `None` for bookkeeping no thread does and
    /// for what is not a host's work (losses, network edges).
    pub(crate) fn role_of(&self, step: &Step) -> Option<(HostId, Role)> {
        match *step {
            Step::Wake { host, tag, .. } => {
                let thread = self.0[usize::from(tag.workload)].thread_for_wake(tag)?;
                Some((
                    host,
                    Role {
                        workload: tag.workload,
                        thread,
                    },
                ))
            }
            Step::Message { to, msg, .. } => {
                let thread = self.0[usize::from(msg.workload)].thread_for_message(msg);
                Some((
                    to,
                    Role {
                        workload: msg.workload,
                        thread,
                    },
                ))
            }
            Step::Lost { .. } | Step::Network { .. } => None,
        }
    }

    /// The message in words, by the workload that sent it.
    pub(crate) fn message_name(&self, msg: Msg) -> &'static str {
        self.0[usize::from(msg.workload)].message_name(msg)
    }

    /// `timers` in words, each workload's kinds in its own order, workloads in the list's:
    /// `2 suspicion checks, 1 heartbeat send`.
    pub(crate) fn timers_text(&self, timers: &[WakeTag]) -> String {
        let mut parts = Vec::new();
        for (id, workload) in self.0.iter().enumerate() {
            let kinds = workload.timer_kinds();
            let mut counts = vec![0u32; kinds.len()];
            for tag in timers.iter().filter(|tag| usize::from(tag.workload) == id) {
                counts[workload.timer_kind(*tag)] += 1;
            }
            for (count, (one, many)) in counts.into_iter().zip(kinds) {
                match count {
                    0 => {}
                    1 => parts.push(format!("1 {one}")),
                    _ => parts.push(format!("{count} {many}")),
                }
            }
        }
        parts.join(", ")
    }
}

impl WorkCost for Listed {
    fn work_ns(&self, step: &Step) -> u64 {
        match *step {
            Step::Wake { tag, .. } => self.0[usize::from(tag.workload)].work_ns(step),
            Step::Message { msg, .. } => self.0[usize::from(msg.workload)].work_ns(step),
            Step::Lost { .. } | Step::Network { .. } => 0,
        }
    }

    fn thread_name(&self, role: Role) -> String {
        self.0[usize::from(role.workload)].thread_name(role.thread)
    }
}
