//! A thread that watches a run in real time while it goes on. A stretch that never ends (a timed
//! wait on a std `Condvar` or channel, whose deadline came from the simulated `Instant` while the
//! kernel waits in real time, or a blocking read that never returns), on the runtime thread or on
//! a `spawn_blocking` thread, would hang the test with nothing said. The watch says so on stderr
//! as it happens, once more in the run's warnings should the stretch end, and stops the run once
//! simulated time has stood still for the run's bound (see [`super::standstill`]).

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use ticklab_sim::{Approx, Compact};

use super::os::answer::{InHarness, fatal};
use super::os::real_monotonic_ns;
use super::shared::Shared;
use super::standstill::WHY_IT_NEVER_ENDS;

/// Real time between looks.
const LOOK_EVERY: Duration = Duration::from_millis(100);
/// A stretch this many times the warning limit, and at least a second, is reported as it lasts.
const STUCK_TIMES_LIMIT: u64 = 20;
const STUCK_AT_LEAST_NS: u64 = 1_000_000_000;
/// Real time a stopped run has to come back before the process stops: a thread held in a wait in
/// the kernel cannot be unwound.
const COME_BACK_WITHIN: Duration = Duration::from_secs(5);

#[derive(Debug)]
pub(crate) struct StallWatch {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl StallWatch {
    /// Watches `shared`'s run until dropped. The watch reads the real clocks: it is no harness
    /// thread, nor one the code under test started.
    pub(crate) fn start(shared: &Arc<Shared>) -> StallWatch {
        let stop: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        let watched = Arc::downgrade(shared);
        let stopping = Arc::clone(&stop);
        // Marked as ticklab's own, the thread is none the code under test started.
        let _own = InHarness::enter();
        let thread = std::thread::Builder::new()
            .name("ticklab-stall-watch".into())
            .spawn(move || watch(&watched, &stopping))
            .ok();
        StallWatch { stop, thread }
    }
}

impl Drop for StallWatch {
    fn drop(&mut self) {
        let (stopped, wake) = &*self.stop;
        *lock(stopped) = true;
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn watch(shared: &Weak<Shared>, stop: &(Mutex<bool>, Condvar)) {
    let (stopped, wake) = stop;
    let mut looks = Looks::default();
    let mut stopped = lock(stopped);
    while !*stopped {
        stopped = wake
            .wait_timeout(stopped, LOOK_EVERY)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let Some(why) = looks.look(&shared) else {
            continue;
        };
        shared.fail(why.clone());
        drop(shared);
        // The run comes back from a poll or a wait for a blocking task and drops the watch;
        // a thread held in the kernel does not.
        stopped = wake
            .wait_timeout_while(stopped, COME_BACK_WITHIN, |stopped| !*stopped)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0;
        if !*stopped {
            fatal(&format!(
                "{why}\nThe thread is held where no failure reaches it, so the process stops"
            ));
        }
        return;
    }
}

/// What the watch has seen so far.
#[derive(Debug, Default)]
struct Looks {
    /// The stretch of polling already reported, by its start.
    reported_stretch: Option<i128>,
    /// The physical time last seen, and the real time since which it has stood there.
    still: Option<(u64, i128)>,
    standstill_reported: bool,
    /// Panic reports under way and ended, as last seen.
    reports_seen: (bool, u64),
}

impl Looks {
    /// One look at the run; a reason to stop it, if it has stood still for too long.
    fn look(&mut self, shared: &Shared) -> Option<String> {
        // A run that is over or has failed comes back at once, unless a thread is stuck: the
        // watch goes on looking until it is dropped.
        let physical_ns = shared.lock().timeline.now_ns();
        let now_ns = real_monotonic_ns();
        let reports = shared.standstill.reports_seen();
        if reports.0 || reports != self.reports_seen {
            // Real time spent reporting a panic is no standstill.
            self.reports_seen = reports;
            self.still = Some((physical_ns, now_ns));
            return None;
        }
        let stuck_ns = (shared
            .stretches
            .limit_ns()
            .saturating_mul(STUCK_TIMES_LIMIT))
        .max(STUCK_AT_LEAST_NS);
        let polled_ns = self.look_at_stretch(shared, stuck_ns, physical_ns);
        let since_ns = match self.still {
            Some((seen_ns, since_ns)) if seen_ns == physical_ns => since_ns,
            _ => {
                self.still = Some((physical_ns, now_ns));
                self.standstill_reported = false;
                return None;
            }
        };
        let still_ns = u64::try_from(now_ns - since_ns).unwrap_or(0);
        // A poll that began before the standstill holds the runtime thread through all of it.
        let held_in_poll =
            polled_ns.is_some_and(|took_ns| took_ns + 2 * LOOK_EVERY.as_nanos() as u64 >= still_ns);
        if still_ns >= stuck_ns && !self.standstill_reported {
            self.standstill_reported = true;
            shared.standstill.want_frames();
            if !held_in_poll {
                warn_of_standstill(shared, physical_ns, still_ns);
            }
        }
        (still_ns >= shared.standstill.stop_after_ns)
            .then(|| why_stopped(shared, physical_ns, still_ns, held_in_poll))
    }

    /// Reports a stretch of polling that has lasted for `stuck_ns` of real time, once; how long
    /// the current stretch has lasted, if the runtime thread is polling.
    fn look_at_stretch(&mut self, shared: &Shared, stuck_ns: u64, physical_ns: u64) -> Option<u64> {
        let (took_ns, began_ns) = shared.stretches.current()?;
        if took_ns < stuck_ns || self.reported_stretch == Some(began_ns) {
            return Some(took_ns);
        }
        self.reported_stretch = Some(began_ns);
        let warning = format!(
            "the runtime thread has polled for {} of real time without pausing, at {} of \
             physical time, and may be stuck: a timed wait on a std Condvar, channel or park \
             waits in real time until a deadline taken from the simulated Instant, and a \
             blocking read may never return. Await tokio's primitives instead. The run stops \
             after {} of real time (Harness::stop_when_stuck_for)",
            Approx(took_ns),
            Compact(physical_ns as i64),
            Approx(shared.standstill.stop_after_ns),
        );
        let _ = writeln!(std::io::stderr(), "ticklab::tokio warning: {warning}");
        shared.stretches.warn_printed(warning);
        Some(took_ns)
    }
}

fn lock(mutex: &Mutex<bool>) -> MutexGuard<'_, bool> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Says that simulated time has stood still while the runtime thread waited.
fn warn_of_standstill(shared: &Shared, physical_ns: u64, still_ns: u64) {
    let warning = format!(
        "simulated time has stood still at {} of physical time for {} of real time while the \
         runtime thread waited for something outside the simulation, such as a spawn_blocking \
         task, so the run may hang: {WHY_IT_NEVER_ENDS}. The run stops after {} of real time \
         (Harness::stop_when_stuck_for)",
        Compact(physical_ns as i64),
        Approx(still_ns),
        Approx(shared.standstill.stop_after_ns),
    );
    let _ = writeln!(std::io::stderr(), "ticklab::tokio warning: {warning}");
    shared.stretches.warn_printed(warning);
}

/// The error a run stopped for standing still fails with.
fn why_stopped(shared: &Shared, physical_ns: u64, still_ns: u64, held_in_poll: bool) -> String {
    let held = if held_in_poll {
        "a poll held the runtime thread"
    } else {
        "the runtime thread waited for something outside the simulation, such as a \
         spawn_blocking task"
    };
    let frames = shared
        .standstill
        .frames()
        .map_or_else(String::new, |frames| format!("\n{}", frames.trim_end()));
    format!(
        "ticklab::tokio stopped the run: simulated time stood still at {} of physical time for {} \
         of real time while {held}: {WHY_IT_NEVER_ENDS}. Await tokio's primitives instead \
         (tokio::time::timeout around an async channel's recv, tokio::sync::Notify), or raise \
         the bound with Harness::stop_when_stuck_for{frames}",
        Compact(physical_ns as i64),
        Approx(still_ns),
    )
}
