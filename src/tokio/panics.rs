//! A panic on a harness thread fails the run. tokio catches a spawned task's panic and goes on,
//! and its `unhandled_panic = "shutdown_runtime"` exists only under `tokio_unstable`; so the
//! harness sees the panic where it starts, in a process-wide panic hook that acts only on the
//! threads of a run and hands every panic on to the hook that was there before.

use std::panic::PanicHookInfo;
use std::sync::Once;

use super::os::answer;

/// Installs the hook once per process.
pub(crate) fn install_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            fail_the_run(info);
            previous(info);
        }));
    });
}

fn fail_the_run(info: &PanicHookInfo<'_>) {
    // A panic while this thread holds the run's state is ticklab's own, and unwinds out of
    // `Harness::run` by itself.
    if answer::holds_state() {
        return;
    }
    let Some(shared) = answer::current_run() else {
        return;
    };
    if !shared.task_panics_fail {
        return;
    }
    let message = match (
        info.payload().downcast_ref::<&str>(),
        info.payload().downcast_ref::<String>(),
    ) {
        (Some(text), _) => (*text).to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic without a message".to_string(),
    };
    let place = info
        .location()
        .map_or_else(String::new, |location| format!(" at {location}"));
    shared.fail(format!(
        "a task of the code under test panicked{place}: {message}. tokio would swallow a \
         spawned task's panic and go on; the harness fails the run instead (call \
         `swallowing_task_panics()` on the harness to keep tokio's way)"
    ));
}
