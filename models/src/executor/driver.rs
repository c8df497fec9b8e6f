//! A runtime's I/O and timer driver, as the scheduler sees it: events that have happened but that
//! no worker has noticed yet. Readiness and expired timers reach their tasks only when a worker of
//! the owning runtime polls the driver, when it parks or every `event_interval` ticks; a runtime
//! whose workers are all busy notices nothing.

use super::TaskId;
use crate::timer::tokio_wheel::wheel::Wheel;

/// tokio's timer wheel counts whole milliseconds: a deadline is rounded up to the next one.
pub const TIMER_RESOLUTION_NS: i64 = 1_000_000;

/// Which driver a runtime runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DriverKind {
    /// tokio's: a hierarchical wheel of millisecond ticks, read when a worker polls.
    Tokio,
    /// A planted bug, for testing ticklab itself: a driver that drops every sleep it is given, so
    /// a sleeping task is never woken. Only ticklab's own tests build it (`planted-bugs`).
    #[cfg(feature = "planted-bugs")]
    DropsSleeps,
}

impl DriverKind {
    pub const ALL: [DriverKind; 1] = [DriverKind::Tokio];
    pub const NAMES: &'static [&'static str] = &["tokio"];

    /// Drivers with planted bugs, accepted by name but listed nowhere.
    #[cfg(feature = "planted-bugs")]
    pub const PLANTED: &'static [(DriverKind, &'static str)] =
        &[(DriverKind::DropsSleeps, "drops-sleeps")];
    #[cfg(not(feature = "planted-bugs"))]
    pub const PLANTED: &'static [(DriverKind, &'static str)] = &[];
}

/// The runtime's timers are tokio's hierarchical wheel (the same one as the `tokio-wheel` timer
/// design), processed only when a worker polls the driver.
#[derive(Debug)]
pub struct Driver {
    wheel: Wheel<TaskId>,
    /// Each wheel slot's version, bumped when its timer fires or is cancelled, so that a stale
    /// registration never cancels a newer timer in the same slot.
    versions: Vec<u32>,
    free: Vec<u32>,
    /// I/O readiness that arrived, in arrival order, not yet noticed by a poll.
    ready: Vec<TaskId>,
    kind: DriverKind,
}

impl Default for Driver {
    fn default() -> Self {
        Driver {
            wheel: Wheel::new(),
            versions: Vec::new(),
            free: Vec::new(),
            ready: Vec::new(),
            kind: DriverKind::Tokio,
        }
    }
}

/// The tick `now_ns` is in: rounded down.
fn tick_of(now_ns: i64) -> u64 {
    (now_ns.max(0) / TIMER_RESOLUTION_NS) as u64
}

impl Driver {
    pub fn new() -> Self {
        Self::default()
    }

    /// A driver of `kind`.
    pub fn of(kind: DriverKind) -> Self {
        Driver {
            kind,
            ..Self::default()
        }
    }

    pub fn kind(&self) -> DriverKind {
        self.kind
    }

    /// `task` sleeps until `deadline_ns`, rounded up to the timer's resolution. Returns the
    /// registration, which [`Driver::cancel`] takes.
    pub fn sleep_until(&mut self, deadline_ns: i64, task: TaskId) -> u64 {
        // Deadlines before the run started are already due; clamping keeps the rounding unsigned.
        let when = (deadline_ns.max(0) as u64).div_ceil(TIMER_RESOLUTION_NS as u64);
        let slot = self.free.pop().unwrap_or_else(|| {
            self.versions.push(0);
            self.versions.len() as u32 - 1
        });
        #[cfg(feature = "planted-bugs")]
        if self.kind == DriverKind::DropsSleeps {
            return (u64::from(self.versions[slot as usize]) << 32) | u64::from(slot);
        }
        self.wheel.insert(slot, when, task);
        (u64::from(self.versions[slot as usize]) << 32) | u64::from(slot)
    }

    /// Drops a timer, as dropping a `Sleep` does: it wakes nobody, and leaves the wheel at once.
    /// One that already fired is left as it is.
    pub fn cancel(&mut self, registration: u64) {
        let slot = registration as u32;
        let current = self.versions.get(slot as usize).copied();
        if current == Some((registration >> 32) as u32) && self.wheel.remove(slot).is_some() {
            self.release(slot);
        }
    }

    fn release(&mut self, slot: u32) {
        let version = &mut self.versions[slot as usize];
        *version = version.wrapping_add(1);
        self.free.push(slot);
    }

    /// An I/O event for `task` arrived; it is woken at the next poll.
    pub fn io_ready(&mut self, task: TaskId) {
        self.ready.push(task);
    }

    /// Whether a poll now would wake anything or move timers down the wheel.
    pub fn has_events(&self, now_ns: i64) -> bool {
        !self.ready.is_empty()
            || self
                .wheel
                .poll_at()
                .is_some_and(|tick| tick <= tick_of(now_ns))
    }

    /// A poll at `now_ns`: the tasks whose I/O is ready, in arrival order, then those whose
    /// timers expired, as the wheel yields them (cascading upper levels as their slots come due).
    pub fn poll(&mut self, now_ns: i64) -> Vec<TaskId> {
        let mut woken = std::mem::take(&mut self.ready);
        let now_tick = tick_of(now_ns).max(self.wheel.elapsed());
        while let Some((slot, task)) = self.wheel.poll(now_tick) {
            self.release(slot);
            woken.push(task);
        }
        woken
    }

    /// When a worker parking on the driver at `now_ns` wakes by itself: tokio parks for the
    /// ticks left until the wheel's next expiration, counted from the current tick rounded down,
    /// so the wake lands up to a millisecond after that tick. An upper-level slot's expiration
    /// is when it cascades, which may be before any of its timers is due.
    pub fn next_wake_ns(&self, now_ns: i64) -> Option<i64> {
        let ticks_left = self.wheel.poll_at()?.saturating_sub(tick_of(now_ns));
        let ticks_left = i64::try_from(ticks_left).unwrap_or(i64::MAX / TIMER_RESOLUTION_NS);
        Some(now_ns.saturating_add(ticks_left.saturating_mul(TIMER_RESOLUTION_NS)))
    }

    pub fn pending_timers(&self) -> usize {
        self.wheel.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = TIMER_RESOLUTION_NS;

    #[test]
    fn ready_io_comes_before_expired_timers_and_timers_round_up() {
        let mut driver = Driver::new();
        driver.sleep_until(MS + 1, TaskId(1));
        driver.sleep_until(MS, TaskId(2));
        driver.io_ready(TaskId(3));
        assert_eq!(driver.next_wake_ns(0), Some(MS));
        assert_eq!(driver.poll(MS + 1), [TaskId(3), TaskId(2)]);
        assert!(!driver.has_events(2 * MS - 1));
        assert_eq!(driver.poll(2 * MS), [TaskId(1)]);
        assert_eq!(driver.pending_timers(), 0);
    }

    #[test]
    fn a_cancelled_timer_wakes_nobody_and_no_longer_bounds_a_park() {
        let mut driver = Driver::new();
        let early = driver.sleep_until(MS, TaskId(1));
        let middle = driver.sleep_until(2 * MS, TaskId(2));
        driver.sleep_until(3 * MS, TaskId(3));
        driver.cancel(middle);
        assert_eq!(driver.next_wake_ns(0), Some(MS));
        driver.cancel(early);
        assert_eq!(
            driver.next_wake_ns(0),
            Some(3 * MS),
            "the cancelled ones are gone"
        );
        assert_eq!(driver.pending_timers(), 1);
        assert_eq!(driver.poll(3 * MS), [TaskId(3)]);
        assert_eq!(driver.next_wake_ns(3 * MS), None);
        assert_eq!(driver.pending_timers(), 0);
        // Cancelling a timer that fired changes nothing.
        let late = driver.sleep_until(4 * MS, TaskId(4));
        assert_eq!(driver.poll(4 * MS), [TaskId(4)]);
        driver.cancel(late);
        driver.sleep_until(5 * MS, TaskId(5));
        assert_eq!(driver.pending_timers(), 1);
        assert_eq!(driver.poll(5 * MS), [TaskId(5)]);
    }

    #[test]
    fn a_park_counts_ticks_from_the_millisecond_rounded_down() {
        let mut driver = Driver::new();
        driver.sleep_until(10 * MS + 1, TaskId(1));
        // Due at tick 11; parked at 0.7 ms, tokio blocks for 11 ticks, to 11.7 ms.
        assert_eq!(
            driver.next_wake_ns(7 * MS / 10),
            Some(11 * MS + 7 * MS / 10)
        );
        assert!(driver.poll(11 * MS - 1).is_empty());
        assert_eq!(driver.poll(11 * MS), [TaskId(1)]);
    }

    #[test]
    fn a_far_timer_wakes_the_parked_worker_when_its_slot_cascades_and_fires_on_time() {
        let mut driver = Driver::new();
        // 5 s ahead is on level 2 (slots of 4.096 s): its slot comes due at 4.096 s.
        let far = driver.sleep_until(5_000 * MS, TaskId(1));
        assert_eq!(driver.next_wake_ns(0), Some(4_096 * MS));
        assert!(driver.poll(4_096 * MS).is_empty(), "cascaded, not due");
        // Now on level 1 (slots of 64 ms): the slot from 4.992 s cascades it to level 0.
        assert_eq!(driver.next_wake_ns(4_096 * MS), Some(4_992 * MS));
        assert!(driver.poll(4_992 * MS).is_empty());
        assert_eq!(driver.next_wake_ns(4_992 * MS), Some(5_000 * MS));
        assert_eq!(driver.poll(5_000 * MS), [TaskId(1)]);
        // Its registration is stale now: cancelling it leaves a new timer in its slot alone.
        driver.sleep_until(6_000 * MS, TaskId(2));
        driver.cancel(far);
        assert_eq!(driver.pending_timers(), 1);
    }
}
