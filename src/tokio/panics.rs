//! A panic on a harness thread fails the run. tokio catches a spawned task's panic and goes on,
//! and its `unhandled_panic = "shutdown_runtime"` exists only under `tokio_unstable`; so the
//! harness sees the panic where it starts, in a process-wide panic hook that acts only on the
//! threads of a run, and on the threads their code starts, and hands every panic on to the hook
//! that was there before. While that hook prints (a backtrace can take a second), the stall
//! watch holds off: the report is no stall.

use std::panic::PanicHookInfo;
use std::sync::{Arc, Once};

use super::os::answer::{self, Role};
use super::os::{lineage, real_monotonic_ns};
use super::shared::Shared;

/// Installs the hook once per process.
pub(crate) fn install_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(hosts) = answer::current_hosts() {
                if !answer::holds_state() {
                    hosts.panicked(format!("panicked{}: {}", place(info), message(info)));
                }
                previous(info);
                return;
            }
            let Some((shared, thread)) = panicked_in() else {
                previous(info);
                return;
            };
            shared.standstill.report_begins();
            let began_ns = real_monotonic_ns();
            fail_the_run(&shared, thread, info);
            previous(info);
            // The report's real time is no part of the runtime thread's stretch it interrupted.
            if answer::role() == Some(Role::Runtime) {
                let took_ns = u64::try_from(real_monotonic_ns() - began_ns).unwrap_or(0);
                shared.stretches.discount(took_ns);
            }
            shared.standstill.report_ends();
        }));
    });
}

/// Which of a run's threads panicked.
#[derive(Clone, Copy, Debug)]
enum Thread {
    /// The runtime thread or a blocking-pool thread.
    Harness,
    /// A thread the code under test started itself.
    Started,
}

/// The run this panic belongs to, and on which of its threads it happened.
fn panicked_in() -> Option<(Arc<Shared>, Thread)> {
    if let Some(shared) = answer::current_run() {
        return Some((shared, Thread::Harness));
    }
    lineage::run_that_started_this_thread().map(|shared| (shared, Thread::Started))
}

fn fail_the_run(shared: &Shared, thread: Thread, info: &PanicHookInfo<'_>) {
    // A panic while this thread holds the run's state is ticklab's own, and unwinds out of
    // `Harness::run` by itself.
    if answer::holds_state() || !shared.task_panics_fail {
        return;
    }
    let (message, place) = (message(info), place(info));
    shared.fail(match thread {
        Thread::Harness => format!(
            "a task of the code under test panicked{place}: {message}. tokio would swallow a \
             spawned task's panic and go on; the harness fails the run instead (call \
             `swallowing_task_panics()` on the harness to keep tokio's way)"
        ),
        Thread::Started => format!(
            "a thread the code under test started panicked{place}: {message}. Only the thread's \
             join handle would know; the harness fails the run instead (call \
             `swallowing_task_panics()` on the harness to leave it to the code)"
        ),
    });
}

/// What a panic said.
fn message(info: &PanicHookInfo<'_>) -> String {
    match (
        info.payload().downcast_ref::<&str>(),
        info.payload().downcast_ref::<String>(),
    ) {
        (Some(text), _) => (*text).to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic without a message".to_string(),
    }
}

/// Where a panic happened, as ` at file:line:column`.
fn place(info: &PanicHookInfo<'_>) -> String {
    info.location()
        .map_or_else(String::new, |location| format!(" at {location}"))
}
