//! A thread that watches the runtime thread in real time while a run goes on. A stretch that
//! never ends (a timed wait on a std `Condvar` or channel, whose deadline came from the
//! simulated `Instant` while the kernel waits in real time, or a blocking read that never
//! returns) would hang the test with nothing said; the watch says so on stderr as it happens,
//! and once more in the run's warnings should the stretch end.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use ticklab_sim::{Approx, Compact};

use super::shared::Shared;

/// Real time between looks.
const LOOK_EVERY: Duration = Duration::from_millis(100);
/// A stretch this many times the warning limit, and at least a second, is reported as it lasts.
const STUCK_TIMES_LIMIT: u64 = 20;
const STUCK_AT_LEAST_NS: u64 = 1_000_000_000;

#[derive(Debug)]
pub(crate) struct StallWatch {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl StallWatch {
    /// Watches `shared`'s runtime thread until dropped. The watch reads the real clocks: it is no
    /// harness thread.
    pub(crate) fn start(shared: &Arc<Shared>) -> StallWatch {
        let stop: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        let watched = Arc::downgrade(shared);
        let stopping = Arc::clone(&stop);
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
        *stopped
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = true;
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn watch(shared: &Weak<Shared>, stop: &(Mutex<bool>, Condvar)) {
    let (stopped, wake) = stop;
    let mut reported: Option<i128> = None;
    let mut stopped = stopped
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    while !*stopped {
        stopped = wake
            .wait_timeout(stopped, LOOK_EVERY)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let stuck_ns = (shared
            .stretches
            .limit_ns()
            .saturating_mul(STUCK_TIMES_LIMIT))
        .max(STUCK_AT_LEAST_NS);
        let Some((took_ns, began_ns)) = shared.stretches.current() else {
            continue;
        };
        if took_ns < stuck_ns || reported == Some(began_ns) {
            continue;
        }
        reported = Some(began_ns);
        let physical_ns = shared.lock().timeline.now_ns();
        let warning = format!(
            "the runtime thread has polled for {} of real time without pausing, at {} of \
             physical time, and may be stuck: a timed wait on a std Condvar, channel or park \
             waits in real time until a deadline taken from the simulated Instant, and a \
             blocking read may never return. Await tokio's primitives instead",
            Approx(took_ns),
            Compact(physical_ns as i64),
        );
        let _ = writeln!(std::io::stderr(), "ticklab::tokio warning: {warning}");
        shared.stretches.warn_printed(warning);
    }
}
