//! Warnings about real time: a stretch in which the runtime thread polled tasks without pausing
//! for longer than a limit. Simulated time cannot see a blocking read or a contended std mutex,
//! and a verdict must not depend on how loaded the host is, so such a stretch changes nothing in
//! the run; it is reported beside it, for the user to mark with `busy` or move off the thread.
//!
//! tokio's stable API says when its thread parks and unparks, not which task it polls, so a
//! stretch runs from an unpark to the next park, and the warning names the simulated moment and
//! the last note before it. Built with `--cfg tokio_unstable`, tokio says when each task's poll
//! begins and ends, and a warning names the task and where it was spawned.

use std::sync::Mutex;

use ticklab_sim::{Approx, Compact};

use super::os::real_monotonic_ns;
use super::timeline::Timeline;

#[derive(Debug)]
pub(crate) struct Stretches {
    limit_ns: u64,
    /// When the runtime thread last began to poll, on the host's real monotonic clock, and what
    /// it polls when that is known.
    began: Mutex<Option<(i128, Option<String>)>>,
    /// Each warning, and whether it was printed as it was found.
    warnings: Mutex<Vec<(String, bool)>>,
}

impl Stretches {
    pub(crate) fn new(limit_ns: u64) -> Stretches {
        Stretches {
            limit_ns,
            // With task hooks, only polls are timed; without, the first stretch begins here.
            began: Mutex::new(cfg!(not(tokio_unstable)).then(|| (real_monotonic_ns(), None))),
            warnings: Mutex::default(),
        }
    }

    /// The runtime thread woke, and polls again.
    pub(crate) fn begin(&self) {
        *lock(&self.began) = Some((real_monotonic_ns(), None));
    }

    /// The runtime thread begins to poll `what`: a task, named with where it was spawned.
    pub(crate) fn begin_poll(&self, what: String) {
        *lock(&self.began) = Some((real_monotonic_ns(), Some(what)));
    }

    /// The runtime thread has nothing to poll, or the poll is over: the stretch since `begin` or
    /// `begin_poll` is over.
    pub(crate) fn end(&self, timeline: &Timeline) {
        let Some((began_ns, what)) = lock(&self.began).take() else {
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
        let what = what.unwrap_or_else(|| "the runtime thread polled tasks".to_string());
        lock(&self.warnings).push((
            format!(
                "{what} for {} of real time without pausing, at {} of physical time{after}: \
             something blocked or ran long without telling the harness (a blocking read, a \
             contended std mutex, CPU work); simulated time did not move for it. Mark such work \
             with ticklab::tokio::busy, or move it to spawn_blocking",
                Approx(took_ns),
                Compact(timeline.now_ns() as i64),
            ),
            false,
        ));
    }

    /// Takes `ns` of real time that the thread spent on something else, such as reporting a
    /// panic, out of the current stretch.
    pub(crate) fn discount(&self, ns: u64) {
        if let Some((began_ns, _)) = lock(&self.began).as_mut() {
            *began_ns += i128::from(ns);
        }
    }

    /// The limit the warnings go by.
    pub(crate) fn limit_ns(&self) -> u64 {
        self.limit_ns
    }

    /// How long the current stretch has lasted in real time, if the thread is polling, and its
    /// start, which names it.
    pub(crate) fn current(&self) -> Option<(u64, i128)> {
        let began_ns = lock(&self.began).as_ref()?.0;
        let took_ns = u64::try_from(real_monotonic_ns() - began_ns).unwrap_or(0);
        Some((took_ns, began_ns))
    }

    /// Records a warning found, and printed, while the run goes on.
    pub(crate) fn warn_printed(&self, warning: String) {
        lock(&self.warnings).push((warning, true));
    }

    /// Every warning, each with whether it was printed already.
    pub(crate) fn take_warnings(&self) -> Vec<(String, bool)> {
        std::mem::take(&mut *lock(&self.warnings))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
