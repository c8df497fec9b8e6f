//! Lock waits over the whole run and per window, and what spawns cost.

use hdrhistogram::Histogram;

use super::METRICS;
use crate::trace::{LockWindowEvent, Section, Summary};

fn histogram() -> Histogram<u64> {
    Histogram::new(3).expect("three significant digits is a valid precision")
}

fn record(histogram: &mut Histogram<u64>, value_ns: u64) {
    histogram
        .record(value_ns)
        .expect("an auto-resizing histogram takes any u64");
}

/// A histogram's percentile, never above the exact maximum kept beside it.
fn quantile(histogram: &Histogram<u64>, q: f64, max_ns: u64) -> u64 {
    if histogram.is_empty() {
        0
    } else {
        histogram.value_at_quantile(q).min(max_ns)
    }
}

#[derive(Debug)]
pub(crate) struct LockStats {
    pub spawns: u64,
    pub invariant_violations: u64,
    pub reads: u64,
    waits: Histogram<u64>,
    max_wait_ns: u64,
    window: Histogram<u64>,
    window_max_ns: u64,
    window_from_ns: u64,
    first_window_p99_ns: Option<u64>,
    last_window_p99_ns: u64,
    spawn_costs: Histogram<u64>,
    max_spawn_cost_ns: u64,
}

impl LockStats {
    pub fn new() -> Self {
        LockStats {
            spawns: 0,
            invariant_violations: 0,
            reads: 0,
            waits: histogram(),
            max_wait_ns: 0,
            window: histogram(),
            window_max_ns: 0,
            window_from_ns: 0,
            first_window_p99_ns: None,
            last_window_p99_ns: 0,
            spawn_costs: histogram(),
            max_spawn_cost_ns: 0,
        }
    }

    pub fn wait(&mut self, waited_ns: u64) {
        record(&mut self.waits, waited_ns);
        self.max_wait_ns = self.max_wait_ns.max(waited_ns);
        record(&mut self.window, waited_ns);
        self.window_max_ns = self.window_max_ns.max(waited_ns);
    }

    /// A wait still running at the end: it counts towards the maximum only.
    pub fn unfinished_wait(&mut self, waited_ns: u64) {
        self.max_wait_ns = self.max_wait_ns.max(waited_ns);
    }

    pub fn spawn_cost(&mut self, cost_ns: u64) {
        record(&mut self.spawn_costs, cost_ns);
        self.max_spawn_cost_ns = self.max_spawn_cost_ns.max(cost_ns);
    }

    pub fn window_from_ns(&self) -> u64 {
        self.window_from_ns
    }

    /// Closes the window ending at `t_ns`.
    pub fn close_window(&mut self, t_ns: u64, memory_mib: u64) -> LockWindowEvent {
        let p99_ns = quantile(&self.window, 0.99, self.window_max_ns);
        let event = LockWindowEvent {
            t_ns,
            from_ns: self.window_from_ns,
            acquisitions: self.window.len(),
            p50_wait_ns: quantile(&self.window, 0.5, self.window_max_ns),
            p99_wait_ns: p99_ns,
            max_wait_ns: self.window_max_ns,
            memory_mib,
        };
        self.first_window_p99_ns.get_or_insert(p99_ns);
        self.last_window_p99_ns = p99_ns;
        self.window.reset();
        self.window_max_ns = 0;
        self.window_from_ns = t_ns;
        event
    }

    pub fn into_summary(
        self,
        end_ns: u64,
        waiting_at_end: u64,
        memory_mib: u64,
        parts: Vec<Section>,
    ) -> Summary {
        let busiest_core = parts
            .iter()
            .filter(|part| part.kind == "core")
            .filter_map(|part| part.get("cpu_percent"))
            .max()
            .unwrap_or(0);
        let values = [
            self.spawns,
            self.reads,
            quantile(&self.waits, 0.5, self.max_wait_ns),
            quantile(&self.waits, 0.99, self.max_wait_ns),
            self.max_wait_ns,
            self.first_window_p99_ns.unwrap_or(0),
            self.last_window_p99_ns,
            waiting_at_end,
            quantile(&self.spawn_costs, 0.5, self.max_spawn_cost_ns),
            self.max_spawn_cost_ns,
            memory_mib,
            busiest_core,
            self.invariant_violations,
        ];
        let mut summary = Summary::new("lock", end_ns, METRICS, &values, Vec::new());
        summary.parts = parts;
        summary
    }
}
