//! When a timed wait really ends: the platform's timer resolution and slack, applied to every
//! wait a simulated thread makes with a timeout (a futex or condvar wait, `epoll_wait`, a sleep).
//!
//! - Windows wakes waiters on its timer interrupt, every 15.625 ms by default (about 1 ms under
//!   `timeBeginPeriod(1)`), so a wait ends at the first tick at or after its deadline.
//! - Linux lets a wait end up to its thread's timer slack late, 50 µs by default (0 for realtime
//!   threads); the kernel uses the slack to batch expiries, and a lone waiter wakes at its end.
//! - Apple's platforms coalesce timers by a leeway nothing documents; a scenario that wants it
//!   sets `timer_slack`.
//!
//! (`../shared/reference/timers-today.md`, "Timer resolution and slack per platform".)

use ticklab_sim::{NS_PER_US, Platform};

/// Windows' default timer interrupt period.
pub const WINDOWS_TIMER_RESOLUTION_NS: u64 = 15_625_000;
/// Linux's default timer slack for threads that are not realtime.
pub const LINUX_TIMER_SLACK_NS: u64 = 50 * NS_PER_US;

/// How a platform's timed waits end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Waits end on a grid of this period (0: wherever the deadline is).
    pub resolution_ns: u64,
    /// And this much after the deadline (or the grid point).
    pub slack_ns: u64,
}

impl Timing {
    /// The platform's defaults.
    pub fn of(platform: Platform) -> Self {
        match platform {
            Platform::Windows => Timing {
                resolution_ns: WINDOWS_TIMER_RESOLUTION_NS,
                slack_ns: 0,
            },
            // Both Android builds run on the Linux kernel, whatever clock their Instant reads.
            Platform::Linux | Platform::Android | Platform::AndroidAosp => Timing {
                resolution_ns: 0,
                slack_ns: LINUX_TIMER_SLACK_NS,
            },
            Platform::Macos | Platform::Ios => Timing {
                resolution_ns: 0,
                slack_ns: 0,
            },
        }
    }

    /// When a wait until `deadline_ns` ends, on the same clock: at the next grid point at or
    /// after it, plus the slack.
    #[inline]
    pub fn wait_end_ns(&self, deadline_ns: i64) -> i64 {
        let on_grid = match self.resolution_ns {
            0 | 1 => deadline_ns,
            resolution_ns => {
                let resolution_ns = resolution_ns as i64;
                match deadline_ns.rem_euclid(resolution_ns) {
                    0 => deadline_ns,
                    rest => deadline_ns.saturating_add(resolution_ns - rest),
                }
            }
        };
        on_grid.saturating_add(self.slack_ns as i64)
    }

    /// Whether waits end exactly at their deadlines.
    pub fn is_exact(&self) -> bool {
        self.resolution_ns <= 1 && self.slack_ns == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn windows_waits_end_on_the_next_timer_interrupt() {
        let windows = Timing::of(Platform::Windows);
        // A 1 ms sleep from an interrupt takes a whole 15.625 ms period (tokio #5021).
        assert_eq!(windows.wait_end_ns(MS), 15_625_000);
        assert_eq!(windows.wait_end_ns(15_625_000), 15_625_000);
        assert_eq!(
            windows.wait_end_ns(1_000 * MS),
            1_000 * MS,
            "a second is 64 periods"
        );
    }

    #[test]
    fn linux_waits_end_their_slack_late_and_apple_ones_on_time() {
        assert_eq!(Timing::of(Platform::Linux).wait_end_ns(MS), MS + 50_000);
        assert_eq!(Timing::of(Platform::Android).wait_end_ns(MS), MS + 50_000);
        assert_eq!(
            Timing::of(Platform::AndroidAosp).wait_end_ns(MS),
            MS + 50_000
        );
        assert!(Timing::of(Platform::Macos).is_exact());
        assert_eq!(Timing::of(Platform::Ios).wait_end_ns(MS), MS);
    }
}
