//! One measured figure, and draws from it.

use rand_distr::{Distribution, LogNormal};
use ticklab_sim::SimRng;

/// The 99th percentile of a standard normal distribution.
const Z_99: f64 = 2.326_347_874;

/// A cost's median and 99th percentile, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    pub p50_ns: u64,
    pub p99_ns: u64,
}

impl Cost {
    /// A cost that never varies.
    pub const fn fixed(ns: u64) -> Self {
        Cost {
            p50_ns: ns,
            p99_ns: ns,
        }
    }

    /// A draw from the log-normal distribution with this median and 99th percentile: system-call
    /// latencies are skewed to the right, with a long tail and no negative values.
    pub fn sample(&self, rng: &mut SimRng) -> u64 {
        if self.p99_ns <= self.p50_ns {
            return self.p50_ns;
        }
        let mu = (self.p50_ns as f64).ln();
        let sigma = (self.p99_ns as f64 / self.p50_ns as f64).ln() / Z_99;
        let distribution = LogNormal::new(mu, sigma).expect("sigma is finite and positive");
        distribution.sample(rng).round().max(1.0) as u64
    }

    /// The distribution's mean, which sums of many draws approach.
    pub fn mean_ns(&self) -> f64 {
        let sigma = (self.p99_ns as f64 / self.p50_ns.max(1) as f64).ln() / Z_99;
        self.p50_ns as f64 * (sigma * sigma / 2.0).exp()
    }

    /// This cost moved by `delta_ns`, both percentiles, and never below 1 ns.
    pub fn shifted(&self, delta_ns: i64) -> Self {
        let shift = |ns: u64| (ns as i64).saturating_add(delta_ns).max(1) as u64;
        Cost {
            p50_ns: shift(self.p50_ns),
            p99_ns: shift(self.p99_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_have_the_stated_median_and_99th_percentile() {
        let cost = Cost {
            p50_ns: 67_000,
            p99_ns: 97_000,
        };
        let mut rng = SimRng::for_purpose(7, "cost-test");
        let mut draws: Vec<u64> = (0..20_000).map(|_| cost.sample(&mut rng)).collect();
        draws.sort_unstable();
        let p50 = draws[draws.len() / 2] as f64;
        let p99 = draws[draws.len() * 99 / 100] as f64;
        assert!((p50 / 67_000.0 - 1.0).abs() < 0.02, "p50 {p50}");
        assert!((p99 / 97_000.0 - 1.0).abs() < 0.03, "p99 {p99}");
    }

    #[test]
    fn a_fixed_cost_always_draws_itself() {
        let mut rng = SimRng::for_purpose(7, "cost-test");
        assert_eq!(Cost::fixed(60).sample(&mut rng), 60);
    }
}
