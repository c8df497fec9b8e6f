//! Lock waits over the whole run and per window, and what spawns cost.

use super::LockWindowEvent;
use super::METRICS;
use crate::latencies::Latencies;
use crate::trace::{Section, Summary};

#[derive(Debug)]
pub(crate) struct LockStats {
    pub spawns: u64,
    pub invariant_violations: u64,
    pub reads: u64,
    waits: Latencies,
    /// The longest wait still running at the end, which no histogram holds.
    unfinished_max_ns: u64,
    window: Latencies,
    window_from_ns: u64,
    first_window_p99_ns: Option<u64>,
    last_window_p99_ns: u64,
    spawn_costs: Latencies,
}

impl LockStats {
    pub fn new() -> Self {
        LockStats {
            spawns: 0,
            invariant_violations: 0,
            reads: 0,
            waits: Latencies::new(),
            unfinished_max_ns: 0,
            window: Latencies::new(),
            window_from_ns: 0,
            first_window_p99_ns: None,
            last_window_p99_ns: 0,
            spawn_costs: Latencies::new(),
        }
    }

    pub fn wait(&mut self, waited_ns: u64) {
        self.waits.record(waited_ns);
        self.window.record(waited_ns);
    }

    /// A wait still running at the end: it counts towards the maximum only.
    pub fn unfinished_wait(&mut self, waited_ns: u64) {
        self.unfinished_max_ns = self.unfinished_max_ns.max(waited_ns);
    }

    pub fn spawn_cost(&mut self, cost_ns: u64) {
        self.spawn_costs.record(cost_ns);
    }

    pub fn window_from_ns(&self) -> u64 {
        self.window_from_ns
    }

    /// Closes the window ending at `t_ns`.
    pub fn close_window(&mut self, t_ns: u64, memory_mib: u64) -> LockWindowEvent {
        let p99_ns = self.window.quantile(0.99);
        let event = LockWindowEvent {
            t_ns,
            from_ns: self.window_from_ns,
            acquisitions: self.window.len(),
            p50_wait_ns: self.window.quantile(0.5),
            p99_wait_ns: p99_ns,
            max_wait_ns: self.window.max_ns(),
            memory_mib,
        };
        self.first_window_p99_ns.get_or_insert(p99_ns);
        self.last_window_p99_ns = p99_ns;
        self.window.reset();
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
            self.waits.quantile(0.5),
            self.waits.quantile(0.99),
            self.waits.max_ns().max(self.unfinished_max_ns),
            self.first_window_p99_ns.unwrap_or(0),
            self.last_window_p99_ns,
            waiting_at_end,
            self.spawn_costs.quantile(0.5),
            self.spawn_costs.max_ns(),
            memory_mib,
            busiest_core,
            self.invariant_violations,
        ];
        let mut summary = Summary::new("lock", end_ns, METRICS, &values, Vec::new());
        summary.parts = parts;
        summary
    }
}
