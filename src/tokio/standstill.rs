//! Simulated time standing still while real time goes on: the run waits for something outside
//! the simulation. tokio's paused clock does not move while a `spawn_blocking` task runs, nor
//! while the runtime thread is held in a poll, so a timed wait there (std's
//! `Condvar::wait_timeout`, mpsc's `recv_timeout`, `thread::park_timeout`, parking_lot's
//! `wait_for`), whose deadline comes from the simulated clock, never times out, and a loop until
//! `Instant::now()` passes a deadline never ends. The stall watch warns about such a standstill
//! as it happens and stops the run after a bound; this module holds what the watch and the
//! run's threads tell each other about it.

use std::backtrace::Backtrace;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Why a timed wait or a clock loop never ends under the harness.
pub(crate) const WHY_IT_NEVER_ENDS: &str = "tokio's paused clock does not move while a \
     spawn_blocking task runs or a poll holds the runtime thread, so a timed wait there (std's \
     Condvar::wait_timeout, mpsc's recv_timeout, thread::park_timeout, parking_lot's wait_for), \
     whose deadline comes from the simulated clock, never times out, and a loop until \
     Instant::now() passes a deadline never ends; nor does a wait for a thread or socket outside \
     the run";

/// Frames shown of the code that read the clock during a standstill.
const FRAMES_SHOWN: usize = 16;

#[derive(Debug)]
pub(crate) struct Standstill {
    /// Real time simulated time may stand still before the run is stopped.
    pub(crate) stop_after_ns: u64,
    /// Set once a standstill is reported: the next clock read of the code under test records
    /// where it was made, which names the wait.
    frames_wanted: AtomicBool,
    frames: Mutex<Option<String>>,
    /// Panic reports in progress on the run's threads, and how many have ended: printing a
    /// backtrace can take a second, which is no standstill.
    reporting: AtomicUsize,
    reports_ended: AtomicU64,
}

impl Standstill {
    pub(crate) fn new(stop_after_ns: u64) -> Standstill {
        Standstill {
            stop_after_ns,
            frames_wanted: AtomicBool::new(false),
            frames: Mutex::new(None),
            reporting: AtomicUsize::new(0),
            reports_ended: AtomicU64::new(0),
        }
    }

    /// Asks the next clock read of the code under test to say where it was made, forgetting
    /// where an earlier standstill's was.
    pub(crate) fn want_frames(&self) {
        *lock(&self.frames) = None;
        self.frames_wanted.store(true, Ordering::SeqCst);
    }

    /// Called on every clock read of the code under test: records where it was made, if asked.
    /// `reader` names the thread, and `eligible` says whether the read is the code's.
    pub(crate) fn on_read(&self, reader: &str, eligible: impl FnOnce() -> bool) {
        if !self.frames_wanted.load(Ordering::Relaxed)
            || !eligible()
            || !self.frames_wanted.swap(false, Ordering::SeqCst)
        {
            return;
        }
        let frames = callers_of_the_clock(&Backtrace::force_capture().to_string());
        let mut kept = lock(&self.frames);
        *kept = Some(if frames.is_empty() {
            format!("{reader} read the clock during the standstill")
        } else {
            format!("{reader} read the clock during the standstill, here:\n{frames}")
        });
    }

    /// Where the code under test read the clock during the standstill, if it did.
    pub(crate) fn frames(&self) -> Option<String> {
        lock(&self.frames).clone()
    }

    /// A panic report begins on one of the run's threads; the watch holds off until it ends.
    pub(crate) fn report_begins(&self) {
        self.reporting.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn report_ends(&self) {
        self.reports_ended.fetch_add(1, Ordering::SeqCst);
        self.reporting.fetch_sub(1, Ordering::SeqCst);
    }

    /// A number that changes whenever a panic report is under way or has ended since the last
    /// look: real time across it does not count.
    pub(crate) fn reports_seen(&self) -> (bool, u64) {
        (
            self.reporting.load(Ordering::SeqCst) > 0,
            self.reports_ended.load(Ordering::SeqCst),
        )
    }
}

/// The frames of a backtrace below the clock read: from the caller of libc's clock function
/// down to the first of tokio's own frames, which run the code under test.
fn callers_of_the_clock(backtrace: &str) -> String {
    let mut frames: Vec<Vec<&str>> = Vec::new();
    for line in backtrace.lines() {
        let text = line.trim_start();
        let numbered = text
            .split_once(": ")
            .is_some_and(|(number, _)| number.chars().all(|c| c.is_ascii_digit()));
        match frames.last_mut() {
            Some(frame) if !numbered => frame.push(text),
            _ => frames.push(vec![text.split_once(": ").map_or(text, |(_, name)| name)]),
        }
    }
    let clock_call = frames
        .iter()
        .rposition(|frame| super::os::is_clock_read(frame[0]));
    let Some(clock_call) = clock_call else {
        return String::new();
    };
    frames[clock_call + 1..]
        .iter()
        .take_while(|frame| !frame[0].trim_start_matches('<').starts_with("tokio::"))
        .take(FRAMES_SHOWN)
        .map(|frame| format!("  {}\n", frame.join("\n    ")))
        .collect()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frames_shown_run_from_the_clock_s_caller_to_tokio() {
        let backtrace = [
            "   0: ticklab::tokio::os::answer::read",
            "             at ./src/a.rs:1:1",
            "   1: clock_gettime",
            "   2: std::time::Instant::now",
            "             at /rustc/x/time.rs:2:3",
            "   3: user::wait",
            "             at ./tests/u.rs:4:5",
            "   4: <tokio::runtime::task::Task as core::future::Future>::poll",
            "   5: main",
        ]
        .join("\n");
        assert_eq!(
            callers_of_the_clock(&backtrace),
            "  std::time::Instant::now\n    at /rustc/x/time.rs:2:3\n  user::wait\n    at \
             ./tests/u.rs:4:5\n"
        );
    }

    /// libc's `clock_gettime` as ticklab defines it jumps to the harness thread's answer, whose
    /// frame is then the only one between the answer and the caller.
    #[test]
    fn the_answer_s_frame_stands_for_the_clock_read_it_was_jumped_to_from() {
        let backtrace = [
            "   0: ticklab::tokio::os::answer::read",
            "   1: ticklab::tokio::os::intercept::inside::time",
            "   2: user::deadline",
            "             at ./tests/u.rs:4:5",
            "   3: <tokio::runtime::task::Task as core::future::Future>::poll",
        ]
        .join("\n");
        assert_eq!(
            callers_of_the_clock(&backtrace),
            "  user::deadline\n    at ./tests/u.rs:4:5\n"
        );
    }
}
