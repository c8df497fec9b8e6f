//! How an event loop with nothing to do gives up the CPU, as a sans-time core.
//!
//! A polling strategy (spin, `sched_yield`, `sleep(0)`) calls the same thing over and over and
//! looks for events after each call, so an event is noticed at the end of the call it arrived
//! in. A blocking strategy (a timed condvar wait, a fixed sleep, `epoll_wait` with a timeout)
//! makes one call that ends at its timeout, or, for the condvar and epoll, when an event wakes it.
//! The runner supplies what each call costs, from a cost profile.

/// An idle strategy and its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// An empty loop.
    Spin,
    /// `sched_yield()` each time round.
    Yield,
    /// `nanosleep` of zero, which still arms a timer and sleeps for the timer slack.
    SleepZero,
    /// `pthread_cond_timedwait` with this timeout; a new event signals it.
    Condvar { timeout_ns: u64 },
    /// A fixed sleep each time round.
    Sleep { duration_ns: u64 },
    /// `epoll_wait` with this timeout, in whole milliseconds; a new event wakes it.
    Epoll { timeout_ns: u64 },
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Spin => "spin",
            Strategy::Yield => "yield",
            Strategy::SleepZero => "sleep0",
            Strategy::Condvar { .. } => "condvar",
            Strategy::Sleep { .. } => "sleep",
            Strategy::Epoll { .. } => "epoll",
        }
    }

    /// Whether it calls again and again until an event is there, rather than blocking.
    pub fn polls(self) -> bool {
        matches!(self, Strategy::Spin | Strategy::Yield | Strategy::SleepZero)
    }
}

/// What the loop does before it next looks for events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Idle {
    /// When it looks again.
    pub until_ns: u64,
    /// Idle calls made meanwhile.
    pub calls: u64,
    /// CPU they used.
    pub cpu_ns: u64,
}

/// A polling strategy from `now_ns` until it first looks after `deadline_ns`: whole calls of
/// `call_ns` each (at least one), each using `cpu_ns` of CPU, and at most `max_calls` of them.
pub fn poll_until(
    now_ns: u64,
    deadline_ns: u64,
    call_ns: u64,
    cpu_ns: u64,
    max_calls: u64,
) -> Idle {
    let call_ns = call_ns.max(1);
    let calls = deadline_ns
        .saturating_sub(now_ns)
        .div_ceil(call_ns)
        .clamp(1, max_calls.max(1));
    Idle {
        until_ns: now_ns + calls * call_ns,
        calls,
        cpu_ns: calls * cpu_ns.min(call_ns),
    }
}

/// One blocking call from `now_ns` with `timeout_ns`: woken `wake_ns` after the next event if it
/// comes first and the call listens for events, else `overshoot_ns` past the timeout.
pub fn block(
    now_ns: u64,
    next_event_ns: Option<u64>,
    timeout_ns: u64,
    wakes_on_event: bool,
    wake_ns: u64,
    overshoot_ns: u64,
    cpu_ns: u64,
) -> Idle {
    let timeout_at_ns = now_ns + timeout_ns;
    let until_ns = match next_event_ns {
        Some(event_ns) if wakes_on_event && event_ns <= timeout_at_ns => {
            event_ns.max(now_ns) + wake_ns
        }
        _ => timeout_at_ns + overshoot_ns,
    };
    Idle {
        until_ns,
        calls: 1,
        cpu_ns: cpu_ns.min(until_ns - now_ns),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_polling_loop_notices_an_event_at_the_end_of_the_call_it_arrived_in() {
        let idle = poll_until(0, 1_000, 300, 300, u64::MAX);
        assert_eq!(
            idle,
            Idle {
                until_ns: 1_200,
                calls: 4,
                cpu_ns: 1_200
            }
        );
    }

    #[test]
    fn a_polling_loop_makes_at_least_one_call_and_at_most_the_calls_left() {
        assert_eq!(poll_until(500, 100, 50, 10, 9).calls, 1);
        assert_eq!(poll_until(0, 1_000_000, 50, 10, 9).calls, 9);
    }

    #[test]
    fn a_blocking_call_wakes_for_an_event_only_if_it_listens_for_one() {
        let condvar = block(0, Some(400), 1_000, true, 9, 72, 1);
        assert_eq!(condvar.until_ns, 409);
        let sleep = block(0, Some(400), 1_000, false, 9, 67, 1);
        assert_eq!(sleep.until_ns, 1_067);
        let quiet = block(0, None, 1_000, true, 9, 72, 1);
        assert_eq!(quiet.until_ns, 1_072);
    }
}
