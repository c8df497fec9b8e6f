//! The hosts' workloads as the drive loop calls them: each step goes to the workload it belongs
//! to, through the thread that handles it on a host with a CPU, and the run ends in a summary
//! whose metrics each workload reports by name.

use ticklab_sim::{ClockId, EdgeEffect, FaultEdge, ThreadCpu, ThreadId};

use super::cluster::{Cluster, HostId, Msg, Step, WakeTag};
use super::edges::message_name;
use super::event_kind::HostEventKind;
use super::heartbeat::{BeatWake, Heartbeat};
use super::host_lines::trace_thaw;
use super::lease::Lease;
use super::out::Out;
use super::rpc::Rpc;
use super::threads::{Role, WorkCost};
use crate::expect::Metric;
use crate::machine::Workloads;
use crate::memory::Footprint;
use crate::runner::error::RunError;
use crate::trace::{Summary, TraceSink};

/// The workloads of one run, and the trace they report to.
#[derive(Debug)]
pub(super) struct HostsRun<'a> {
    pub(super) lease: Option<Lease>,
    pub(super) heartbeat: Option<Heartbeat>,
    pub(super) rpc: Option<Rpc>,
    pub(super) out: Out<'a>,
    pub(super) costs: Costs,
    pub(super) metrics: Vec<Metric>,
    pub(super) end_ns: u64,
}

/// The CPU each piece of work takes, from the workloads' `cpu` keys.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Costs {
    /// Per heartbeat sent, received or checked.
    pub(super) heartbeat_ns: u64,
    /// Heartbeats a host sends each round.
    pub(super) peers: u64,
    pub(super) lease_ns: u64,
    pub(super) rpc_ns: u64,
}

impl WorkCost for Costs {
    fn work_ns(&self, step: &Step) -> u64 {
        match step {
            Step::Wake {
                tag: WakeTag::Heartbeat(BeatWake::Send),
                ..
            } => self.heartbeat_ns.saturating_mul(self.peers),
            Step::Wake {
                tag: WakeTag::Heartbeat(_),
                ..
            }
            | Step::Message {
                msg: Msg::Heartbeat(_),
                ..
            } => self.heartbeat_ns,
            Step::Wake {
                tag: WakeTag::Lease(_),
                ..
            }
            | Step::Message {
                msg: Msg::Lease(_), ..
            } => self.lease_ns,
            Step::Wake {
                tag: WakeTag::Rpc(_),
                ..
            }
            | Step::Message {
                msg: Msg::Rpc(_), ..
            } => self.rpc_ns,
            Step::Lost { .. } | Step::Network { .. } => 0,
        }
    }
}

impl Workloads<Cluster> for HostsRun<'_> {
    fn on_event(&mut self, step: Step, cluster: &mut Cluster) -> Result<(), RunError> {
        match Role::of(&step) {
            Some((host, role)) if cluster.has_cpu(host) => {
                cluster.queue_work((host, role), step, &self.costs);
            }
            _ => self.handle(step, cluster)?,
        }
        self.trace_error()
    }

    fn on_cpu_done(
        &mut self,
        host: usize,
        thread: ThreadId,
        cluster: &mut Cluster,
    ) -> Result<(), RunError> {
        let Some(role) = cluster.work_done(host, thread, &self.costs) else {
            return Ok(());
        };
        self.out.thread = Some(role);
        let mut handled = Ok(());
        while let (Ok(()), Some(step)) = (&handled, cluster.next_in_hand(host)) {
            handled = self.handle(step, cluster);
        }
        self.out.thread = None;
        handled?;
        self.trace_error()
    }

    fn on_fault(
        &mut self,
        host: usize,
        _edge: &FaultEdge,
        effect: &EdgeEffect,
        cluster: &mut Cluster,
    ) -> Result<(), RunError> {
        if let Some(thawed) = cluster.take_thawed() {
            trace_thaw(cluster, host, thawed, &mut self.out);
        }
        if let Some(lease) = &mut self.lease {
            lease.on_host_edge(host, *effect, cluster, &mut self.out);
        }
        if let Some(heartbeat) = &mut self.heartbeat {
            heartbeat.on_host_edge(host, *effect, cluster, &mut self.out);
        }
        self.trace_error()
    }

    fn footprint(&self) -> Footprint {
        self.rpc
            .as_ref()
            .map_or_else(Footprint::new, Rpc::footprint)
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        self.out.sink
    }

    fn finish(
        &mut self,
        cluster: &mut Cluster,
        threads: &Vec<ThreadCpu>,
    ) -> Result<Summary, RunError> {
        let end_ns = self.end_ns;
        let mut named = vec![
            ("messages_sent", cluster.messages_sent),
            ("messages_lost", cluster.messages_lost),
        ];
        if let Some(lease) = &mut self.lease {
            named.extend(lease.finish(end_ns, &mut self.out));
        }
        if let Some(heartbeat) = &mut self.heartbeat {
            named.extend(heartbeat.finish(end_ns, cluster, &mut self.out));
        }
        if let Some(rpc) = &mut self.rpc {
            named.extend(rpc.finish(cluster, end_ns, &mut self.out));
        }
        named.push((crate::invariant::VIOLATIONS.name, self.out.violations));
        self.trace_error()?;
        let values = self
            .metrics
            .iter()
            .map(|metric| {
                named
                    .iter()
                    .find(|(name, _)| *name == metric.name)
                    .map(|(_, value)| *value)
                    .ok_or_else(|| {
                        RunError::Simulator(format!("no workload reported `{}`", metric.name))
                    })
            })
            .collect::<Result<Vec<u64>, RunError>>()?;
        Ok(Summary::new(
            "hosts",
            end_ns,
            &self.metrics,
            &values,
            threads.clone(),
        ))
    }
}

impl HostsRun<'_> {
    /// Hands `step` to its workload, now.
    fn handle(&mut self, step: Step, cluster: &mut Cluster) -> Result<(), RunError> {
        match step {
            Step::Wake { host, tag, .. } => self.dispatch_wake(host, tag, cluster),
            Step::Message { from, to, msg } => self.dispatch_message(from, to, msg, cluster),
            Step::Lost { from, to, msg } => self.trace_loss(from, to, msg, cluster),
            Step::Network {
                begins,
                is_partition,
                index,
            } => {
                cluster
                    .lines
                    .network(cluster, begins, is_partition, index, self.out.sink)?;
                if let Some(lease) = &mut self.lease {
                    lease.note_leaders(cluster, &mut self.out);
                }
            }
        }
        Ok(())
    }

    fn dispatch_wake(&mut self, host: HostId, tag: WakeTag, cluster: &mut Cluster) {
        let out = &mut self.out;
        match tag {
            WakeTag::Lease(wake) => {
                if let Some(lease) = &mut self.lease {
                    lease.on_wake(host, wake, cluster, out);
                }
            }
            WakeTag::Heartbeat(wake) => {
                if let Some(heartbeat) = &mut self.heartbeat {
                    heartbeat.on_wake(host, wake, cluster, out);
                }
            }
            WakeTag::Rpc(wake) => {
                if let Some(rpc) = &mut self.rpc {
                    rpc.on_wake(host, wake, cluster, out);
                }
            }
        }
    }

    fn dispatch_message(&mut self, from: HostId, to: HostId, msg: Msg, cluster: &mut Cluster) {
        let out = &mut self.out;
        match msg {
            Msg::Lease(msg) => {
                if let Some(lease) = &mut self.lease {
                    lease.on_message(from, to, msg, cluster, out);
                }
            }
            Msg::Heartbeat(beat) => {
                if let Some(heartbeat) = &mut self.heartbeat {
                    heartbeat.on_message((from, to), beat, cluster, out);
                }
            }
            Msg::Rpc(msg) => {
                if let Some(rpc) = &mut self.rpc {
                    rpc.on_message(from, to, msg, cluster, out);
                }
            }
        }
    }

    fn trace_loss(&mut self, from: HostId, to: HostId, msg: Msg, cluster: &Cluster) {
        if !self.out.wants_events() {
            return;
        }
        let clock_ns = cluster.read(to, ClockId::Monotonic);
        self.out.event(
            cluster,
            to,
            HostEventKind::Lost,
            clock_ns,
            |names| {
                format!(
                    "{} from {} was dropped on the way",
                    message_name(msg),
                    names.of(from)
                )
            },
            None,
        );
    }

    /// Stops the run at the first error the trace gave.
    fn trace_error(&mut self) -> Result<(), RunError> {
        match self.out.take_error() {
            Some(error) => Err(error.into()),
            None => Ok(()),
        }
    }
}
