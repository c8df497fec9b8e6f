//! The Interval family's invariants, checked tick by tick:
//!
//! - a tick is never handled before its deadline, on `Instant`;
//! - `naive` and `burst` never skip or add a period: each deadline is exactly one period after
//!   the one before, so a gap of `g` is made up by ⌊g / period⌋ ticks;
//! - `delay`, `skip` and `fixed` never burst: each deadline is at least one period after the one
//!   before. When `Instant` reads the wall clock this is not checked, since a wall step back
//!   moves `now`, and with it the re-anchored deadline, backwards.

use ticklab_models::interval::MissedTick;
use ticklab_sim::{ClockId, Compact};

#[derive(Debug)]
pub(crate) struct IntervalInvariants {
    missed_tick: MissedTick,
    spacing_checked: bool,
    periods_ns: Vec<u64>,
    last_deadline_ns: Vec<Option<i64>>,
    pub violations: u64,
}

impl IntervalInvariants {
    pub fn new(missed_tick: MissedTick, instant_clock: ClockId, periods_ns: Vec<u64>) -> Self {
        let intervals = periods_ns.len();
        IntervalInvariants {
            missed_tick,
            spacing_checked: instant_clock != ClockId::Wall,
            periods_ns,
            last_deadline_ns: vec![None; intervals],
            violations: 0,
        }
    }

    /// Interval `index` ticked for `deadline_ns` with `Instant` at `instant_ns`. Returns what was
    /// broken, if anything.
    pub fn on_tick(&mut self, index: usize, instant_ns: i64, deadline_ns: i64) -> Option<String> {
        let previous = self.last_deadline_ns[index].replace(deadline_ns);
        let broken = if instant_ns < deadline_ns {
            Some(format!(
                "interval {index} ticked {} before its deadline",
                Compact(deadline_ns - instant_ns)
            ))
        } else {
            previous.and_then(|previous_ns| self.spacing(index, previous_ns, deadline_ns))
        };
        self.violations += u64::from(broken.is_some());
        broken
    }

    fn spacing(&self, index: usize, previous_ns: i64, deadline_ns: i64) -> Option<String> {
        let period_ns = self.periods_ns[index] as i64;
        let step_ns = deadline_ns - previous_ns;
        match self.missed_tick {
            MissedTick::Naive | MissedTick::Burst if step_ns != period_ns => Some(format!(
                "interval {index}'s deadline moved by {} instead of one period ({})",
                Compact(step_ns),
                Compact(period_ns)
            )),
            MissedTick::Delay | MissedTick::Skip | MissedTick::Fixed
                if self.spacing_checked && step_ns < period_ns =>
            {
                Some(format!(
                    "interval {index} burst: its deadline moved by {}, less than a period ({})",
                    Compact(step_ns),
                    Compact(period_ns)
                ))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_interval_must_step_exactly_one_period() {
        let mut checks = IntervalInvariants::new(MissedTick::Burst, ClockId::Monotonic, vec![10]);
        assert_eq!(checks.on_tick(0, 0, 0), None);
        assert_eq!(checks.on_tick(0, 25, 10), None);
        assert!(
            checks.on_tick(0, 30, 30).is_some(),
            "skipped the period at 20"
        );
        assert_eq!(checks.violations, 1);
    }

    #[test]
    fn a_skip_interval_may_leap_but_never_bursts_or_fires_early() {
        let mut checks = IntervalInvariants::new(MissedTick::Skip, ClockId::Monotonic, vec![10]);
        assert_eq!(checks.on_tick(0, 0, 0), None);
        assert_eq!(checks.on_tick(0, 35, 30), None);
        assert!(checks.on_tick(0, 36, 35).is_some(), "a burst");
        assert!(checks.on_tick(0, 40, 45).is_some(), "early");
    }

    #[test]
    fn spacing_is_not_checked_on_a_wall_instant() {
        let mut checks = IntervalInvariants::new(MissedTick::Fixed, ClockId::Wall, vec![10]);
        checks.on_tick(0, 100, 100);
        assert_eq!(checks.on_tick(0, 50, 50), None, "the wall stepped back");
    }
}
