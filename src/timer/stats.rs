//! Streaming statistics of a timer run.

use ticklab_sim::{NS_PER_SEC, ThreadCpu};

use super::METRICS;
use crate::expect::Metric;
use crate::expect::NEVER;
use crate::latencies::Latencies;
use crate::trace::Summary;

/// The design's memory at the end of a run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Memory {
    pub(crate) live_slots: u64,
    /// What one slot stands for, in bytes.
    pub(crate) task_bytes: u64,
}

#[derive(Debug)]
pub(crate) struct TimerStats {
    pub(crate) calls: u64,
    pub(crate) timeouts: u64,
    pub(crate) cancels: u64,
    pub(crate) late_responses: u64,
    pub(crate) schedule_failures: u64,
    pub(crate) wakeups: u64,
    pub(crate) global_lock_schedules: u64,
    pub(crate) waking_schedules: u64,
    pub(crate) early_fires: u64,
    pub(crate) duplicates: u64,
    /// Timers whose call's response found them gone, though they never fired and were never
    /// cancelled.
    pub(crate) vanished: u64,
    /// Timers the design had not fired by their deadline and its promise, with its threads free
    /// to fire them.
    pub(crate) missed: u64,
    /// Lateness of on-time and late fires, in ns: percentiles to three significant digits, the
    /// maximum exact.
    lateness: Latencies,
    /// Fires later than this after their timeout are postponed: the timer's resolution.
    postponed_after_ns: u64,
    postponed: u64,
    first_fire_at_ns: u64,
    last_fire_at_ns: u64,
    worst_fire_at_ns: u64,
    pub(crate) peak_live_slots: u64,
}

impl TimerStats {
    pub(crate) fn new(postponed_after_ns: u64) -> Self {
        TimerStats {
            calls: 0,
            timeouts: 0,
            cancels: 0,
            late_responses: 0,
            schedule_failures: 0,
            wakeups: 0,
            global_lock_schedules: 0,
            waking_schedules: 0,
            early_fires: 0,
            duplicates: 0,
            vanished: 0,
            missed: 0,
            lateness: Latencies::new(),
            postponed_after_ns,
            postponed: 0,
            first_fire_at_ns: NEVER,
            last_fire_at_ns: NEVER,
            worst_fire_at_ns: NEVER,
            peak_live_slots: 0,
        }
    }

    /// Slots in use, read now.
    pub(crate) fn on_live(&mut self, live_slots: u64) {
        self.peak_live_slots = self.peak_live_slots.max(live_slots);
    }

    /// A timer never fires early, twice, or after a successful cancel, never vanishes unfired,
    /// and fires within its design's promise once it is due.
    pub(crate) fn violations(&self) -> u64 {
        self.early_fires + self.duplicates + self.vanished + self.missed
    }

    /// A timer fired at `at_ns`, `lateness_ns` after its timeout, behind `queued_ns` of the
    /// callbacks before it in its round: that CPU is the machine's delay, not the design's.
    pub(crate) fn on_fire(&mut self, at_ns: u64, lateness_ns: i64, queued_ns: u64) {
        self.timeouts += 1;
        if self.first_fire_at_ns == NEVER {
            self.first_fire_at_ns = at_ns;
        }
        self.last_fire_at_ns = at_ns;
        if lateness_ns < 0 {
            self.early_fires += 1;
            return;
        }
        let lateness_ns = lateness_ns as u64;
        if lateness_ns > self.lateness.max_ns() || self.worst_fire_at_ns == NEVER {
            self.worst_fire_at_ns = at_ns;
        }
        self.lateness.record(lateness_ns);
        if lateness_ns.saturating_sub(queued_ns) > self.postponed_after_ns {
            self.postponed += 1;
        }
    }

    pub(crate) fn into_summary(
        mut self,
        end_ns: u64,
        lost: u64,
        memory: Memory,
        (metrics, design_values): (&[Metric], &[u64]),
        threads: Vec<ThreadCpu>,
    ) -> Summary {
        self.on_live(memory.live_slots);
        let cpu_worst_ns = threads
            .iter()
            .map(|thread| thread.worst_second_busy_ns)
            .max()
            .unwrap_or(0);
        let seconds = (end_ns / NS_PER_SEC).max(1);
        let values = [
            self.calls,
            self.timeouts,
            self.cancels,
            self.late_responses,
            self.schedule_failures,
            self.wakeups,
            self.wakeups / seconds,
            self.global_lock_schedules,
            self.waking_schedules,
            self.lateness.quantile(0.5),
            self.lateness.quantile(0.99),
            self.lateness.max_ns(),
            self.postponed,
            self.first_fire_at_ns,
            self.last_fire_at_ns,
            self.worst_fire_at_ns,
            self.early_fires,
            lost,
            self.missed,
            self.duplicates,
            cpu_worst_ns,
            memory.live_slots,
            self.peak_live_slots,
            self.peak_live_slots.saturating_mul(memory.task_bytes),
            self.violations(),
        ];
        debug_assert_eq!(values.len(), METRICS.len());
        let values: Vec<u64> = values.iter().chain(design_values).copied().collect();
        Summary::new("timer", end_ns, metrics, &values, threads)
    }
}
