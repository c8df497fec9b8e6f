//! How late a timer design may fire by its own design: what every run holds it to.
//!
//! A heap fires a timer as soon as its thread runs at or past the deadline. A wheel rounds
//! deadlines to its tick; Linux's wheel since 4.8 files a timer once, in a level whose slots
//! grow coarser the further away the deadline is, and never cascades, so it fires up to an
//! eighth of the timeout late on purpose. None of that is a bug, and a testbed that called it
//! one would be ignored. What is a bug is a design firing later than it says it may: a wake
//! computed for the wrong slot, a thread that sleeps a level too long, one that is never woken.
//!
//! The promise counts only the design's own lateness. The machine adds its own: the platform's
//! timer resolution and slack, a thread busy with callbacks or waiting for a core, a process
//! frozen or a system asleep, a wall clock that steps. The simulator excuses those where they
//! happen, and holds the design to its promise for the rest.

/// How late a design may fire a timer past its deadline, on the deadline's own clock, when its
/// thread is free to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Promise {
    /// At the deadline: a heap, which sleeps until its earliest deadline and fires everything
    /// due when it wakes.
    Exact,
    /// Up to `late_ns` past the deadline, whatever the timeout: a wheel of fixed ticks. tokio's
    /// rounds a deadline up to the millisecond and counts its sleep from the millisecond rounded
    /// down, so up to 2 ms.
    Within { late_ns: u64 },
    /// Up to `ppm` parts per million of the timeout past the deadline, and never less than
    /// `at_least_ns` (a wheel's finest slot): a wheel whose slots grow with the distance, as
    /// Linux's since 4.8. Its worst case is 9/61 of a timeout (147,541 ppm, at least 2 ms): a
    /// level's slot is 8/63 of the shortest timeout filed on it, and rounding the deadline up
    /// to a jiffy while `now` is rounded down adds up to two jiffies more, which matters most at
    /// the bottom of level 1 (see `linux_wheel`).
    ShareOfTimeout { ppm: u32, at_least_ns: u64 },
}

impl Promise {
    /// How late a timer armed `timeout_ns` ahead may fire.
    pub fn late_ns(self, timeout_ns: u64) -> u64 {
        match self {
            Promise::Exact => 0,
            Promise::Within { late_ns } => late_ns,
            Promise::ShareOfTimeout { ppm, at_least_ns } => {
                let share_ns = u128::from(timeout_ns) * u128::from(ppm) / 1_000_000;
                u64::try_from(share_ns).unwrap_or(u64::MAX).max(at_least_ns)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_promise_allows_its_own_lateness() {
        assert_eq!(Promise::Exact.late_ns(5_000_000_000), 0);
        assert_eq!(
            Promise::Within { late_ns: 2_000_000 }.late_ns(5_000_000_000),
            2_000_000
        );
        let linux = Promise::ShareOfTimeout {
            ppm: 147_541,
            at_least_ns: 2_000_000,
        };
        assert_eq!(linux.late_ns(500_000_000), 73_770_500);
        assert_eq!(
            linux.late_ns(2_000_000),
            2_000_000,
            "never finer than a slot"
        );
        assert_eq!(
            Promise::ShareOfTimeout {
                ppm: u32::MAX,
                at_least_ns: 0
            }
            .late_ns(u64::MAX),
            u64::MAX
        );
    }
}
