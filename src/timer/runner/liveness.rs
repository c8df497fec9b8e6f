//! What must eventually happen: a due timer fires within its design's promise.
//!
//! Every call answered after its timeout gets a check, due once the design's clock reads the
//! timer's deadline plus the design's promise plus the machine's own delay for a timed wait (its
//! timer resolution and slack, or `sleep_overshoot`). A response that cancels a timer after that
//! point is checked as it comes, so a clock that stepped under the deadline is checked too.
//!
//! A timer not fired by then is the design's fault only if nothing else explains it. The check
//! waits, and looks again after the next round or burst of CPU, while a timer thread
//!
//! - is the timer's own thread, and is busy with callbacks, or waits for a core, or has a wake
//!   it could not take while busy, or has a wake due now that it has not yet taken (a process
//!   just thawed, a tie at one instant);
//! - sleeps, measured on `CLOCK_MONOTONIC` as brpc's does, towards a deadline on the design's
//!   clock that was in time when it went to sleep, but that clock has since moved against
//!   monotonic (a wall step or slew, or a suspend that wall time counts and monotonic does not).
//!
//! A timer armed while its thread lags behind the design's clock is held to the promise for its
//! timeout plus that lag. The thread lags from when its wait ran out until it takes the wake (a
//! frozen process thawed and its callers ran first, or its core was busy), and from the start of
//! a round until its callbacks are done. A design whose clock catches up only when its thread
//! runs (the Linux wheel forwards its base no further than an expiry it has not run) files such
//! a timer as if armed when the thread last caught up, for a timeout that much longer, and is
//! judged the same way. The excuse is the one timer's, for as long as its promise for that
//! longer timeout: timers armed once the thread has run get none, and a design that promises
//! to fire at the deadline (a heap) gets none at all, since no share of any timeout is more than
//! nothing.
//!
//! Otherwise every thread of the design sleeps past a due timer, or with no deadline at all:
//! the design has missed it, and the run reports a violation with the threads' state. A process
//! frozen or a system asleep needs no excuse: the check itself only comes due once the process
//! runs.

use ticklab_models::timer::{Sleep, TimerClock};
use ticklab_sim::{Approx, ClockId, Deadline};

use super::calls::CallRef;
use super::{TimerRun, Wake};
use crate::machine::Machine;
use crate::runner::error::RunError;

/// How a timer thread sleeps, as the check reads it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ThreadSleep {
    /// What it asked to sleep until, on the design's clock; `None`: until it is signalled.
    pub(super) until_ns: Option<i64>,
    /// The wake filed for it: due once its clock reads this.
    pub(super) wake: Option<Deadline>,
    /// The design's clock minus `CLOCK_MONOTONIC` when it went to sleep.
    pub(super) skew_ns: i64,
    /// The signal count it sleeps on, as a futex word: `None` before its first round.
    pub(super) seen_signals: Option<u64>,
}

/// What the check found.
enum Finding {
    /// Fired, or the call is over: nothing to check.
    Done,
    /// Not yet past the promise on the design's clock: look again when it is.
    NotYet,
    /// Past it, but a thread is about to act: look again after it has.
    Excused,
    /// Past it, and every thread sleeps past it: the design missed it.
    Missed { overdue_ns: i64, lag_ns: u64 },
}

impl TimerRun<'_> {
    /// The design's clock, as the world names it.
    pub(super) fn design_clock(&self) -> ClockId {
        match self.timers.clock() {
            TimerClock::Wall => ClockId::Wall,
            TimerClock::Monotonic => ClockId::Monotonic,
        }
    }

    /// What the design promises for a timer armed while its thread lagged `lag_ns` behind: the
    /// promise for its timeout plus that lag.
    fn promise_ns(&self, lag_ns: u64) -> u64 {
        self.config
            .design
            .promise
            .late_ns(self.config.timeout_ns.saturating_add(lag_ns))
    }

    /// How late past its deadline a timer armed with its thread `lag_ns` behind may fire: the
    /// design's promise and the machine's own delay for a timed wait.
    pub(super) fn allowance_ns(&self, lag_ns: u64) -> u64 {
        self.promise_ns(lag_ns).saturating_add(self.overshoot_ns)
    }

    /// The allowance as a clock offset: a promise with no bound saturates rather than wraps.
    fn allowance_i64(&self, lag_ns: u64) -> i64 {
        i64::try_from(self.allowance_ns(lag_ns)).unwrap_or(i64::MAX)
    }

    /// How far the timer thread `thread` lags behind the design's clock now: since its wait
    /// ran out, if it has a wake due that it has not taken, or since its round began, if it is
    /// busy with that round's callbacks; zero while it sleeps in time. In a design whose
    /// threads share timers, the most any of them lags.
    pub(super) fn lag_ns(&self, m: &Machine<Wake>, thread: usize) -> u64 {
        if self.config.design.threads_share_timers {
            return (0..self.threads.len())
                .map(|thread| self.thread_lag_ns(m, thread))
                .max()
                .unwrap_or(0);
        }
        self.thread_lag_ns(m, thread)
    }

    fn thread_lag_ns(&self, m: &Machine<Wake>, thread: usize) -> u64 {
        let Some((cpu, _)) = self.threads.get(thread) else {
            return 0;
        };
        if m.is_busy(*cpu) || self.deferred[thread].is_some() {
            let since_ns = self.round_started_ns[thread];
            return m.read(self.design_clock()).saturating_sub(since_ns).max(0) as u64;
        }
        match self.sleeps[thread].wake {
            Some(wake) => m.read(wake.clock).saturating_sub(wake.at_ns).max(0) as u64,
            None => 0,
        }
    }

    /// Files the check of `call`, whose deadline is `deadline_ns` on the design's clock and
    /// whose thread lagged `lag_ns` when it was armed.
    pub(super) fn file_check(
        &self,
        m: &mut Machine<Wake>,
        call: CallRef,
        deadline_ns: i64,
        lag_ns: u64,
    ) {
        let at_ns = deadline_ns.saturating_add(self.allowance_i64(lag_ns));
        m.wake_at(
            Deadline {
                clock: self.design_clock(),
                at_ns,
            },
            Wake::Check { call },
        );
    }

    /// Records how thread `thread` goes to sleep after a round: as `sleep` says, woken by `wake`
    /// in the world.
    pub(super) fn note_sleep(
        &mut self,
        m: &Machine<Wake>,
        thread: usize,
        sleep: &Sleep,
        wake: Option<Deadline>,
    ) {
        self.sleeps[thread] = ThreadSleep {
            until_ns: sleep.until_ns,
            wake,
            skew_ns: self.skew_ns(m),
            seen_signals: Some(sleep.seen_signals),
        };
    }

    fn skew_ns(&self, m: &Machine<Wake>) -> i64 {
        m.read(self.design_clock()) - m.read(ClockId::Monotonic)
    }

    /// A check came due.
    pub(super) fn check(&mut self, m: &mut Machine<Wake>, call: CallRef) -> Result<(), RunError> {
        match self.finding(m, call) {
            Finding::Done => Ok(()),
            Finding::NotYet => {
                let (deadline_ns, lag_ns) = self
                    .calls
                    .of(call)
                    .map_or((0, 0), |call| (call.deadline_ns, call.lag_ns()));
                self.file_check(m, call, deadline_ns, lag_ns);
                Ok(())
            }
            Finding::Excused => {
                self.rechecks.push(call);
                Ok(())
            }
            Finding::Missed { overdue_ns, lag_ns } => {
                self.missed(m, call.index, overdue_ns, lag_ns)
            }
        }
    }

    /// Looks again at every check that was waiting for a thread to act.
    pub(super) fn recheck(&mut self, m: &mut Machine<Wake>) -> Result<(), RunError> {
        for call in std::mem::take(&mut self.rechecks) {
            self.check(m, call)?;
        }
        Ok(())
    }

    /// A response cancelled `call`'s timer, which had not fired: the design missed it if it
    /// was past its promise and nothing excuses it.
    pub(super) fn check_at_cancel(
        &mut self,
        m: &mut Machine<Wake>,
        index: u32,
        call: &super::calls::Call,
    ) -> Result<(), RunError> {
        let (deadline_ns, lag_ns) = (call.deadline_ns, call.lag_ns());
        let overdue_ns = self.overdue_ns(m, deadline_ns, lag_ns);
        if overdue_ns < 0 || self.excuse(m, deadline_ns, lag_ns, call.thread as usize) {
            return Ok(());
        }
        self.missed(m, index, overdue_ns, lag_ns)
    }

    /// How far the design's clock is past `deadline_ns` and the allowance for `lag_ns`.
    fn overdue_ns(&self, m: &Machine<Wake>, deadline_ns: i64, lag_ns: u64) -> i64 {
        m.read(self.design_clock())
            .saturating_sub(deadline_ns.saturating_add(self.allowance_i64(lag_ns)))
    }

    fn finding(&mut self, m: &Machine<Wake>, call: CallRef) -> Finding {
        let Some(state) = self.calls.of(call) else {
            return Finding::Done;
        };
        if state.fired || state.overdue || state.timer.is_none() {
            return Finding::Done;
        }
        let (deadline_ns, lag_ns) = (state.deadline_ns, state.lag_ns());
        let thread = state.thread as usize;
        let overdue_ns = self.overdue_ns(m, deadline_ns, lag_ns);
        if overdue_ns < 0 {
            Finding::NotYet
        } else if self.excuse(m, deadline_ns, lag_ns, thread) {
            Finding::Excused
        } else {
            Finding::Missed { overdue_ns, lag_ns }
        }
    }

    /// Whether the timer's own thread `thread` is held back by the machine, or some timer
    /// thread sleeps towards a deadline in time on a clock that moved since: a late fire is not
    /// yet the design's fault. A busy thread excuses only its own timers, so a design whose
    /// other thread never wakes is caught however busy the first is kept; in a design whose
    /// threads share timers (`BuildTimerDesign::THREADS_SHARE_TIMERS`), any thread held back
    /// excuses them all.
    fn excuse(&self, m: &Machine<Wake>, deadline_ns: i64, lag_ns: u64, thread: usize) -> bool {
        let promise_ns = self.promise_ns(lag_ns);
        let in_time_ns = deadline_ns.saturating_add(i64::try_from(promise_ns).unwrap_or(i64::MAX));
        let skew_ns = self.skew_ns(m);
        let held_back = if self.config.design.threads_share_timers {
            self.machine_delays(m)
        } else {
            self.thread_delayed(m, thread)
        };
        held_back
            || self.sleeps.iter().any(|sleep| {
                sleep.skew_ns != skew_ns
                    && sleep
                        .until_ns
                        .is_some_and(|until_ns| until_ns <= in_time_ns)
            })
    }

    /// Whether the machine holds a timer thread back now: busy with callbacks or waiting for a
    /// core, with a wake it could not take while busy, or with a wake due that it has not yet
    /// taken.
    pub(super) fn machine_delays(&self, m: &Machine<Wake>) -> bool {
        (0..self.threads.len()).any(|thread| self.thread_delayed(m, thread))
    }

    /// Whether the machine holds timer thread `thread` back now.
    fn thread_delayed(&self, m: &Machine<Wake>, thread: usize) -> bool {
        let Some((cpu, _)) = self.threads.get(thread) else {
            return false;
        };
        m.is_busy(*cpu)
            || self.deferred[thread].is_some()
            || self.sleeps[thread]
                .wake
                .is_some_and(|wake| m.read(wake.clock) >= wake.at_ns)
    }

    /// Reports that the design did not fire call `index`'s timer within its promise, for its
    /// timeout plus the `lag_ns` its thread lagged when it was armed.
    fn missed(
        &mut self,
        m: &Machine<Wake>,
        index: u32,
        overdue_ns: i64,
        lag_ns: u64,
    ) -> Result<(), RunError> {
        if let Some(call) = self.calls.get_mut(index) {
            call.overdue = true;
        }
        self.stats.missed += 1;
        let design_now_ns = m.read(self.design_clock());
        let threads: Vec<String> = (0..self.threads.len())
            .map(|thread| match self.sleeps[thread].until_ns {
                None => format!("thread {thread} is asleep with no deadline"),
                Some(until_ns) => format!(
                    "thread {thread} is asleep for {} more",
                    Approx(until_ns.saturating_sub(design_now_ns).max(0) as u64)
                ),
            })
            .collect();
        let lagged = if lag_ns > 0 {
            format!(
                " (armed while its thread lagged {} behind, so for a timeout of {})",
                Approx(lag_ns),
                Approx(self.config.timeout_ns.saturating_add(lag_ns))
            )
        } else {
            String::new()
        };
        let what = format!(
            "timer of call #{index} is {} past its deadline and has not fired: its design \
             promises to fire {}{lagged}, and the machine adds up to {}; {}",
            Approx((overdue_ns as u64).saturating_add(self.allowance_ns(lag_ns))),
            promise_text(
                self.config.design.promise,
                self.config.timeout_ns.saturating_add(lag_ns)
            ),
            Approx(self.overshoot_ns),
            threads.join(", ")
        );
        let violations = self.stats.violations();
        crate::invariant::report(self.sink, m.now_ns(), violations, what)?;
        Ok(())
    }
}

/// A promise as the violation line gives it.
fn promise_text(promise: ticklab_models::timer::Promise, timeout_ns: u64) -> String {
    use ticklab_models::timer::Promise;
    match promise {
        Promise::Exact => "at its deadline".to_string(),
        Promise::Within { late_ns } => format!("within {}", Approx(late_ns)),
        Promise::ShareOfTimeout { ppm, .. } => format!(
            "within {}% of its timeout, {}",
            f64::from(ppm) / 10_000.0,
            Approx(promise.late_ns(timeout_ns))
        ),
    }
}
