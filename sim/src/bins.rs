//! A thread's busy time over the run, in bounded memory: what plots draw as utilisation.
//!
//! Each bin spans `bin_secs` whole seconds of physical time (a power of two) and keeps the
//! busiest one second in it, not the average, so a one-second burst in a year-long run still
//! shows at its full height. While the run fits in [`MAX_BINS`] seconds, each bin is one second.
//! Past that, neighbouring bins merge and the span doubles, so memory stays at most
//! [`MAX_BINS`] words per thread however long the run: a run of 100 years keeps as many as one
//! of 20 minutes.

use crate::time::NS_PER_SEC;

/// Most bins a thread keeps.
pub const MAX_BINS: usize = 1024;

/// Busy time per span of physical time: the busiest second of each span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusyBins {
    /// Seconds each bin spans, from 0: 1, 2, 4, ...
    pub bin_secs: u64,
    /// The busy time of the busiest whole second in each bin; seconds after the last busy one
    /// have no bin.
    pub busiest_second_ns: Vec<u64>,
}

impl Default for BusyBins {
    fn default() -> Self {
        BusyBins {
            bin_secs: 1,
            busiest_second_ns: Vec::new(),
        }
    }
}

impl BusyBins {
    /// Counts `busy_ns` for every second in `[first_second, end_second)`.
    fn fold(&mut self, first_second: u64, end_second: u64, busy_ns: u64) {
        debug_assert!(first_second < end_second);
        let last_second = end_second - 1;
        while last_second / self.bin_secs >= MAX_BINS as u64 {
            self.coarsen();
        }
        let (first_bin, last_bin) = (
            (first_second / self.bin_secs) as usize,
            (last_second / self.bin_secs) as usize,
        );
        if self.busiest_second_ns.len() <= last_bin {
            self.busiest_second_ns.resize(last_bin + 1, 0);
        }
        for bin in &mut self.busiest_second_ns[first_bin..=last_bin] {
            *bin = (*bin).max(busy_ns);
        }
    }

    /// Doubles the span of each bin, merging neighbours.
    fn coarsen(&mut self) {
        let merged: Vec<u64> = self
            .busiest_second_ns
            .chunks(2)
            .map(|pair| pair.iter().copied().max().unwrap_or(0))
            .collect();
        self.busiest_second_ns = merged;
        self.bin_secs *= 2;
    }
}

/// Streams busy stretches, in time order and never overlapping, into [`BusyBins`].
#[derive(Clone, Debug, Default)]
pub(crate) struct BinMeter {
    bins: BusyBins,
    /// The second being summed, and its busy time so far.
    second: u64,
    second_busy_ns: u64,
}

impl BinMeter {
    pub(crate) fn add(&mut self, start_ns: u64, end_ns: u64) {
        debug_assert!(start_ns < end_ns);
        let first_second = start_ns / NS_PER_SEC;
        self.enter(first_second);
        let first_end_ns = (first_second + 1) * NS_PER_SEC;
        self.second_busy_ns += end_ns.min(first_end_ns) - start_ns;
        if end_ns <= first_end_ns {
            return;
        }
        // Whole seconds in the middle are each fully busy: folded at once, so a stretch of a
        // year costs as little as a stretch of a second.
        let last_second = end_ns / NS_PER_SEC;
        if last_second > first_second + 1 {
            self.bins.fold(first_second + 1, last_second, NS_PER_SEC);
        }
        self.enter(last_second);
        self.second_busy_ns += end_ns - last_second * NS_PER_SEC;
    }

    /// Moves on to `second`, folding the one being summed.
    fn enter(&mut self, second: u64) {
        if second != self.second {
            self.close();
            self.second = second;
        }
    }

    fn close(&mut self) {
        if self.second_busy_ns > 0 {
            self.bins
                .fold(self.second, self.second + 1, self.second_busy_ns);
            self.second_busy_ns = 0;
        }
    }

    pub(crate) fn finish(&mut self) -> BusyBins {
        self.close();
        self.bins.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn binned(stretches: &[(u64, u64)]) -> BusyBins {
        let mut meter = BinMeter::default();
        for &(start_ns, end_ns) in stretches {
            meter.add(start_ns, end_ns);
        }
        meter.finish()
    }

    #[test]
    fn short_runs_keep_one_bin_a_second() {
        let bins = binned(&[(999 * MS, 1_002 * MS), (2_500 * MS, 2_501 * MS)]);
        assert_eq!(bins.bin_secs, 1);
        assert_eq!(bins.busiest_second_ns, [MS, 2 * MS, MS]);
    }

    #[test]
    fn a_long_stretch_fills_every_second_it_covers() {
        let bins = binned(&[(500 * MS, 3_250 * MS)]);
        assert_eq!(
            bins.busiest_second_ns,
            [500 * MS, 1_000 * MS, 1_000 * MS, 250 * MS]
        );
    }

    #[test]
    fn a_long_run_merges_bins_and_keeps_its_busiest_second() {
        // One 700 ms burst at second 5,000 among 1 ms a second over 100 years.
        let year_s = 365 * 86_400;
        let mut meter = BinMeter::default();
        for second in (0..100 * year_s).step_by(year_s as usize / 10) {
            meter.add(second * NS_PER_SEC, second * NS_PER_SEC + MS);
        }
        meter.add(5_000 * NS_PER_SEC, 5_000 * NS_PER_SEC + 700 * MS);
        meter.add(100 * year_s * NS_PER_SEC, 100 * year_s * NS_PER_SEC + MS);
        let bins = meter.finish();
        assert!(bins.busiest_second_ns.len() <= MAX_BINS);
        assert!(bins.bin_secs.is_power_of_two() && bins.bin_secs > 1);
        assert_eq!(
            bins.busiest_second_ns[(5_000 / bins.bin_secs) as usize],
            700 * MS
        );
        assert_eq!(bins.busiest_second_ns.iter().max(), Some(&(700 * MS)));
    }

    #[test]
    fn a_stretch_of_a_century_is_folded_without_visiting_each_second() {
        let century_ns = 100 * 365 * 86_400 * NS_PER_SEC;
        let bins = binned(&[(0, century_ns)]);
        assert!(bins.busiest_second_ns.len() <= MAX_BINS);
        assert!(bins.busiest_second_ns.iter().all(|&ns| ns == NS_PER_SEC));
    }
}
