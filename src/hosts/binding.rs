//! The hosts' workloads as the drive loop calls them: each step goes to the workload it belongs
//! to, through the thread that handles it on a host with a CPU, and the run ends in a summary
//! whose metrics each workload reports by name.

use ticklab_sim::{ClockId, EdgeEffect, FaultEdge, ThreadCpu, ThreadId};

use super::cluster::{Cluster, HostId, Msg, Step};
use super::dispatch::Listed;
use super::event_kind::HostEventKind;
use super::host_lines::trace_thaw;
use super::out::Out;
use super::threads::WorkCost;
use crate::expect::Metric;
use crate::machine::Workloads;
use crate::memory::Footprint;
use crate::runner::error::RunError;
use crate::trace::{Summary, TraceSink};

/// The workloads of one run, and the trace they report to.
#[derive(Debug)]
pub(super) struct HostsRun<'a> {
    /// Each workload the scenario has, by the number its messages and wakes carry.
    pub(super) workloads: Listed,
    pub(super) out: Out<'a>,
    pub(super) metrics: Vec<Metric>,
    pub(super) end_ns: u64,
}

impl Workloads<Cluster> for HostsRun<'_> {
    fn on_event(&mut self, step: Step, cluster: &mut Cluster) -> Result<(), RunError> {
        // Most hosts have no CPU: ask which host first, and only then the workload which thread.
        let host = match step {
            Step::Wake { host, .. } => Some(host),
            Step::Message { to, .. } => Some(to),
            Step::Lost { .. } | Step::Network { .. } => None,
        };
        let role = match host {
            Some(host) if cluster.has_cpu(host) => self.workloads.role_of(&step),
            _ => None,
        };
        match role {
            Some(work) => cluster.queue_work(work, step, &self.workloads),
            None => self.handle(step, cluster)?,
        }
        self.trace_error()
    }

    fn on_cpu_done(
        &mut self,
        host: usize,
        thread: ThreadId,
        cluster: &mut Cluster,
    ) -> Result<(), RunError> {
        let Some(role) = cluster.work_done(host, thread, &self.workloads) else {
            return Ok(());
        };
        self.out.thread = self
            .out
            .wants_events()
            .then(|| self.workloads.thread_name(role));
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
            let timers = self.workloads.timers_text(&thawed.timers);
            trace_thaw(cluster, host, &thawed, &timers, &mut self.out);
        }
        for workload in &mut self.workloads.0 {
            workload.on_host_edge(host, *effect, cluster, &mut self.out);
        }
        self.trace_error()
    }

    fn footprint(&self) -> Footprint {
        let mut footprint = Footprint::new();
        for workload in &self.workloads.0 {
            for holding in workload.footprint().holdings() {
                footprint.add(holding.what, holding.count, holding.bytes_each);
            }
        }
        footprint
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
        for workload in &mut self.workloads.0 {
            named.extend(workload.finish(end_ns, cluster, &mut self.out));
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
            Step::Wake { host, tag, .. } => {
                self.workloads
                    .get(tag.workload)
                    .on_wake(host, tag, cluster, &mut self.out);
            }
            Step::Message { from, to, msg } => {
                self.workloads
                    .get(msg.workload)
                    .on_message(from, to, msg, cluster, &mut self.out);
            }
            Step::Lost { from, to, msg } => self.trace_loss(from, to, msg, cluster),
            Step::Network {
                begins,
                is_partition,
                index,
            } => {
                cluster
                    .lines
                    .network(cluster, begins, is_partition, index, self.out.sink)?;
                for workload in &mut self.workloads.0 {
                    workload.on_network(cluster, &mut self.out);
                }
            }
        }
        Ok(())
    }

    fn trace_loss(&mut self, from: HostId, to: HostId, msg: Msg, cluster: &Cluster) {
        if !self.out.wants_events() {
            return;
        }
        let clock_ns = cluster.read(to, ClockId::Monotonic);
        self.out.event(
            cluster.now_ns(),
            to,
            HostEventKind::Lost,
            clock_ns,
            |names| {
                format!(
                    "{} from {} was dropped on the way",
                    self.workloads.message_name(msg),
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
