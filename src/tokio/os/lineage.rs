//! Threads the code under test starts itself (`std::thread::spawn`, or a library calling
//! `pthread_create`) belong to no run: they keep the real clocks. A panic in one must still fail
//! the run, as a task's does, or a test whose worker thread panicked would pass in silence: so
//! `pthread_create` on a harness thread hands the new thread the run, which hands it on to the
//! threads that one starts.

use std::cell::RefCell;
use std::sync::{Arc, Weak};

use super::answer::RunClocks;
use crate::tokio::shared::Shared;

thread_local! {
    /// The run whose code started this thread, directly or through threads it started.
    static STARTED_BY: RefCell<Option<Weak<RunClocks>>> = const { RefCell::new(None) };
}

/// What libc's `pthread_create`, defined with os-clocks, asks as it starts a thread.
#[cfg(all(
    feature = "os-clocks",
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
))]
pub(crate) mod on_create {
    use std::sync::{Arc, Weak};

    use super::STARTED_BY;
    use crate::tokio::os::answer::{RunClocks, current};

    /// The run that a thread started now from this thread belongs to: this thread's own run (unless
    /// ticklab itself starts the thread), or the run that started this one.
    pub(crate) fn run_for_new_thread() -> Option<Weak<RunClocks>> {
        if let Some((clocks, _)) = current() {
            if let Some(hosts) = clocks.hosts.get() {
                hosts.fail(
                    "started a thread (std::thread::spawn, tokio's spawn_blocking or tokio::fs, \
                     or a library's own): it would run beside the simulation on the real clocks, \
                     and every host runs on one thread; run the work in a task instead"
                        .to_string(),
                );
            }
            return Some(Arc::downgrade(&clocks));
        }
        STARTED_BY
            .try_with(|started_by| started_by.try_borrow().ok().and_then(|run| run.clone()))
            .ok()
            .flatten()
    }

    /// Marks this thread, new, as started by the code of `run`.
    pub(crate) fn started_by(run: Weak<RunClocks>) {
        let _ = STARTED_BY.try_with(|started_by| *started_by.borrow_mut() = Some(run));
    }
}

/// The run whose code started this thread, if that run is still there.
pub(crate) fn run_that_started_this_thread() -> Option<Arc<Shared>> {
    let clocks = STARTED_BY
        .try_with(|started_by| started_by.try_borrow().ok()?.as_ref()?.upgrade())
        .ok()
        .flatten()?;
    clocks.shared.get().cloned()
}
