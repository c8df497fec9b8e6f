//! What the code under test calls: the harness run it belongs to is found through the thread it
//! runs on, since a current-thread runtime polls every task on the thread that called `run`, and
//! its blocking-pool threads belong to the run too. Each function points a panic at its caller.

use std::cell::RefCell;
use std::fmt::Display;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::os::answer::{self, Role};
use super::shared::{Shared, State, advance_clock};

thread_local! {
    static CURRENT: RefCell<Option<Arc<Shared>>> = const { RefCell::new(None) };
}

/// Makes `shared` the current run on this thread until dropped.
pub(crate) struct Entered(());

impl Entered {
    pub(crate) fn enter(shared: &Arc<Shared>) -> Entered {
        CURRENT.with_borrow_mut(|current| {
            assert!(
                current.is_none(),
                "ticklab::tokio: a harness run cannot start inside another"
            );
            *current = Some(Arc::clone(shared));
        });
        Entered(())
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with_borrow_mut(|current| *current = None);
    }
}

#[track_caller]
fn with_run<R>(what: &str, f: impl FnOnce(&Arc<Shared>) -> R) -> R {
    // A blocking-pool thread belongs to the run through its clocks' scope.
    let shared = CURRENT
        .with_borrow(|current| current.clone())
        .or_else(answer::current_run);
    match shared {
        Some(shared) => f(&shared),
        None => panic!(
            "ticklab::tokio::{what} was called outside a harness run; call it from code that \
             `Harness::run` runs: its tasks and its spawn_blocking closures, not a thread the \
             code starts itself"
        ),
    }
}

/// Brings physical time up to tokio's clock, which the runtime moves on its own to the next
/// timer. The clock must not have passed the next fault: only the harness may move it that far.
///
/// Outside the runtime (as the body is built, before `block_on`), tokio's clock cannot be read
/// and has not moved: physical time stays where it is.
pub(crate) fn sync(shared: &Shared, state: &mut State) {
    if state.timeline.is_over()
        || state.broken.is_some()
        || tokio::runtime::Handle::try_current().is_err()
    {
        return;
    }
    let elapsed_ns = shared.elapsed_ns();
    let next_ns = state.timeline.next_event_ns().expect("the run is not over");
    if elapsed_ns > state.timeline.instant_at(next_ns) {
        state.broken = Some(format!(
            "tokio's clock moved past the next fault or the end of the run, at {} of physical \
             time, without the harness: code under the harness must not call \
             `tokio::time::advance` or `pause`/`resume`; mark CPU work with \
             `ticklab::tokio::busy` instead",
            ticklab_sim::Secs(next_ns)
        ));
        shared.end(state);
        return;
    }
    state.timeline.catch_up(elapsed_ns);
}

/// Records `label` in the run's trace, with the physical time, tokio's `Instant` and the wall
/// clock as they read now.
///
/// ```no_run
/// ticklab::tokio::note("beat");
/// ```
#[track_caller]
pub fn note(label: &'static str) {
    note_with(label, "");
}

/// [`note`], with a detail printed after the label, such as a sequence number.
#[track_caller]
pub fn note_with(label: &'static str, detail: impl Display) {
    with_run("note", |shared| {
        let mut state = shared.lock();
        sync(shared, &mut state);
        state.timeline.note(label, detail.to_string());
    });
}

/// The wall clock (`SystemTime::now()`) of the simulated machine: it counts suspends, and the
/// scenario's steps and slews move it.
#[track_caller]
pub fn wall_now() -> SystemTime {
    with_run("wall_now", |shared| {
        let mut state = shared.lock();
        sync(shared, &mut state);
        let wall_ns = state.timeline.wall().0;
        let magnitude = Duration::from_nanos(wall_ns.unsigned_abs());
        if wall_ns >= 0 {
            SystemTime::UNIX_EPOCH + magnitude
        } else {
            SystemTime::UNIX_EPOCH - magnitude
        }
    })
}

/// tokio's `Instant` when the run began: the trace's `instant` readings count from it.
#[track_caller]
pub fn started_at() -> tokio::time::Instant {
    with_run("started_at", |shared| shared.start)
}

/// Physical time since the run began: what a stopwatch beside the machine would read.
#[track_caller]
pub fn physical_now() -> Duration {
    with_run("physical_now", |shared| {
        let mut state = shared.lock();
        sync(shared, &mut state);
        Duration::from_nanos(state.timeline.now_ns())
    })
}

/// Holds the runtime thread for `duration` of running time, as CPU-bound or blocking work
/// would: time passes and no other task is polled. A suspend that falls inside stops the work
/// and moves the clocks as it would anywhere else.
///
/// # Panics
///
/// If called after the run has ended: a task that keeps working without awaiting would hold the
/// runtime thread forever, so the harness stops it rather than hang. If called on a
/// `spawn_blocking` thread, which cannot move simulated time.
#[track_caller]
pub fn busy(duration: Duration) {
    assert!(
        answer::role() != Some(Role::Blocking),
        "ticklab::tokio::busy was called on a spawn_blocking thread, which runs beside the tasks \
         and cannot move simulated time; call it from a task instead"
    );
    let held = with_run("busy", |shared| {
        let mut state = shared.lock();
        sync(shared, &mut state);
        let busy_ns = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        hold(shared, &mut state, busy_ns, false)
    });
    if let Err(end_ns) = held {
        panic!(
            "ticklab::tokio::busy was called after the run ended at {}: the task has not \
             awaited since, and would hold the runtime thread forever",
            ticklab_sim::Secs(end_ns)
        );
    }
}

/// Holds the runtime thread for `busy_ns` of running time, moving tokio's clock and the machine
/// through any fault on the way, and records it as a busy section or a sleep; `Err` with the end
/// if the run is already over.
pub(crate) fn hold(
    shared: &Shared,
    state: &mut State,
    busy_ns: u64,
    slept: bool,
) -> Result<(), u64> {
    if state.timeline.is_over() {
        return Err(state.timeline.now_ns());
    }
    let began = (
        state.timeline.now_ns(),
        state.timeline.instant_ns() as i64,
        state.timeline.wall(),
    );
    let mut left_ns = busy_ns;
    while left_ns > 0 {
        let Some(next_ns) = state.timeline.next_event_ns() else {
            break;
        };
        let now_ns = state.timeline.now_ns();
        let target_ns = now_ns.saturating_add(left_ns).min(next_ns);
        left_ns -= target_ns - now_ns;
        advance_clock(state.timeline.run_to(target_ns));
        if state.timeline.is_over() {
            shared.end(state);
        }
    }
    // What the thread was held for: less than asked when the run ended first.
    state.timeline.busy(began, busy_ns - left_ns, slept);
    Ok(())
}
