//! Periodic timers, tokio style, as pure functions of `now`.
//!
//! An [`IntervalCore`] holds the next deadline on an `Instant`-like clock. The driver waits until
//! the clock reaches [`IntervalCore::wait`], then calls [`IntervalCore::tick`] with the clock's
//! reading; the core reports the tick and picks the next deadline according to its
//! [`MissedTick`] behaviour. Nothing here reads a clock or sleeps.

mod missed_tick;

pub use missed_tick::{CRONJOB_MAX_MISSED, LATE_TOLERANCE_NS, MissedTick, next_deadline_ns};

use crate::Wait;

/// One periodic timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalCore {
    behavior: MissedTick,
    period_ns: i64,
    deadline_ns: i64,
}

/// A tick the interval yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tick {
    /// The instant the tick was scheduled for, which is what `Interval::tick` returns.
    pub deadline_ns: i64,
    /// The deadline of the tick after it.
    pub next_deadline_ns: i64,
}

impl IntervalCore {
    /// An interval created at `now_ns`, the way each design's usual constructor makes it:
    /// tokio 1.x's `interval(period)` ticks at once; tokio 0.1's `Interval::new_interval(period)`,
    /// which `naive` and `fixed` model, first ticks one period later.
    pub fn created_at(behavior: MissedTick, now_ns: i64, period_ns: i64) -> Self {
        let first_ns = if behavior.first_tick_is_immediate() {
            now_ns
        } else {
            now_ns.saturating_add(period_ns)
        };
        Self::starting_at(behavior, first_ns, period_ns)
    }

    /// An interval whose first tick is due at `first_ns` (tokio's `interval_at`).
    ///
    /// # Panics
    /// If `period_ns` is not positive, as tokio panics on a zero period.
    pub fn starting_at(behavior: MissedTick, first_ns: i64, period_ns: i64) -> Self {
        assert!(period_ns > 0, "an interval's period must be positive");
        IntervalCore {
            behavior,
            period_ns,
            deadline_ns: first_ns,
        }
    }

    pub fn behavior(&self) -> MissedTick {
        self.behavior
    }

    pub fn period_ns(&self) -> i64 {
        self.period_ns
    }

    /// The next tick's deadline.
    #[inline]
    pub fn deadline_ns(&self) -> i64 {
        self.deadline_ns
    }

    pub fn wait(&self) -> Wait {
        Wait::Until(self.deadline_ns)
    }

    /// Yields the due tick, given the clock's reading `now_ns`, and moves to the next deadline.
    /// Returns `None` if the tick is not due yet, as `poll_tick` returns `Pending`, or for
    /// `CronJob` with too many start times missed, whose deadline then never comes.
    #[inline]
    pub fn tick(&mut self, now_ns: i64) -> Option<Tick> {
        if now_ns < self.deadline_ns {
            return None;
        }
        let deadline_ns = self.deadline_ns;
        if self.behavior == MissedTick::CronJob
            && (now_ns - deadline_ns) / self.period_ns + 1 > CRONJOB_MAX_MISSED
        {
            // Too many start times missed: none starts, now or ever.
            self.deadline_ns = now_ns.saturating_add(missed_tick::FAR_FUTURE_NS);
            return None;
        }
        self.deadline_ns = next_deadline_ns(self.behavior, deadline_ns, now_ns, self.period_ns);
        Some(Tick {
            deadline_ns,
            next_deadline_ns: self.deadline_ns,
        })
    }
}

#[cfg(test)]
mod tests;
