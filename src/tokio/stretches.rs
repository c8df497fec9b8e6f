//! Warnings about real time: a stretch in which the runtime thread polled tasks without pausing
//! for longer than a limit. Simulated time cannot see a blocking read or a contended std mutex,
//! and a verdict must not depend on how loaded the host is, so such a stretch changes nothing in
//! the run; it is reported beside it, for the user to mark with `busy` or move off the thread.
//!
//! tokio's stable API says when its thread parks and unparks, not which task it polls: naming the
//! task and where it was spawned needs its `tokio_unstable` task hooks. The warning names the
//! simulated moment and the last note before it instead.

use std::sync::Mutex;

use ticklab_sim::Compact;

use super::os::real_monotonic_ns;
use super::timeline::Timeline;

#[derive(Debug)]
pub(crate) struct Stretches {
    limit_ns: u64,
    /// When the runtime thread last began to poll, on the host's real monotonic clock.
    began_ns: Mutex<Option<i128>>,
    warnings: Mutex<Vec<String>>,
}

impl Stretches {
    pub(crate) fn new(limit_ns: u64) -> Stretches {
        Stretches {
            limit_ns,
            began_ns: Mutex::new(Some(real_monotonic_ns())),
            warnings: Mutex::default(),
        }
    }

    /// The runtime thread woke, and polls again.
    pub(crate) fn begin(&self) {
        *lock(&self.began_ns) = Some(real_monotonic_ns());
    }

    /// The runtime thread has nothing to poll: the stretch since `begin` is over.
    pub(crate) fn end(&self, timeline: &Timeline) {
        let Some(began_ns) = lock(&self.began_ns).take() else {
            return;
        };
        let took_ns = u64::try_from(real_monotonic_ns() - began_ns).unwrap_or(0);
        if took_ns <= self.limit_ns {
            return;
        }
        let after = timeline
            .last_note()
            .map_or_else(String::new, |(label, t_ns)| {
                format!(", after the note \"{label}\" at {}", Compact(t_ns as i64))
            });
        lock(&self.warnings).push(format!(
            "the runtime thread polled tasks for {} of real time without pausing, at {} of \
             physical time{after}: something in a task blocked or ran long without telling the \
             harness (a blocking read, a contended std mutex, CPU work); simulated time did not \
             move for it. Mark such work with ticklab::tokio::busy, or move it to spawn_blocking",
            Compact(took_ns as i64),
            Compact(timeline.now_ns() as i64),
        ));
    }

    pub(crate) fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.warnings))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
