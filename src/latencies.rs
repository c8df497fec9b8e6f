//! A distribution of durations: percentiles from a histogram at three significant digits, and
//! the exact maximum, which no percentile may pass.

use hdrhistogram::Histogram;

#[derive(Clone, Debug)]
pub(crate) struct Latencies {
    histogram: Histogram<u64>,
    max_ns: u64,
}

impl Latencies {
    pub fn new() -> Self {
        Latencies {
            histogram: Histogram::new(3).expect("three significant digits is a valid precision"),
            max_ns: 0,
        }
    }

    pub fn record(&mut self, ns: u64) {
        self.histogram
            .record(ns)
            .expect("an auto-resizing histogram takes any u64");
        self.max_ns = self.max_ns.max(ns);
    }

    /// The `q` quantile, 0 with nothing recorded. A histogram bucket's upper edge can pass the
    /// exact maximum, so the maximum caps it.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.histogram.is_empty() {
            0
        } else {
            self.histogram.value_at_quantile(q).min(self.max_ns)
        }
    }

    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    pub fn len(&self) -> u64 {
        self.histogram.len()
    }

    pub fn reset(&mut self) {
        self.histogram.reset();
        self.max_ns = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_never_pass_the_exact_maximum() {
        let mut latencies = Latencies::new();
        assert_eq!(latencies.quantile(0.99), 0);
        latencies.record(100_007_935);
        assert_eq!(latencies.max_ns(), 100_007_935);
        assert_eq!(latencies.quantile(0.99), 100_007_935);
        latencies.reset();
        assert_eq!((latencies.len(), latencies.max_ns()), (0, 0));
    }
}
