//! Ticks or fires per wall-clock second, in memory bounded whatever the run's length.
//!
//! Each wall second that holds a tick is counted as the trace streams past, and kept with the
//! physical time of its first tick, so that a wall step shows as bars out of step with the axis.
//! While the run has at most [`MAX_BARS`] such seconds, every one is kept and drawn as its own
//! bar. Past that, the seconds are folded into bins of physical time, each keeping the busiest
//! second in it, as the CPU lines do ([`ticklab_sim::BusyBins`]): a 392-tick burst in a run of a
//! year still shows at its full height. A bin spans a power of two of seconds, doubling as the
//! run goes on, so a run of a century keeps as many bars as one of twenty minutes.

const NS_PER_SEC: u64 = 1_000_000_000;

/// Most bars the panel draws: about one a pixel of its width.
pub const MAX_BARS: usize = 1024;

/// One wall second: which (how many wall steps came before it, and the second since the wall
/// clock's start), the physical time of its first tick, and its ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Second {
    key: (usize, i64),
    first_ns: u64,
    count: u64,
}

/// One bar to draw: where it starts and how wide it is in physical time, and its height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bar {
    pub from_ns: u64,
    pub width_ns: u64,
    pub count: u64,
}

/// The busiest wall second of each bin of `bin_secs` seconds of physical time, by when its
/// first tick happened.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bins {
    bin_secs: u64,
    busiest: Vec<u64>,
}

impl Bins {
    fn add(&mut self, second: Second) {
        let physical_second = second.first_ns / NS_PER_SEC;
        while physical_second / self.bin_secs >= MAX_BARS as u64 {
            self.coarsen();
        }
        let bin = (physical_second / self.bin_secs) as usize;
        if self.busiest.len() <= bin {
            self.busiest.resize(bin + 1, 0);
        }
        self.busiest[bin] = self.busiest[bin].max(second.count);
    }

    /// Doubles the span of each bin, merging neighbours.
    fn coarsen(&mut self) {
        self.busiest = self
            .busiest
            .chunks(2)
            .map(|pair| pair.iter().copied().max().unwrap_or(0))
            .collect();
        self.bin_secs *= 2;
    }
}

/// Ticks or fires per wall second, counted from a trace in time order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WallSeconds {
    /// The second being counted: a trace in time order gives each wall second's ticks together.
    current: Option<Second>,
    /// Every second closed so far, while there are at most [`MAX_BARS`].
    exact: Vec<Second>,
    /// The seconds folded into bins, once there were more.
    binned: Option<Bins>,
}

impl WallSeconds {
    /// One tick at physical `t_ns`, in wall second `second` after `steps` wall steps.
    pub fn count(&mut self, steps: usize, second: i64, t_ns: u64) {
        let key = (steps, second);
        match &mut self.current {
            Some(current) if current.key == key => current.count += 1,
            _ => {
                let next = Second {
                    key,
                    first_ns: t_ns,
                    count: 1,
                };
                if let Some(done) = self.current.replace(next) {
                    self.close(done);
                }
            }
        }
    }

    fn close(&mut self, second: Second) {
        if let Some(bins) = &mut self.binned {
            bins.add(second);
            return;
        }
        self.exact.push(second);
        if self.exact.len() > MAX_BARS {
            let mut bins = Bins {
                bin_secs: 1,
                busiest: Vec::new(),
            };
            for second in self.exact.drain(..) {
                bins.add(second);
            }
            self.binned = Some(bins);
        }
    }

    /// Seconds each bar spans once the seconds are binned; `None` while each is its own bar.
    pub fn bin_secs(&self) -> Option<u64> {
        self.binned.as_ref().map(|bins| bins.bin_secs)
    }

    /// The bars in time order, the second still being counted included.
    pub fn bars(&self) -> Vec<Bar> {
        let mut all = self.clone();
        if let Some(current) = all.current.take() {
            all.close(current);
        }
        match &all.binned {
            None => all
                .exact
                .iter()
                .map(|second| Bar {
                    from_ns: second.first_ns,
                    width_ns: NS_PER_SEC,
                    count: second.count,
                })
                .collect(),
            Some(bins) => {
                let width_ns = bins.bin_secs * NS_PER_SEC;
                bins.busiest
                    .iter()
                    .enumerate()
                    .filter(|&(_, &count)| count > 0)
                    .map(|(bin, &count)| Bar {
                        from_ns: bin as u64 * width_ns,
                        width_ns,
                        count,
                    })
                    .collect()
            }
        }
    }

    /// The most ticks in any one wall second.
    pub fn most(&self) -> u64 {
        let current = self.current.map_or(0, |second| second.count);
        let exact = self.exact.iter().map(|second| second.count);
        let binned = self.binned.iter().flat_map(|bins| bins.busiest.iter());
        exact.chain(binned.copied()).fold(current, u64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = NS_PER_SEC;

    #[test]
    fn a_short_run_keeps_every_second_where_its_first_tick_was() {
        let mut seconds = WallSeconds::default();
        seconds.count(0, 25, 25 * S + S / 2);
        seconds.count(0, 26, 26 * S);
        seconds.count(0, 26, 26 * S + S / 2);
        // A step back repeats second 25, counted apart.
        seconds.count(1, 25, 30 * S + S / 2);
        assert_eq!(seconds.bin_secs(), None);
        assert_eq!(
            seconds.bars(),
            [
                Bar {
                    from_ns: 25 * S + S / 2,
                    width_ns: S,
                    count: 1
                },
                Bar {
                    from_ns: 26 * S,
                    width_ns: S,
                    count: 2
                },
                Bar {
                    from_ns: 30 * S + S / 2,
                    width_ns: S,
                    count: 1
                },
            ]
        );
        assert_eq!(seconds.most(), 2);
    }

    #[test]
    fn a_hundred_days_keep_a_bounded_number_of_bars_and_the_one_burst() {
        // One tick a second for 100 days, and 392 in the second after a sleep on day 40.
        let days_s = 100 * 86_400;
        let burst_s = 40 * 86_400 + 17;
        let mut seconds = WallSeconds::default();
        for second in 0..days_s {
            let ticks = if second == burst_s { 392 } else { 1 };
            for _ in 0..ticks {
                seconds.count(0, second as i64, second * S);
            }
        }
        let bars = seconds.bars();
        assert!(bars.len() <= MAX_BARS, "{} bars", bars.len());
        let bin_secs = seconds.bin_secs().expect("binned");
        assert!(bin_secs.is_power_of_two() && bin_secs * MAX_BARS as u64 >= days_s);
        let busiest: Vec<&Bar> = bars.iter().filter(|bar| bar.count > 1).collect();
        assert_eq!(busiest.len(), 1, "only the burst stands out");
        let burst = busiest[0];
        assert_eq!(burst.count, 392);
        assert!(burst.from_ns <= burst_s * S && burst_s * S < burst.from_ns + burst.width_ns);
        assert_eq!(seconds.most(), 392);
        assert!(bars.iter().all(|bar| bar.width_ns == bin_secs * S));
    }

    #[test]
    fn the_second_past_the_limit_folds_the_kept_ones_into_bins() {
        let mut seconds = WallSeconds::default();
        for second in 0..=MAX_BARS as u64 + 1 {
            seconds.count(0, second as i64, second * S);
        }
        assert_eq!(seconds.bin_secs(), Some(2));
        let bars = seconds.bars();
        assert_eq!(bars.len(), MAX_BARS / 2 + 1);
        assert!(bars.iter().all(|bar| bar.count == 1));
    }
}
