//! `[expect]`: bounds on a run's summary metrics, checked by `ticklab run` and `ticklab check`.
//!
//! Each model publishes its metrics (name, unit, meaning). An expectation names one with a prefix:
//! `max_ticks_after_resume = 3` is an upper bound, `min_…` a lower bound, and the bare name an
//! exact value.
//!
//! Models with named parts (an executor's task groups) also take a sub-table per part, such as
//! `[expect.flush]` with `max_p99_latency = "80ms"`, bounding that part's own metrics.

pub mod metric;

pub use metric::{Bound, ExpectSchema, Expectation, Metric, NEVER, Outcome, Unit, headline};

#[cfg(test)]
mod tests {
    use super::*;

    const TICKS: Metric = Metric::count("ticks_after_resume", "");
    const LATENESS: Metric = Metric::duration("lateness", "max_lateness_ns", "");

    fn outcome(metric: Metric, bound: Bound, value: u64, actual: u64) -> Outcome {
        Expectation {
            key: String::new(),
            group: None,
            metric,
            bound,
            value,
        }
        .check(actual)
    }

    #[test]
    fn headline_figures_show_each_bound_metric_once_with_its_range() {
        let outcomes = [
            outcome(TICKS, Bound::AtLeast, 390, 392),
            outcome(LATENESS, Bound::AtMost, 1_000_000, 391_000_000_000),
            outcome(TICKS, Bound::AtMost, 393, 392),
        ];
        assert_eq!(
            headline(&outcomes),
            "ticks_after_resume 392 (want 390..=393); lateness 391s (want <= 1ms) FAILED"
        );
    }

    #[test]
    fn text_keys_are_the_names_expect_takes() {
        assert_eq!(LATENESS.text_key(), "lateness");
        let worst = Metric::duration("cpu_busy_in_worst_second", "cpu_busy_ns_worst_second", "");
        assert_eq!(worst.text_key(), "cpu_busy_in_worst_second");
        let never = Metric::time("first_fire_at", "first_fire_at_ns", "");
        assert_eq!(never.show(NEVER), "never");
        assert_eq!(never.show(1_500_000_000), "1.500000000s");
    }
}
