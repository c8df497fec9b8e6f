//! CPU time of simulated threads.
//!
//! A thread runs one stretch of work at a time. Work that is cut by a freeze (system or process
//! suspend) pauses and finishes after the thaw, so CPU time is only ever charged while the process
//! can run. Busy time is also binned over physical time, to find the worst second of a run.

use crate::bins::BusyBins;
use crate::meter::BusyMeter;

/// Index of a simulated thread in its world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadId(pub u32);

/// CPU accounting for one simulated thread.
#[derive(Clone, Debug)]
pub struct SimThread {
    name: String,
    /// The current stretch of work, `[span_start_ns, span_end_ns)`, not yet charged.
    span_start_ns: u64,
    span_end_ns: u64,
    /// Work left over when the thread was frozen mid-stretch.
    frozen_remaining_ns: Option<u64>,
    meter: BusyMeter,
}

/// Totals for one thread at the end of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadCpu {
    pub name: String,
    pub busy_ns: u64,
    /// The most busy time in any one second of physical time, and where that second starts.
    pub worst_second_busy_ns: u64,
    pub worst_second_start_ns: u64,
    /// The busiest second of each span of the run: what plots draw as utilisation.
    pub bins: BusyBins,
}

impl SimThread {
    pub fn new(name: impl Into<String>) -> Self {
        SimThread {
            name: name.into(),
            span_start_ns: 0,
            span_end_ns: 0,
            frozen_remaining_ns: None,
            meter: BusyMeter::default(),
        }
    }

    /// When the thread finishes the work it has; it is idle from then on.
    #[inline]
    pub fn busy_until_ns(&self) -> u64 {
        self.span_end_ns
    }

    /// Queues `cost_ns` of work at `now_ns`, after whatever the thread is already doing; returns
    /// when it will be done if nothing freezes the thread.
    pub fn run(&mut self, now_ns: u64, cost_ns: u64) -> u64 {
        if cost_ns == 0 {
            return self.span_end_ns.max(now_ns);
        }
        if now_ns > self.span_end_ns {
            self.charge(self.span_start_ns, self.span_end_ns);
            self.span_start_ns = now_ns;
            self.span_end_ns = now_ns;
        }
        self.span_end_ns += cost_ns;
        self.span_end_ns
    }

    /// The process stops at `now_ns`: the rest of the current stretch waits for the thaw.
    pub fn freeze(&mut self, now_ns: u64) {
        if self.span_end_ns > now_ns {
            self.frozen_remaining_ns = Some(self.span_end_ns - now_ns);
            self.charge(self.span_start_ns, now_ns);
            self.span_start_ns = now_ns;
            self.span_end_ns = now_ns;
        }
    }

    /// The process runs again at `now_ns` and picks up any work the freeze cut short.
    pub fn thaw(&mut self, now_ns: u64) {
        if let Some(remaining_ns) = self.frozen_remaining_ns.take() {
            self.span_start_ns = now_ns;
            self.span_end_ns = now_ns + remaining_ns;
        }
    }

    /// Charges what is left up to `end_ns` and reports the totals.
    pub fn finish(&mut self, end_ns: u64) -> ThreadCpu {
        let span_end_ns = self.span_end_ns.min(end_ns);
        if span_end_ns > self.span_start_ns {
            self.charge(self.span_start_ns, span_end_ns);
        }
        self.span_start_ns = end_ns;
        self.span_end_ns = end_ns.max(self.span_end_ns);
        let busy = self.meter.finish();
        ThreadCpu {
            name: self.name.clone(),
            busy_ns: busy.busy_ns,
            worst_second_busy_ns: busy.worst_second_busy_ns,
            worst_second_start_ns: busy.worst_second_start_ns,
            bins: busy.bins,
        }
    }

    fn charge(&mut self, start_ns: u64, end_ns: u64) {
        self.meter.add(start_ns, end_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn back_to_back_work_queues_behind_the_current_stretch() {
        let mut thread = SimThread::new("rt");
        assert_eq!(thread.run(100 * MS, 2 * MS), 102 * MS);
        assert_eq!(thread.run(100 * MS, 2 * MS), 104 * MS);
        assert_eq!(thread.run(200 * MS, MS), 201 * MS);
        let cpu = thread.finish(1_000 * MS);
        assert_eq!(cpu.busy_ns, 5 * MS);
        assert_eq!(cpu.bins.busiest_second_ns, [5 * MS]);
    }

    #[test]
    fn busy_time_is_split_across_the_seconds_it_spans() {
        let mut thread = SimThread::new("rt");
        thread.run(999 * MS, 3 * MS);
        thread.run(2_500 * MS, MS);
        let cpu = thread.finish(4_000 * MS);
        assert_eq!(cpu.bins.busiest_second_ns, [MS, 2 * MS, MS]);
    }

    #[test]
    fn a_freeze_pauses_work_and_the_thaw_finishes_it() {
        let mut thread = SimThread::new("rt");
        thread.run(0, 10 * MS);
        thread.freeze(4 * MS);
        thread.thaw(5_000 * MS);
        assert_eq!(thread.busy_until_ns(), 5_006 * MS);
        let cpu = thread.finish(10_000 * MS);
        assert_eq!(cpu.busy_ns, 10 * MS);
        assert_eq!(cpu.worst_second_busy_ns, 6 * MS);
        assert_eq!(cpu.worst_second_start_ns, 5_000 * MS);
    }

    #[test]
    fn the_worst_second_is_any_one_second_window_clipped_at_the_end() {
        let mut thread = SimThread::new("rt");
        thread.run(900 * MS, 300 * MS);
        thread.run(1_900 * MS, 900 * MS);
        let cpu = thread.finish(2_500 * MS);
        assert_eq!(cpu.busy_ns, 300 * MS + 600 * MS);
        assert_eq!(
            (cpu.worst_second_busy_ns, cpu.worst_second_start_ns),
            (600 * MS, 1_900 * MS)
        );
    }

    #[test]
    fn a_burst_that_straddles_a_second_boundary_counts_whole() {
        let mut thread = SimThread::new("rt");
        for _ in 0..393 {
            thread.run(407_500 * MS, 2 * MS);
        }
        thread.run(408_500 * MS, 2 * MS);
        let cpu = thread.finish(480_000 * MS);
        assert_eq!(
            (cpu.worst_second_busy_ns, cpu.worst_second_start_ns),
            (786 * MS, 407_500 * MS)
        );
    }

    #[test]
    fn windows_anchor_at_every_span_not_only_the_first() {
        let mut thread = SimThread::new("rt");
        thread.run(0, 100 * MS);
        thread.run(950 * MS, 100 * MS);
        thread.run(1_100 * MS, 800 * MS);
        let cpu = thread.finish(10_000 * MS);
        // [950 ms, 1950 ms) holds 100 + 800 ms.
        assert_eq!(
            (cpu.worst_second_busy_ns, cpu.worst_second_start_ns),
            (900 * MS, 950 * MS)
        );
    }
}
