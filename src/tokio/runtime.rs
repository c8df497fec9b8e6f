//! The paused current-thread runtime a run's code runs on, and this thread's part in the run,
//! let go together however the run ends.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::os::answer::{self, Role, RunClocks, Scope};
use super::stall_watch::StallWatch;

/// A run's runtime, and this thread's part in the run: whichever way the run ends, even by a
/// panic, the thread leaves the run before the runtime goes, so that the tasks' destructors run
/// on the real clocks like all code after the run.
pub(crate) struct Live {
    pub(crate) watch: Option<StallWatch>,
    pub(crate) scope: Option<Scope>,
    pub(crate) runtime: Option<tokio::runtime::Runtime>,
    pub(crate) clocks: Arc<RunClocks>,
    /// Real time the runtime's shutdown waits for its blocking-pool threads to finish, as
    /// tokio's own would wait for ever.
    pub(crate) wait_for_blocking: Duration,
}

impl Live {
    pub(crate) fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime lives until the run is dropped")
    }

    /// Lets the runtime go; how many blocking-pool threads were still running when the wait for
    /// them ended. Those are left behind.
    pub(crate) fn shut_down(&mut self) -> usize {
        drop(self.watch.take());
        drop(self.scope.take());
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(self.wait_for_blocking);
        }
        self.clocks.blocking_threads.load(Ordering::SeqCst)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// A current-thread runtime with paused time, whose blocking-pool threads belong to the run and
/// whose parks let the fault driver in.
pub(crate) fn build_runtime(clocks: &Arc<RunClocks>) -> tokio::runtime::Runtime {
    let (park_clocks, unpark_clocks) = (Arc::clone(clocks), Arc::clone(clocks));
    let (thread_clocks, stop_clocks) = (Arc::clone(clocks), Arc::clone(clocks));
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder
        .enable_all()
        .start_paused(true)
        .on_thread_park(move || {
            if let Some(shared) = park_clocks.shared.get() {
                shared.on_idle();
            }
        })
        .on_thread_unpark(move || {
            if let Some(shared) = unpark_clocks.shared.get() {
                shared.on_unpark();
            }
        })
        .on_thread_start(move || {
            thread_clocks
                .blocking_threads
                .fetch_add(1, Ordering::SeqCst);
            answer::enter_thread(&thread_clocks, Role::Blocking);
        })
        .on_thread_stop(move || {
            answer::leave_thread();
            stop_clocks.blocking_threads.fetch_sub(1, Ordering::SeqCst);
        });
    #[cfg(tokio_unstable)]
    time_each_poll(&mut builder, Arc::clone(clocks));
    builder.build().expect("a current-thread runtime builds")
}

/// With tokio's task hooks, each poll is timed and named.
#[cfg(tokio_unstable)]
fn time_each_poll(builder: &mut tokio::runtime::Builder, clocks: Arc<RunClocks>) {
    let after_clocks = Arc::clone(&clocks);
    builder
        .on_before_task_poll(move |task| {
            if let Some(shared) = clocks.shared.get() {
                shared.stretches.begin_poll(format!(
                    "task {}, spawned at {}, was polled",
                    task.id(),
                    task.spawned_at()
                ));
            }
        })
        .on_after_task_poll(move |_| {
            if let Some(shared) = after_clocks.shared.get() {
                let state = shared.lock();
                shared.stretches.end(&state.timeline);
            }
        });
}
