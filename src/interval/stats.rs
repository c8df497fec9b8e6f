//! Streaming statistics of an interval run: O(1) work per tick, O(intervals) memory.

use ticklab_sim::{EdgeEffect, NS_PER_SEC, ThreadCpu};

use crate::expect::NEVER;
use crate::trace::Summary;

use super::METRICS;

#[derive(Debug)]
pub(crate) struct IntervalStats {
    ticks: u64,
    resumes: u64,
    /// The first physical second after the latest resume, and the ticks in it so far.
    resume_window_end_ns: u64,
    resume_window_ticks: u64,
    max_ticks_after_resume: u64,
    /// Ticks stamped with the same wall-clock second, counted while consecutive ticks share it.
    /// The wall-clock second of the latest tick, as the span `[start, last]` of wall ns it covers:
    /// two comparisons a tick instead of a division.
    wall_second_start_ns: i64,
    wall_second_last_ns: i64,
    wall_second_ticks: u64,
    max_ticks_per_wall_second: u64,
    max_lateness_ns: u64,
    first_tick_at_ns: u64,
    last_tick_at_ns: u64,
    worst_tick_at_ns: u64,
    last_tick_ns: Vec<u64>,
    longest_gap_ns: u64,
}

const NO_TICK_YET: u64 = u64::MAX;

impl IntervalStats {
    pub(crate) fn new(intervals: usize) -> Self {
        IntervalStats {
            ticks: 0,
            resumes: 0,
            resume_window_end_ns: 0,
            resume_window_ticks: 0,
            max_ticks_after_resume: 0,
            wall_second_start_ns: 0,
            wall_second_last_ns: -1,
            wall_second_ticks: 0,
            max_ticks_per_wall_second: 0,
            max_lateness_ns: 0,
            first_tick_at_ns: NEVER,
            last_tick_at_ns: NEVER,
            worst_tick_at_ns: NEVER,
            last_tick_ns: vec![NO_TICK_YET; intervals],
            longest_gap_ns: 0,
        }
    }

    #[inline]
    pub(crate) fn on_tick(&mut self, interval: usize, now_ns: u64, wall_ns: i64, lateness_ns: i64) {
        self.ticks += 1;
        if now_ns < self.resume_window_end_ns {
            self.resume_window_ticks += 1;
            self.max_ticks_after_resume = self.max_ticks_after_resume.max(self.resume_window_ticks);
        }
        // The span starts empty, so the first tick opens its second.
        if wall_ns < self.wall_second_start_ns || wall_ns > self.wall_second_last_ns {
            self.wall_second_start_ns = wall_ns - wall_ns.rem_euclid(NS_PER_SEC as i64);
            self.wall_second_last_ns = self
                .wall_second_start_ns
                .saturating_add(NS_PER_SEC as i64 - 1);
            self.wall_second_ticks = 0;
        }
        self.wall_second_ticks += 1;
        self.max_ticks_per_wall_second = self.max_ticks_per_wall_second.max(self.wall_second_ticks);
        let lateness_ns = lateness_ns.max(0) as u64;
        if lateness_ns > self.max_lateness_ns || self.ticks == 1 {
            self.max_lateness_ns = lateness_ns;
            self.worst_tick_at_ns = now_ns;
        }
        if self.ticks == 1 {
            self.first_tick_at_ns = now_ns;
        }
        self.last_tick_at_ns = now_ns;
        let last_ns = std::mem::replace(&mut self.last_tick_ns[interval], now_ns);
        if last_ns != NO_TICK_YET {
            self.longest_gap_ns = self.longest_gap_ns.max(now_ns - last_ns);
        }
    }

    pub(crate) fn on_fault(&mut self, now_ns: u64, effect: &EdgeEffect) {
        if effect.resumed_after_ns.is_some() {
            self.resumes += 1;
            self.resume_window_end_ns = now_ns + NS_PER_SEC;
            self.resume_window_ticks = 0;
        }
    }

    pub(crate) fn into_summary(
        self,
        end_ns: u64,
        threads: Vec<ThreadCpu>,
        invariant_violations: u64,
    ) -> Summary {
        let cpu_worst_ns = threads
            .iter()
            .map(|thread| thread.worst_second_busy_ns)
            .max()
            .unwrap_or(0);
        let values = [
            self.ticks,
            self.max_ticks_after_resume,
            self.max_ticks_per_wall_second,
            cpu_worst_ns,
            self.max_lateness_ns,
            self.first_tick_at_ns,
            self.last_tick_at_ns,
            self.worst_tick_at_ns,
            self.longest_gap_ns,
            self.resumes,
            invariant_violations,
        ];
        Summary::new("interval", end_ns, METRICS, &values, threads)
    }
}
