//! One memory budget for the whole process: runs that go in parallel share the bound.
//!
//! `check`, `compare`, `report` and `table` run one scenario per core. Each run is checked
//! against the bound on its own, so without a shared budget the process could hold the sum of
//! their bounds: two 546 MiB runs under a 1 GiB bound held 1.09 GB together. A run is admitted
//! only once its pre-checked footprint estimate fits what is left of the bound beside the runs
//! already admitted; otherwise its thread waits for one of them to end. A scenario that raises
//! its own `max_memory` past the process's bound says it needs more than the estimate can see
//! (cancelled timers that linger until the run meets them, say): it claims that whole bound,
//! so it runs alone, once nothing else is held. The budget only delays a run, never changes it,
//! so every run gives the same trace and verdict, and the commands keep their order.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Estimates held by admitted runs, shared by every thread of the process.
#[derive(Debug)]
pub struct MemoryBudget {
    held: Mutex<Held>,
    released: Condvar,
}

#[derive(Clone, Copy, Debug, Default)]
struct Held {
    bytes: u128,
    /// The most ever held at once: what a test reads to see that the bound held.
    peak_bytes: u128,
}

/// The budget every run of this process is admitted through.
pub static PROCESS: MemoryBudget = MemoryBudget::new();

impl MemoryBudget {
    pub const fn new() -> Self {
        MemoryBudget {
            held: Mutex::new(Held {
                bytes: 0,
                peak_bytes: 0,
            }),
            released: Condvar::new(),
        }
    }

    /// A run's state lives in plain counters, which a panicking run cannot leave half-changed.
    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Admits a run estimated at `bytes` under a bound of `bound_bytes` if it fits beside the
    /// runs already admitted, or if none is.
    pub fn try_admit(&self, bytes: u128, bound_bytes: u64) -> Option<Admission<'_>> {
        let mut held = self.lock();
        fits(&held, bytes, bound_bytes).then(|| self.take(&mut held, bytes))
    }

    /// Admits a run estimated at `bytes` under a bound of `bound_bytes`, waiting until it fits.
    pub fn admit(&self, bytes: u128, bound_bytes: u64) -> Admission<'_> {
        let mut held = self.lock();
        while !fits(&held, bytes, bound_bytes) {
            held = self
                .released
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        self.take(&mut held, bytes)
    }

    fn take(&self, held: &mut Held, bytes: u128) -> Admission<'_> {
        held.bytes += bytes;
        held.peak_bytes = held.peak_bytes.max(held.bytes);
        Admission {
            budget: self,
            bytes,
        }
    }

    /// The estimates of the runs admitted and not yet ended.
    pub fn held_bytes(&self) -> u128 {
        self.lock().bytes
    }

    /// The most the admitted runs' estimates came to at once.
    pub fn peak_bytes(&self) -> u128 {
        self.lock().peak_bytes
    }
}

impl Default for MemoryBudget {
    fn default() -> Self {
        MemoryBudget::new()
    }
}

/// What a run claims of the budget: its estimate `estimate_bytes`, or, for a run whose own bound
/// `run_bound_bytes` is above the process's `bound_bytes`, the larger of that and its own bound.
pub fn claim_bytes(estimate_bytes: u128, run_bound_bytes: u64, bound_bytes: u64) -> u128 {
    if run_bound_bytes > bound_bytes {
        estimate_bytes.max(u128::from(run_bound_bytes))
    } else {
        estimate_bytes
    }
}

/// A run fits if its estimate and those held stay within its bound, or if nothing is held.
fn fits(held: &Held, bytes: u128, bound_bytes: u64) -> bool {
    held.bytes == 0 || held.bytes.saturating_add(bytes) <= u128::from(bound_bytes)
}

/// A run's share of the budget, given back when the run ends (however it ends).
#[derive(Debug)]
#[must_use = "the run's memory is released as soon as its admission is dropped"]
pub struct Admission<'a> {
    budget: &'a MemoryBudget,
    bytes: u128,
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        // Before the share is given back, so that the run admitted next finds the memory free.
        if self.bytes >= super::trim::TRIM_FROM_BYTES {
            super::trim::release_freed_memory();
        }
        self.budget.lock().bytes -= self.bytes;
        self.budget.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    const MIB: u128 = 1 << 20;
    const BOUND_BYTES: u64 = 1 << 30;

    #[test]
    fn runs_are_admitted_while_they_fit_and_released_when_they_end() {
        let budget = MemoryBudget::new();
        let first = budget.try_admit(600 * MIB, BOUND_BYTES).expect("fits");
        let second = budget.try_admit(400 * MIB, BOUND_BYTES).expect("fits");
        assert_eq!(budget.held_bytes(), 1000 * MIB);
        assert!(
            budget.try_admit(100 * MIB, BOUND_BYTES).is_none(),
            "1100 MiB would pass the 1 GiB bound"
        );
        drop(first);
        assert_eq!(budget.held_bytes(), 400 * MIB);
        let third = budget
            .try_admit(600 * MIB, BOUND_BYTES)
            .expect("fits again");
        drop((second, third));
        assert_eq!(budget.held_bytes(), 0);
        assert_eq!(budget.peak_bytes(), 1000 * MIB);
    }

    #[test]
    fn a_run_over_the_budget_but_within_its_own_bound_runs_alone() {
        let budget = MemoryBudget::new();
        let small = budget.try_admit(MIB, BOUND_BYTES).expect("fits");
        let big_bytes = 3 * u128::from(BOUND_BYTES);
        assert!(budget.try_admit(big_bytes, BOUND_BYTES).is_none());
        drop(small);
        let big = budget.try_admit(big_bytes, BOUND_BYTES).expect("alone");
        assert!(
            budget.try_admit(MIB, BOUND_BYTES).is_none(),
            "nothing beside it"
        );
        drop(big);
    }

    #[test]
    fn a_run_whose_scenario_raised_its_bound_claims_all_of_it() {
        assert_eq!(claim_bytes(MIB, BOUND_BYTES, BOUND_BYTES), MIB);
        let raised_bytes = 2 * BOUND_BYTES;
        assert_eq!(
            claim_bytes(MIB, raised_bytes, BOUND_BYTES),
            u128::from(raised_bytes)
        );
    }

    #[test]
    fn a_run_that_does_not_fit_waits_until_another_ends() {
        let budget = MemoryBudget::new();
        let first = budget.admit(700 * MIB, BOUND_BYTES);
        let (admitted, admissions) = mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let _second = budget.admit(700 * MIB, BOUND_BYTES);
                admitted.send(budget.held_bytes()).unwrap();
            });
            // However long it is given, the second run cannot start beside the first.
            let early = admissions.recv_timeout(Duration::from_millis(200));
            assert!(early.is_err(), "admitted beside the first: {early:?}");
            drop(first);
            let held = admissions.recv().expect("admitted once the first ended");
            assert_eq!(held, 700 * MIB, "alone");
        });
        assert_eq!(budget.held_bytes(), 0);
        assert_eq!(budget.peak_bytes(), 700 * MIB);
    }
}
