//! A runtime's I/O and timer driver, as the scheduler sees it: events that have happened but that
//! no worker has noticed yet. Readiness and expired timers reach their tasks only when a worker of
//! the owning runtime polls the driver, when it parks or every `event_interval` ticks; a runtime
//! whose workers are all busy notices nothing.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::TaskId;

/// tokio's timer wheel counts whole milliseconds: a deadline is rounded up to the next one.
pub const TIMER_RESOLUTION_NS: i64 = 1_000_000;

#[derive(Debug, Default)]
pub struct Driver {
    /// (deadline, order of registration, task): earliest first, ties in registration order.
    timers: BinaryHeap<Reverse<(i64, u64, TaskId)>>,
    registered: u64,
    /// I/O readiness that arrived, in arrival order, not yet noticed by a poll.
    ready: Vec<TaskId>,
}

impl Driver {
    pub fn new() -> Self {
        Self::default()
    }

    /// `task` sleeps until `deadline_ns`, rounded up to the timer's resolution.
    pub fn sleep_until(&mut self, deadline_ns: i64, task: TaskId) {
        // Deadlines before the run started are already due; clamping keeps the rounding unsigned.
        let deadline_ns = deadline_ns.max(0);
        let rounded_ns =
            (deadline_ns as u64).div_ceil(TIMER_RESOLUTION_NS as u64) as i64 * TIMER_RESOLUTION_NS;
        self.timers
            .push(Reverse((rounded_ns, self.registered, task)));
        self.registered += 1;
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
        while let Some(Reverse((deadline_ns, _, task))) = self.timers.peek().copied() {
            if deadline_ns > now_ns {
                break;
            }
            self.timers.pop();
            woken.push(task);
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
        self.timers.len()
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
}
