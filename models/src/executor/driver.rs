//! A runtime's I/O and timer driver, as the scheduler sees it: events that have happened but that
//! no worker has noticed yet. Readiness and expired timers reach their tasks only when a worker of
//! the owning runtime polls the driver, when it parks or every `event_interval` ticks; a runtime
//! whose workers are all busy notices nothing.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use super::TaskId;

/// tokio's timer wheel counts whole milliseconds: a deadline is rounded up to the next one.
pub const TIMER_RESOLUTION_NS: i64 = 1_000_000;

#[derive(Debug, Default)]
pub struct Driver {
    /// (deadline, order of registration, task): earliest first, ties in registration order.
    timers: BinaryHeap<Reverse<(i64, u64, TaskId)>>,
    registered: u64,
    /// Registrations neither fired nor cancelled. `timers` may still hold cancelled ones, but
    /// never first: they are dropped as soon as they come to the front, so the earliest deadline
    /// is always a live timer's.
    live: BTreeSet<u64>,
    /// I/O readiness that arrived, in arrival order, not yet noticed by a poll.
    ready: Vec<TaskId>,
}

impl Driver {
    pub fn new() -> Self {
        Self::default()
    }

    /// `task` sleeps until `deadline_ns`, rounded up to the timer's resolution. Returns the
    /// registration, which [`Driver::cancel`] takes.
    pub fn sleep_until(&mut self, deadline_ns: i64, task: TaskId) -> u64 {
        // Deadlines before the run started are already due; clamping keeps the rounding unsigned.
        let deadline_ns = deadline_ns.max(0);
        let rounded_ns =
            (deadline_ns as u64).div_ceil(TIMER_RESOLUTION_NS as u64) as i64 * TIMER_RESOLUTION_NS;
        let registration = self.registered;
        self.timers.push(Reverse((rounded_ns, registration, task)));
        self.live.insert(registration);
        self.registered += 1;
        registration
    }

    /// Drops a timer, as dropping a `Sleep` does: it wakes nobody. One that already fired is
    /// left as it is.
    pub fn cancel(&mut self, registration: u64) {
        if self.live.remove(&registration) {
            self.drop_cancelled_earliest();
        }
    }

    /// Removes cancelled timers from the front of the heap.
    fn drop_cancelled_earliest(&mut self) {
        while let Some(Reverse((_, registration, _))) = self.timers.peek().copied() {
            if self.live.contains(&registration) {
                break;
            }
            self.timers.pop();
        }
    }

    /// An I/O event for `task` arrived; it is woken at the next poll.
    pub fn io_ready(&mut self, task: TaskId) {
        self.ready.push(task);
    }

    /// Whether a poll now would wake anything.
    pub fn has_events(&self, now_ns: i64) -> bool {
        !self.ready.is_empty()
            || self
                .next_deadline_ns()
                .is_some_and(|deadline| deadline <= now_ns)
    }

    /// A poll at `now_ns`: the tasks whose I/O is ready, in arrival order, then those whose
    /// timers expired, in deadline order.
    pub fn poll(&mut self, now_ns: i64) -> Vec<TaskId> {
        let mut woken = std::mem::take(&mut self.ready);
        while let Some(Reverse((deadline_ns, registration, task))) = self.timers.peek().copied() {
            if deadline_ns > now_ns {
                break;
            }
            self.timers.pop();
            if self.live.remove(&registration) {
                woken.push(task);
            }
            self.drop_cancelled_earliest();
        }
        woken
    }

    /// When the earliest timer expires: how long a worker parked on the driver may block.
    pub fn next_deadline_ns(&self) -> Option<i64> {
        self.timers
            .peek()
            .map(|Reverse((deadline_ns, ..))| *deadline_ns)
    }

    pub fn pending_timers(&self) -> usize {
        self.live.len()
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
        assert_eq!(driver.next_deadline_ns(), Some(MS));
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
        assert_eq!(driver.next_deadline_ns(), Some(MS));
        driver.cancel(early);
        assert_eq!(
            driver.next_deadline_ns(),
            Some(3 * MS),
            "the cancelled ones are gone"
        );
        assert_eq!(driver.pending_timers(), 1);
        assert_eq!(driver.poll(3 * MS), [TaskId(3)]);
        assert_eq!(driver.next_deadline_ns(), None);
        assert_eq!(driver.pending_timers(), 0);
        // Cancelling a timer that fired changes nothing.
        let late = driver.sleep_until(4 * MS, TaskId(4));
        assert_eq!(driver.poll(4 * MS), [TaskId(4)]);
        driver.cancel(late);
        driver.sleep_until(5 * MS, TaskId(5));
        assert_eq!(driver.pending_timers(), 1);
        assert_eq!(driver.poll(5 * MS), [TaskId(5)]);
    }
}
