//! Percentiles of measured samples, and the straight line through fork's cost at each size.

use crate::latencies::Latencies;
use crate::profile::Cost;

/// The measured durations of one figure, in ns, at the three significant digits profiles are
/// written with.
#[derive(Debug)]
pub(super) struct Samples(Latencies);

impl Samples {
    pub fn new() -> Self {
        Samples(Latencies::new())
    }

    pub fn record(&mut self, ns: u64) {
        self.0.record(ns);
    }

    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// The p50 and p99, made valid for a profile (see [`valid_cost`]).
    pub fn cost(&self) -> Cost {
        valid_cost(self.0.quantile(0.5), self.0.quantile(0.99))
    }
}

/// A p50 of at least 1 ns and a p99 of at least the p50, as profiles require: a figure below the
/// clock's resolution (an empty loop's iteration) or an overshoot the kernel happened to avoid
/// is still a cost the simulator draws from a log-normal distribution, which needs both above 0.
pub(super) fn valid_cost(p50_ns: u64, p99_ns: u64) -> Cost {
    let p50_ns = p50_ns.max(1);
    Cost {
        p50_ns,
        p99_ns: p99_ns.max(p50_ns),
    }
}

/// `total` divided by `count`, rounded to the nearest integer; 0 for no count.
pub(super) fn per_unit(total: u64, count: u64) -> u64 {
    if count == 0 {
        return 0;
    }
    total / count + u64::from(total % count >= count.div_ceil(2))
}

/// The slope of the least-squares line through `points` (x, y), or `None` when the x values do
/// not vary, so that no line is defined.
pub(super) fn least_squares_slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let mean_x = points.iter().map(|&(x, _)| x).sum::<f64>() / n;
    let mean_y = points.iter().map(|&(_, y)| y).sum::<f64>() / n;
    let spread_x: f64 = points.iter().map(|&(x, _)| (x - mean_x).powi(2)).sum();
    if spread_x == 0.0 {
        return None;
    }
    let covariance: f64 = points
        .iter()
        .map(|&(x, y)| (x - mean_x) * (y - mean_y))
        .sum();
    Some(covariance / spread_x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_one_to_a_hundred_are_fifty_and_ninety_nine() {
        let mut samples = Samples::new();
        // Recorded backwards: order must not matter.
        for ns in (1..=100).rev() {
            samples.record(ns);
        }
        assert_eq!(samples.len(), 100);
        assert_eq!(
            samples.cost(),
            Cost {
                p50_ns: 50,
                p99_ns: 99
            }
        );
    }

    #[test]
    fn percentiles_keep_three_significant_digits_and_never_pass_the_maximum() {
        let mut samples = Samples::new();
        for ns in [67_000, 67_000, 67_000, 97_123] {
            samples.record(ns);
        }
        let cost = samples.cost();
        assert_eq!(cost.p50_ns / 100, 670, "{cost:?}");
        assert_eq!(cost.p99_ns, 97_123, "{cost:?}");
    }

    #[test]
    fn zero_samples_still_give_a_cost_a_profile_accepts() {
        let mut samples = Samples::new();
        samples.record(0);
        assert_eq!(samples.cost(), Cost::fixed(1));
        assert_eq!(Samples::new().cost(), Cost::fixed(1));
    }

    #[test]
    fn a_p99_below_its_p50_is_raised_to_it() {
        assert_eq!(valid_cost(500, 300), Cost::fixed(500));
        assert_eq!(
            valid_cost(0, 7),
            Cost {
                p50_ns: 1,
                p99_ns: 7
            }
        );
    }

    #[test]
    fn per_unit_rounds_to_the_nearest() {
        assert_eq!(per_unit(10, 4), 3);
        assert_eq!(per_unit(9, 4), 2);
        assert_eq!(per_unit(7, 2), 4);
        assert_eq!(per_unit(3, 7), 0);
        assert_eq!(per_unit(5, 0), 0);
    }

    #[test]
    fn the_slope_of_points_on_a_line_is_exact() {
        // fork as semantics.md section 6 measured it: 56 us plus 25 ms per GiB.
        let points = [(0.0, 56_000.0), (0.25, 6_306_000.0), (1.0, 25_056_000.0)];
        let slope = least_squares_slope(&points).unwrap();
        assert!((slope - 25_000_000.0).abs() < 1e-3, "{slope}");
    }

    #[test]
    fn the_slope_of_scattered_points_is_the_least_squares_one() {
        // Through (0, 1), (1, 3) and (2, 2): mean x 1, mean y 2, covariance 1, spread 2.
        let slope = least_squares_slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 2.0)]).unwrap();
        assert!((slope - 0.5).abs() < 1e-12, "{slope}");
    }

    #[test]
    fn no_line_through_fewer_than_two_sizes() {
        assert_eq!(least_squares_slope(&[]), None);
        assert_eq!(least_squares_slope(&[(1.0, 5.0)]), None);
        assert_eq!(least_squares_slope(&[(1.0, 5.0), (1.0, 7.0)]), None);
    }
}
