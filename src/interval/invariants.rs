//! The Interval family's invariants, checked tick by tick:
//!
//! - a tick is never handled before its deadline, on `Instant`;
//! - `naive` and `burst` never skip or add a period: each deadline is exactly one period after
//!   the one before, so a gap of `g` is made up by ⌊g / period⌋ ticks;
//! - `delay`, `skip` and `fixed` never burst: each deadline is at least one period after the one
//!   before;
//! - `fixed` and `delay` never burst in handling either: `fixed` handles each tick at least one
//!   period after the one before, `delay` at least one period less its 5 ms tolerance (an on-time
//!   tick keeps the grid). `skip` may handle two ticks close together, when the first was late
//!   by almost a whole number of periods.
//!
//! And one liveness property: every behaviour arms its next tick at most one period after it
//! handled the last (`delay` and `fixed` at `now` plus a period, `skip` at the next grid point
//! after `now`, `naive` and `burst` a period after a deadline already past), so a tick that is due
//! comes due within a period. What it drops on purpose (`skip`'s missed grid points, `delay`'s
//! re-anchoring) is within that; an interval that goes quiet for longer is broken. The runtime
//! thread then handles the tick once it can run, which the machine decides.
//!
//! Spacing is not checked when `Instant` reads the wall clock, since a wall step back moves
//! `now`, and with it the re-anchored deadline, backwards. A design is held to the behaviour it
//! promises ([`MissedTick::promised`]).

use ticklab_models::interval::{LATE_TOLERANCE_NS, MissedTick};
use ticklab_sim::{ClockId, Compact};

#[derive(Debug)]
pub(crate) struct IntervalInvariants {
    missed_tick: MissedTick,
    spacing_checked: bool,
    /// Per interval, in one record so a tick touches one cache line.
    intervals: Vec<Checked>,
    pub violations: u64,
}

/// What the checks remember of one interval.
#[derive(Clone, Copy, Debug)]
struct Checked {
    period_ns: i64,
    /// The latest tick's deadline and the `Instant` it was handled at; `NONE` before the first.
    last_deadline_ns: i64,
    last_handled_ns: i64,
}

/// No tick yet: no deadline is this far in the past.
const NONE: i64 = i64::MIN;

impl IntervalInvariants {
    pub fn new(missed_tick: MissedTick, instant_clock: ClockId, periods_ns: Vec<u64>) -> Self {
        IntervalInvariants {
            missed_tick: missed_tick.promised(),
            spacing_checked: instant_clock != ClockId::Wall,
            intervals: periods_ns
                .into_iter()
                .map(|period_ns| Checked {
                    period_ns: period_ns as i64,
                    last_deadline_ns: NONE,
                    last_handled_ns: NONE,
                })
                .collect(),
            violations: 0,
        }
    }

    /// Interval `index` ticked for `deadline_ns` with `Instant` at `instant_ns`. Returns what was
    /// broken, if anything.
    pub fn on_tick(&mut self, index: usize, instant_ns: i64, deadline_ns: i64) -> Option<String> {
        let checked = &mut self.intervals[index];
        let period_ns = checked.period_ns;
        let previous = std::mem::replace(&mut checked.last_deadline_ns, deadline_ns);
        let previous_handled = std::mem::replace(&mut checked.last_handled_ns, instant_ns);
        let previous = (previous != NONE).then_some(previous);
        let previous_handled = (previous_handled != NONE).then_some(previous_handled);
        let broken = if instant_ns < deadline_ns {
            Some(format!(
                "interval {index} ticked {} before its deadline",
                Compact(deadline_ns - instant_ns)
            ))
        } else if let Some(handled_ns) = previous_handled
            && deadline_ns.saturating_sub(handled_ns) > period_ns
        {
            Some(format!(
                "interval {index} went quiet: its deadline was {} after the tick before was \
                 handled, more than a period ({})",
                Compact(deadline_ns - handled_ns),
                Compact(period_ns)
            ))
        } else {
            previous
                .and_then(|previous_ns| self.spacing(index, period_ns, previous_ns, deadline_ns))
                .or_else(|| {
                    previous_handled.and_then(|handled_ns| {
                        self.handling_spacing(index, period_ns, handled_ns, instant_ns)
                    })
                })
        };
        self.violations += u64::from(broken.is_some());
        broken
    }

    /// The run ended with interval `index` armed for `deadline_ns`: one armed more than a
    /// period after its last tick was handled went quiet too, though it never ticks again to
    /// show it. Returns what was broken, if anything.
    pub fn on_end(&mut self, index: usize, deadline_ns: i64) -> Option<String> {
        let checked = &self.intervals[index];
        let handled_ns = (checked.last_handled_ns != NONE).then_some(checked.last_handled_ns)?;
        let gap_ns = deadline_ns.saturating_sub(handled_ns);
        let broken = (gap_ns > checked.period_ns).then(|| {
            format!(
                "interval {index} went quiet: it is armed for {} after its last tick was handled, \
                 more than a period ({})",
                Compact(gap_ns),
                Compact(checked.period_ns)
            )
        });
        self.violations += u64::from(broken.is_some());
        broken
    }

    fn spacing(
        &self,
        index: usize,
        period_ns: i64,
        previous_ns: i64,
        deadline_ns: i64,
    ) -> Option<String> {
        let step_ns = deadline_ns - previous_ns;
        match self.missed_tick {
            MissedTick::Naive | MissedTick::Burst if step_ns != period_ns => Some(format!(
                "interval {index}'s deadline moved by {} instead of one period ({})",
                Compact(step_ns),
                Compact(period_ns)
            )),
            MissedTick::Delay | MissedTick::Skip | MissedTick::Fixed | MissedTick::CronJob
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

    fn handling_spacing(
        &self,
        index: usize,
        period_ns: i64,
        previous_ns: i64,
        instant_ns: i64,
    ) -> Option<String> {
        let least_ns = match self.missed_tick {
            MissedTick::Fixed => period_ns,
            MissedTick::Delay => period_ns - LATE_TOLERANCE_NS,
            _ => return None,
        };
        let apart_ns = instant_ns - previous_ns;
        (self.spacing_checked && apart_ns < least_ns).then(|| {
            format!(
                "interval {index} burst: handled {} after the tick before, less than {}",
                Compact(apart_ns),
                Compact(least_ns)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_armed_more_than_a_period_ahead_at_the_end_went_quiet() {
        let mut checks = IntervalInvariants::new(MissedTick::Skip, ClockId::Monotonic, vec![10]);
        assert_eq!(
            checks.on_end(0, 1_000),
            None,
            "never ticked: nothing to measure from"
        );
        assert_eq!(checks.on_tick(0, 25, 20), None);
        assert_eq!(
            checks.on_end(0, 35),
            None,
            "a period after the tick was handled"
        );
        let broken = checks.on_end(0, 1_000).expect("armed far past its period");
        assert!(broken.contains("went quiet"), "{broken}");
        assert_eq!(checks.violations, 1);
    }

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
        // Handled 25 late: the next grid point after 25 is 30.
        assert_eq!(checks.on_tick(0, 25, 0), None);
        assert_eq!(checks.on_tick(0, 35, 30), None);
        assert!(checks.on_tick(0, 36, 35).is_some(), "a burst");
        assert!(checks.on_tick(0, 40, 45).is_some(), "early");
    }

    #[test]
    fn a_fixed_interval_handles_ticks_at_least_a_period_apart() {
        let mut checks = IntervalInvariants::new(MissedTick::Fixed, ClockId::Monotonic, vec![10]);
        assert_eq!(checks.on_tick(0, 10, 10), None);
        assert_eq!(checks.on_tick(0, 55, 20), None, "late, then re-anchored");
        assert!(
            checks.on_tick(0, 56, 30).is_some(),
            "replayed a missed period"
        );
    }

    #[test]
    fn a_delay_interval_may_handle_an_on_time_tick_within_its_tolerance() {
        const MS: i64 = 1_000_000;
        let mut checks =
            IntervalInvariants::new(MissedTick::Delay, ClockId::Monotonic, vec![10 * MS as u64]);
        assert_eq!(checks.on_tick(0, 4 * MS, 0), None, "4 ms late is on time");
        assert_eq!(checks.on_tick(0, 10 * MS, 10 * MS), None);
        let mut late =
            IntervalInvariants::new(MissedTick::Delay, ClockId::Monotonic, vec![10 * MS as u64]);
        assert_eq!(
            late.on_tick(0, 8 * MS, 0),
            None,
            "8 ms late: must re-anchor"
        );
        assert!(
            late.on_tick(0, 10 * MS, 10 * MS).is_some(),
            "kept the grid after a late tick"
        );
    }

    #[test]
    fn an_interval_that_arms_its_next_tick_more_than_a_period_out_went_quiet() {
        let mut checks = IntervalInvariants::new(MissedTick::Skip, ClockId::Monotonic, vec![10]);
        assert_eq!(checks.on_tick(0, 0, 0), None);
        // Handled 5 late at 15: skip's next grid point is 20, within a period.
        assert_eq!(checks.on_tick(0, 15, 10), None);
        assert_eq!(checks.on_tick(0, 20, 20), None);
        let broken = checks.on_tick(0, 31, 31);
        assert!(
            broken
                .as_deref()
                .is_some_and(|what| what.contains("went quiet")),
            "{broken:?}"
        );
    }

    #[test]
    fn spacing_is_not_checked_on_a_wall_instant() {
        let mut checks = IntervalInvariants::new(MissedTick::Fixed, ClockId::Wall, vec![10]);
        checks.on_tick(0, 100, 100);
        assert_eq!(checks.on_tick(0, 50, 50), None, "the wall stepped back");
    }
}
