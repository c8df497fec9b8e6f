//! The cluster as the ground the drive loop steps: what comes next, each host's CPU wakes filed
//! in the one queue, its fault lines, and its threads' CPU at the end.

use ticklab_sim::{EdgeEffect, FaultEdge, ThreadCpu};

use super::{Cluster, Item, Step};
use crate::machine::{Cpu, CpuWake, Ground, Next};
use crate::runner::error::RunError;
use crate::trace::TraceSink;

impl Ground for Cluster {
    type Event = Step;
    /// The workload threads of every host with a CPU, named `<host>/<thread>`.
    type Report = Vec<ThreadCpu>;

    fn next(&mut self) -> Next<Step> {
        match self.next_step() {
            Ok(next) => next,
            Err(why) => {
                self.failed = Some(why);
                Next::Failed
            }
        }
    }

    fn failure(&mut self) -> RunError {
        RunError::Simulator(self.failed.take().unwrap_or_default())
    }

    fn now_ns(&self) -> u64 {
        self.now_ns
    }

    fn cpu(&mut self, host: usize) -> Option<&mut Cpu> {
        self.cpu_of(host)
    }

    fn file_cpu_wakes(&mut self, host: usize) {
        let Some(cpu) = self.hosts[host].cpu.as_deref_mut() else {
            return;
        };
        let queue = &mut self.queue;
        cpu.drain_wakes(|at_ns, wake| {
            let item = match wake {
                CpuWake::Slice(ticket) => Item::Slice { host, ticket },
                CpuWake::Load(index) => Item::LoadBurst { host, index },
            };
            queue.push(at_ns, item);
        });
    }

    fn trace_fault(
        &self,
        host: usize,
        edge: &FaultEdge,
        effect: &EdgeEffect,
        sink: &mut dyn TraceSink,
    ) -> Result<(), RunError> {
        Ok(self.lines.host(self, host, edge, effect, sink)?)
    }

    fn footprint(&self) -> crate::memory::Footprint {
        Cluster::footprint(self)
    }

    fn overflowed(&self) -> bool {
        self.queue.overflowed()
    }

    fn finish(&mut self) -> Vec<ThreadCpu> {
        let end_ns = self.end_ns;
        let mut threads = Vec::new();
        for (host, state) in self.hosts.iter_mut().enumerate() {
            let Some(cpu) = state.cpu.as_deref_mut() else {
                continue;
            };
            for mut thread in cpu.finish(end_ns).model_cpu() {
                thread.name = format!("{}/{}", self.lines.names[host], thread.name);
                threads.push(thread);
            }
        }
        threads
    }
}
