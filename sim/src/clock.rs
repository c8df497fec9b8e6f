//! The three clocks a program can read, each a function of physical time and the machine's history.
//!
//! - `monotonic` stops while the system is suspended (Linux `CLOCK_MONOTONIC`, Apple
//!   `CLOCK_UPTIME_RAW`);
//! - `boottime` counts suspend (Linux `CLOCK_BOOTTIME`, Windows QPC);
//! - `wall` counts suspend, and can also be stepped and slewed (`CLOCK_REALTIME`).
//!
//! Readings are `i64` nanoseconds: monotonic and boottime since the start of the run, wall since
//! the Unix epoch. Nothing here is stored per reading; a clock is an anchor plus a rate, re-anchored
//! whenever a fault changes it, so reading one is a few integer operations.

use crate::time::NS_PER_SEC;

/// A clock a program can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ClockId {
    Monotonic,
    Boottime,
    Wall,
}

impl ClockId {
    pub const ALL: [ClockId; 3] = [ClockId::Monotonic, ClockId::Boottime, ClockId::Wall];
    /// Names as scenario files spell them, in the order of [`ClockId::ALL`].
    pub const NAMES: &'static [&'static str] = &["monotonic", "boottime", "wall"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Parts per billion: a rate of `0.0005` (NTP's maximum slew) is `500_000` ppb.
const PPB: i128 = NS_PER_SEC as i128;

/// The machine's clocks. Physical time passed to every method must never decrease.
#[derive(Clone, Debug)]
pub struct Clocks {
    /// Total physical time of completed system suspends.
    suspended_ns: u64,
    /// When the current system suspend began, if one is under way.
    suspend_began_ns: Option<u64>,
    wall: WallClock,
}

/// The wall clock as a line: `anchor_wall_ns` at `anchor_phys_ns`, then `1 + rate_ppb / 1e9` wall
/// nanoseconds per physical nanosecond.
#[derive(Clone, Debug)]
struct WallClock {
    anchor_phys_ns: u64,
    anchor_wall_ns: i64,
    rate_ppb: i64,
}

impl WallClock {
    /// Saturates at the ends of the `i64` range; scenario validation keeps runs far from them.
    #[inline]
    fn read(&self, now_ns: u64) -> i64 {
        let elapsed_ns = now_ns - self.anchor_phys_ns;
        if self.rate_ppb == 0 {
            return self.anchor_wall_ns.saturating_add_unsigned(elapsed_ns);
        }
        let advanced_ns = i128::from(elapsed_ns) * (PPB + i128::from(self.rate_ppb)) / PPB;
        (i128::from(self.anchor_wall_ns) + advanced_ns).clamp(i64::MIN.into(), i64::MAX.into())
            as i64
    }

    /// Physical nanoseconds from `now_ns` until the wall clock first reads at least `target_ns`;
    /// `None` if slews stopped or reversed it and it will not get there at its current rate.
    fn phys_until(&self, now_ns: u64, target_ns: i64) -> Option<u64> {
        let needed_wall_ns = target_ns as i128 - self.anchor_wall_ns as i128;
        let elapsed_ns = (now_ns - self.anchor_phys_ns) as i128;
        // The smallest physical elapsed time e with floor(e * rate / 1e9) >= needed is
        // ceil(needed * 1e9 / rate).
        let rate = PPB + self.rate_ppb as i128;
        let needed_elapsed_ns = if needed_wall_ns <= 0 {
            0
        } else if rate <= 0 {
            return None;
        } else {
            (needed_wall_ns * PPB + rate - 1) / rate
        };
        Some((needed_elapsed_ns - elapsed_ns).clamp(0, u64::MAX as i128) as u64)
    }

    fn reanchor(&mut self, now_ns: u64) {
        self.anchor_wall_ns = self.read(now_ns);
        self.anchor_phys_ns = now_ns;
    }
}

impl Clocks {
    /// Clocks at physical time zero, with the wall clock reading `wall_start_ns` (since the epoch).
    pub fn new(wall_start_ns: i64) -> Self {
        Clocks {
            suspended_ns: 0,
            suspend_began_ns: None,
            wall: WallClock {
                anchor_phys_ns: 0,
                anchor_wall_ns: wall_start_ns,
                rate_ppb: 0,
            },
        }
    }

    /// What `clock` reads at physical time `now_ns`.
    #[inline]
    pub fn read(&self, clock: ClockId, now_ns: u64) -> i64 {
        match clock {
            ClockId::Monotonic => self.monotonic(now_ns),
            ClockId::Boottime => now_ns as i64,
            ClockId::Wall => self.wall.read(now_ns),
        }
    }

    fn monotonic(&self, now_ns: u64) -> i64 {
        let stopped_ns = match self.suspend_began_ns {
            Some(began_ns) => self.suspended_ns + (now_ns - began_ns),
            None => self.suspended_ns,
        };
        (now_ns - stopped_ns) as i64
    }

    /// Physical nanoseconds from `now_ns` until `clock` reads at least `target_ns`, if nothing
    /// changes the clocks in between; `None` while the clock is stopped short of it.
    #[inline]
    pub fn phys_until(&self, clock: ClockId, now_ns: u64, target_ns: i64) -> Option<u64> {
        match clock {
            ClockId::Monotonic if self.suspend_began_ns.is_some() => None,
            ClockId::Monotonic | ClockId::Boottime => {
                Some(target_ns.saturating_sub(self.read(clock, now_ns)).max(0) as u64)
            }
            ClockId::Wall => self.wall.phys_until(now_ns, target_ns),
        }
    }

    /// The system goes to sleep: monotonic stops, boottime and wall keep counting.
    pub fn suspend(&mut self, now_ns: u64) {
        debug_assert!(self.suspend_began_ns.is_none(), "suspend while suspended");
        self.suspend_began_ns = Some(now_ns);
    }

    /// The system wakes: monotonic resumes from where it stopped.
    pub fn resume(&mut self, now_ns: u64) {
        if let Some(began_ns) = self.suspend_began_ns.take() {
            self.suspended_ns += now_ns - began_ns;
        }
    }

    /// Steps the wall clock by `by_ns`, forwards or backwards.
    pub fn step_wall(&mut self, now_ns: u64, by_ns: i64) {
        self.wall.reanchor(now_ns);
        self.wall.anchor_wall_ns = self.wall.anchor_wall_ns.saturating_add(by_ns);
    }

    /// Changes the wall clock's rate by `delta_ppb`; slews that overlap add up.
    pub fn slew_wall(&mut self, now_ns: u64, delta_ppb: i64) {
        self.wall.reanchor(now_ns);
        self.wall.rate_ppb += delta_ppb;
    }

    /// Total physical time the system has spent suspended up to `now_ns`.
    pub fn suspended_ns(&self, now_ns: u64) -> u64 {
        self.suspended_ns
            + self
                .suspend_began_ns
                .map_or(0, |began_ns| now_ns - began_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = NS_PER_SEC;

    #[test]
    fn monotonic_stops_during_suspend_and_boottime_does_not() {
        let mut clocks = Clocks::new(0);
        clocks.suspend(10 * S);
        assert_eq!(clocks.read(ClockId::Monotonic, 50 * S), 10 * S as i64);
        assert_eq!(clocks.read(ClockId::Boottime, 50 * S), 50 * S as i64);
        assert_eq!(
            clocks.phys_until(ClockId::Monotonic, 50 * S, 11 * S as i64),
            None
        );
        clocks.resume(60 * S);
        assert_eq!(clocks.read(ClockId::Monotonic, 61 * S), 11 * S as i64);
        assert_eq!(
            clocks.phys_until(ClockId::Monotonic, 61 * S, 12 * S as i64),
            Some(S)
        );
        assert_eq!(clocks.suspended_ns(61 * S), 50 * S);
    }

    #[test]
    fn wall_counts_suspend_and_steps_both_ways() {
        let mut clocks = Clocks::new(1_000 * S as i64);
        clocks.suspend(S);
        assert_eq!(clocks.read(ClockId::Wall, 5 * S), 1_005 * S as i64);
        clocks.resume(5 * S);
        clocks.step_wall(6 * S, -3600 * S as i64);
        assert_eq!(
            clocks.read(ClockId::Wall, 6 * S),
            (1_006 - 3_600) * S as i64
        );
        assert_eq!(
            clocks.phys_until(ClockId::Wall, 6 * S, 1_006 * S as i64),
            Some(3_600 * S)
        );
    }

    #[test]
    fn slewed_wall_runs_at_its_rate_and_targets_are_reached_exactly() {
        let mut clocks = Clocks::new(0);
        // Twice as fast is far beyond NTP, but makes the arithmetic obvious.
        clocks.slew_wall(0, 1_000_000_000);
        assert_eq!(clocks.read(ClockId::Wall, 3 * S), 6 * S as i64);
        let wait_ns = clocks
            .phys_until(ClockId::Wall, 3 * S, 7 * S as i64 + 1)
            .unwrap();
        assert_eq!(wait_ns, S / 2 + 1);
        assert!(clocks.read(ClockId::Wall, 3 * S + wait_ns) > 7 * S as i64);
        assert!(clocks.read(ClockId::Wall, 3 * S + wait_ns - 1) < 7 * S as i64 + 1);
        clocks.slew_wall(4 * S, -1_000_000_000);
        assert_eq!(clocks.read(ClockId::Wall, 5 * S), 9 * S as i64);
    }

    #[test]
    fn a_wall_clock_slewed_to_a_standstill_never_reaches_a_later_reading() {
        let mut clocks = Clocks::new(0);
        clocks.slew_wall(S, -1_000_000_000);
        assert_eq!(clocks.read(ClockId::Wall, 5 * S), S as i64);
        assert_eq!(clocks.phys_until(ClockId::Wall, 5 * S, 2 * S as i64), None);
        assert_eq!(clocks.phys_until(ClockId::Wall, 5 * S, S as i64), Some(0));
    }

    #[test]
    fn wall_readings_saturate_instead_of_overflowing() {
        let mut clocks = Clocks::new(i64::MAX - 10);
        clocks.step_wall(0, i64::MAX);
        assert_eq!(clocks.read(ClockId::Wall, S), i64::MAX);
    }

    #[test]
    fn slow_slew_rounds_towards_the_first_reading_at_or_past_the_target() {
        let mut clocks = Clocks::new(0);
        clocks.slew_wall(0, -500_000);
        for target_ns in [1, 999, 1_000_000_007, 3 * S as i64] {
            let wait_ns = clocks.phys_until(ClockId::Wall, 0, target_ns).unwrap();
            assert!(clocks.read(ClockId::Wall, wait_ns) >= target_ns);
            assert!(clocks.read(ClockId::Wall, wait_ns - 1) < target_ns);
        }
    }
}
