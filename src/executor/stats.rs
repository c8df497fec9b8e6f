//! Streaming statistics of an executor run: the whole process, each task group, each worker.

use super::{GROUP_METRICS, METRICS, WORKER_METRICS};
use crate::expect::Metric;
use crate::latencies::Latencies;
use crate::trace::{Section, Summary};

#[derive(Debug)]
pub(crate) struct GroupStats {
    name: String,
    pub started: u64,
    pub finished: u64,
    latency: Latencies,
    io_latency: Latencies,
    pub timeouts: u64,
    timer_lateness: Latencies,
}

impl GroupStats {
    pub fn finish(&mut self, latency_ns: u64) {
        self.finished += 1;
        self.latency.record(latency_ns);
    }

    pub fn io(&mut self, latency_ns: u64) {
        self.io_latency.record(latency_ns);
    }

    pub fn timer(&mut self, lateness_ns: u64) {
        self.timer_lateness.record(lateness_ns);
    }

    fn section(&self) -> Section {
        let values = [
            self.started,
            self.finished,
            self.latency.quantile(0.5),
            self.latency.quantile(0.99),
            self.latency.max_ns(),
            self.io_latency.len(),
            self.io_latency.quantile(0.5),
            self.io_latency.quantile(0.99),
            self.io_latency.max_ns(),
            self.timeouts,
            self.timer_lateness.len(),
            self.timer_lateness.quantile(0.5),
            self.timer_lateness.quantile(0.99),
            self.timer_lateness.max_ns(),
        ];
        Section::new("group", self.name.clone(), GROUP_METRICS, &values)
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct WorkerStats {
    pub busy_ns: u64,
    /// Inside a `cpu` step but waiting for a core, when threads outnumber cores.
    pub core_wait_ns: u64,
    pub parked_ns: u64,
    /// In a `block` step: its thread blocked, using no CPU.
    pub blocked_ns: u64,
    pub polls: u64,
    pub steals: u64,
    pub lifo_hits: u64,
    pub driver_polls: u64,
    pub parks: u64,
}

#[derive(Debug)]
pub(crate) struct ExecutorStats {
    pub groups: Vec<GroupStats>,
    /// By runtime, then worker.
    pub workers: Vec<Vec<WorkerStats>>,
    pub starvation_events: u64,
    pub max_runnable_wait_ns: u64,
    pub cross_runtime_io_calls: u64,
    pub max_send_wait_ns: u64,
    pub max_driver_wait_ns: u64,
    pub invariant_violations: u64,
}

impl ExecutorStats {
    pub fn new(group_names: &[String], workers: &[usize]) -> Self {
        ExecutorStats {
            groups: group_names
                .iter()
                .map(|name| GroupStats {
                    name: name.clone(),
                    started: 0,
                    finished: 0,
                    latency: Latencies::new(),
                    io_latency: Latencies::new(),
                    timeouts: 0,
                    timer_lateness: Latencies::new(),
                })
                .collect(),
            workers: workers
                .iter()
                .map(|&count| vec![WorkerStats::default(); count])
                .collect(),
            starvation_events: 0,
            max_runnable_wait_ns: 0,
            cross_runtime_io_calls: 0,
            max_send_wait_ns: 0,
            max_driver_wait_ns: 0,
            invariant_violations: 0,
        }
    }

    pub fn worker(&mut self, runtime: usize, worker: usize) -> &mut WorkerStats {
        &mut self.workers[runtime][worker]
    }

    /// The summary at `end_ns`; `worker_names` by runtime then worker, like `workers`.
    pub fn into_summary(
        self,
        end_ns: u64,
        worker_names: &[Vec<String>],
        connections_opened: u64,
        (metrics, design_values): (&[Metric], &[u64]),
    ) -> Summary {
        let total = |field: fn(&WorkerStats) -> u64| -> u64 {
            self.workers.iter().flatten().map(field).sum()
        };
        let started: u64 = self.groups.iter().map(|group| group.started).sum();
        let finished: u64 = self.groups.iter().map(|group| group.finished).sum();
        let io_calls: u64 = self.groups.iter().map(|group| group.io_latency.len()).sum();
        let values = [
            started,
            finished,
            started - finished,
            total(|worker| worker.polls),
            total(|worker| worker.steals),
            total(|worker| worker.lifo_hits),
            total(|worker| worker.driver_polls),
            total(|worker| worker.parks),
            self.starvation_events,
            self.max_runnable_wait_ns,
            io_calls,
            self.cross_runtime_io_calls,
            connections_opened,
            self.max_send_wait_ns,
            self.max_driver_wait_ns,
            self.invariant_violations,
        ];
        debug_assert_eq!(values.len(), METRICS.len());
        let values: Vec<u64> = values.iter().chain(design_values).copied().collect();
        let mut summary = Summary::new("executor", end_ns, metrics, &values, Vec::new());
        summary.groups = self.groups.iter().map(GroupStats::section).collect();
        summary.parts = self
            .workers
            .iter()
            .zip(worker_names)
            .flat_map(|(stats, names)| stats.iter().zip(names))
            .map(|(worker, name)| {
                let idle_ns = end_ns.saturating_sub(
                    worker.busy_ns + worker.core_wait_ns + worker.parked_ns + worker.blocked_ns,
                );
                let values = [
                    worker.busy_ns,
                    worker.core_wait_ns,
                    idle_ns,
                    worker.parked_ns,
                    worker.blocked_ns,
                    worker.polls,
                    worker.steals,
                    worker.lifo_hits,
                    worker.driver_polls,
                ];
                Section::new("worker", name.clone(), WORKER_METRICS, &values)
            })
            .collect();
        summary
    }
}
