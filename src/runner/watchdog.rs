//! The watchdog every runner's drive loop steps: a run that keeps waking without getting anywhere
//! ends with an error naming its design, instead of hanging.

use super::error::RunError;
use crate::memory::Footprint;

/// Bounds the steps of a run while it runs: the estimate made before it started, with room to
/// spare, so that a model that keeps waking without the run getting anywhere ends with an error
/// naming it instead of hanging.
#[derive(Debug)]
pub struct Watchdog {
    limit: u64,
    steps: u64,
    /// Most steps at one physical instant: the estimate itself, since a run cannot take more
    /// steps at one instant than it takes in all, with room for the machine's own.
    same_instant_limit: u64,
    /// The instant seen at the latest checkpoint where time had moved, and the step count then.
    /// Physical time never goes back, so a later checkpoint at the same instant means every step
    /// in between was at it.
    mark_ns: u64,
    mark_steps: u64,
    design: String,
    max_memory_bytes: u64,
}

/// How far past its estimated bound a run may go before it counts as running away: estimates are
/// bounds on the model's own events, and the machine adds its own (slice ends, outside load).
const RUNAWAY_FACTOR: u128 = 4;
const RUNAWAY_SLACK: u128 = 1_000_000;
/// Steps between the watchdog's checks: checking every step would cost the innermost loop a few
/// per cent, and a run stopped a few thousand steps late is stopped all the same.
const CHECK_EVERY: u64 = 1 << 12;

impl Watchdog {
    /// A watchdog for a run estimated at `bound` events of `design`, holding at most
    /// `max_memory_bytes` of live state.
    pub fn new(bound: u128, design: impl Into<String>, max_memory_bytes: u64) -> Self {
        let limit = bound
            .saturating_mul(RUNAWAY_FACTOR)
            .saturating_add(RUNAWAY_SLACK);
        Watchdog {
            limit: u64::try_from(limit).unwrap_or(u64::MAX),
            steps: 0,
            same_instant_limit: u64::try_from(bound.saturating_add(RUNAWAY_SLACK))
                .unwrap_or(u64::MAX),
            mark_ns: 0,
            mark_steps: 0,
            design: design.into(),
            max_memory_bytes,
        }
    }

    /// Whether the latest step was one at which the run's memory is measured.
    #[inline]
    pub fn at_checkpoint(&self) -> bool {
        self.steps.is_multiple_of(CHECK_EVERY)
    }

    /// Stops a run whose live state passed its bound, or whose event queue overflowed.
    #[cold]
    pub fn check_memory(
        &self,
        now_ns: u64,
        live: &Footprint,
        queue_overflowed: bool,
    ) -> Result<(), RunError> {
        if queue_overflowed {
            return Err(RunError::TooManyWakes {
                design: self.design.clone(),
                at_ns: Some(now_ns),
                wakes: 0,
            });
        }
        let bytes = live.bytes();
        if bytes > u128::from(self.max_memory_bytes) {
            return Err(RunError::OutOfMemory {
                design: self.design.clone(),
                at_ns: now_ns,
                bytes,
                max_bytes: self.max_memory_bytes,
                footprint: live.to_string(),
            });
        }
        Ok(())
    }

    #[inline]
    pub fn step(&mut self, now_ns: u64) -> Result<(), RunError> {
        self.steps += 1;
        if self.steps.is_multiple_of(CHECK_EVERY) {
            return self.check(now_ns);
        }
        Ok(())
    }

    #[cold]
    fn check(&mut self, now_ns: u64) -> Result<(), RunError> {
        if now_ns != self.mark_ns {
            self.mark_ns = now_ns;
            self.mark_steps = self.steps;
        } else if self.steps - self.mark_steps > self.same_instant_limit {
            return Err(RunError::Stuck {
                design: self.design.clone(),
                at_ns: now_ns,
                steps: self.steps - self.mark_steps,
            });
        }
        if self.steps > self.limit {
            return Err(RunError::Runaway {
                design: self.design.clone(),
                at_ns: now_ns,
                steps: self.steps,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps until the watchdog objects, with `now_ns` computed from the step's number.
    fn steps_until_stopped(watchdog: &mut Watchdog, now_ns: impl Fn(u64) -> u64) -> RunError {
        (0..u64::MAX)
            .find_map(|step| watchdog.step(now_ns(step)).err())
            .expect("the watchdog stops the run")
    }

    #[test]
    fn a_run_that_keeps_waking_at_one_instant_is_stuck_there() {
        let bound = 2_000_000;
        let mut watchdog = Watchdog::new(bound, "planted timer", u64::MAX);
        match steps_until_stopped(&mut watchdog, |step| 5_000 + step.min(3)) {
            RunError::Stuck {
                design,
                at_ns,
                steps,
            } => {
                assert_eq!(design, "planted timer");
                assert_eq!(at_ns, 5_003);
                // Stopped at the first check past the limit.
                let limit = (bound + RUNAWAY_SLACK) as u64;
                assert!(steps > limit && steps <= limit + CHECK_EVERY, "{steps}");
            }
            other => panic!("expected a stuck run, got {other:?}"),
        }
    }

    #[test]
    fn a_run_that_moves_on_but_never_ends_runs_away_after_its_bound() {
        let mut watchdog = Watchdog::new(10, "planted interval", u64::MAX);
        match steps_until_stopped(&mut watchdog, |step| step / 2) {
            RunError::Runaway { design, steps, .. } => {
                assert_eq!(design, "planted interval");
                let limit = (10 * RUNAWAY_FACTOR + RUNAWAY_SLACK) as u64;
                assert!(steps > limit && steps <= limit + CHECK_EVERY, "{steps}");
            }
            other => panic!("expected a runaway, got {other:?}"),
        }
    }

    #[test]
    fn many_steps_at_one_instant_within_the_bound_are_allowed() {
        let mut watchdog = Watchdog::new(2_000_000, "burst", u64::MAX);
        for _ in 0..2_000_000 {
            watchdog
                .step(7)
                .expect("a burst within the bound is no runaway");
        }
    }
}
