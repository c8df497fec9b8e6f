//! Streaming statistics of an executor run: the whole process, each task group, each worker.

use hdrhistogram::Histogram;

use super::{GROUP_METRICS, METRICS, WORKER_METRICS};
use crate::trace::{Section, Summary};

fn histogram() -> Histogram<u64> {
    Histogram::new(3).expect("three significant digits is a valid precision")
}

fn record(histogram: &mut Histogram<u64>, value_ns: u64) {
    histogram
        .record(value_ns)
        .expect("an auto-resizing histogram takes any u64");
}

fn quantile(histogram: &Histogram<u64>, q: f64) -> u64 {
    if histogram.is_empty() {
        0
    } else {
        histogram.value_at_quantile(q)
    }
}

#[derive(Debug)]
pub(crate) struct GroupStats {
    name: String,
    pub started: u64,
    pub finished: u64,
    /// Percentiles come from histograms at three significant digits; maxima are kept exact.
    latency: Histogram<u64>,
    max_latency_ns: u64,
    io_latency: Histogram<u64>,
    max_io_latency_ns: u64,
}

impl GroupStats {
    pub fn finish(&mut self, latency_ns: u64) {
        self.finished += 1;
        record(&mut self.latency, latency_ns);
        self.max_latency_ns = self.max_latency_ns.max(latency_ns);
    }

    pub fn io(&mut self, latency_ns: u64) {
        record(&mut self.io_latency, latency_ns);
        self.max_io_latency_ns = self.max_io_latency_ns.max(latency_ns);
    }

    fn section(&self) -> Section {
        // A histogram bucket's upper edge can pass the exact maximum; no percentile may.
        let latency = |q| quantile(&self.latency, q).min(self.max_latency_ns);
        let io_latency = |q| quantile(&self.io_latency, q).min(self.max_io_latency_ns);
        let values = [
            self.started,
            self.finished,
            latency(0.5),
            latency(0.99),
            self.max_latency_ns,
            self.io_latency.len(),
            io_latency(0.5),
            io_latency(0.99),
            self.max_io_latency_ns,
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
    pub polls: u64,
    pub steals: u64,
    pub lifo_hits: u64,
    pub driver_polls: u64,
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
                    latency: histogram(),
                    max_latency_ns: 0,
                    io_latency: histogram(),
                    max_io_latency_ns: 0,
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
            self.starvation_events,
            self.max_runnable_wait_ns,
            io_calls,
            self.cross_runtime_io_calls,
            connections_opened,
            self.max_send_wait_ns,
            self.max_driver_wait_ns,
            self.invariant_violations,
        ];
        let mut summary = Summary::new("executor", end_ns, METRICS, &values, Vec::new());
        summary.groups = self.groups.iter().map(GroupStats::section).collect();
        summary.parts = self
            .workers
            .iter()
            .zip(worker_names)
            .flat_map(|(stats, names)| stats.iter().zip(names))
            .map(|(worker, name)| {
                let idle_ns =
                    end_ns.saturating_sub(worker.busy_ns + worker.core_wait_ns + worker.parked_ns);
                let values = [
                    worker.busy_ns,
                    worker.core_wait_ns,
                    idle_ns,
                    worker.parked_ns,
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
