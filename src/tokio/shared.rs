//! The state a harness run shares between its fault driver, the runtime's park hook and the code
//! under test, and the two futures built on it.

use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use tokio::time::Instant;

use super::harness::RunOptions;
use super::os::answer::InHarness;
use super::standstill::Standstill;
use super::stretches::Stretches;
use super::timeline::Timeline;

#[derive(Debug)]
pub(crate) struct Shared {
    state: Mutex<State>,
    /// tokio's clock at the start of the run; every reading is taken relative to it.
    pub(crate) start: Instant,
    /// Whether a panic on a harness thread fails the run, or is left to tokio.
    pub(crate) task_panics_fail: bool,
    pub(crate) stretches: Stretches,
    pub(crate) standstill: Standstill,
}

#[derive(Debug)]
pub(crate) struct State {
    pub(crate) timeline: Timeline,
    /// The fault driver, waiting for the runtime to run out of work.
    idle_waiter: Option<Waker>,
    /// How many times the runtime ran out of work while the driver waited for it.
    idle_count: u64,
    /// The body's `block_on`, waiting for the run to end.
    over_waiter: Option<Waker>,
    /// Why the run could not go on, if the code under test moved tokio's clock itself.
    pub(crate) broken: Option<String>,
}

impl Shared {
    pub(crate) fn new(timeline: Timeline, start: Instant, options: &RunOptions) -> Arc<Self> {
        Arc::new(Shared {
            state: Mutex::new(State {
                timeline,
                idle_waiter: None,
                idle_count: 0,
                over_waiter: None,
                broken: None,
            }),
            start,
            task_panics_fail: options.task_panics_fail,
            stretches: Stretches::new(options.warn_after_real_ns),
            standstill: Standstill::new(options.stop_after_real_ns),
        })
    }

    pub(crate) fn lock(&self) -> StateGuard<'_> {
        // Marked first: taking the lock must not itself read a clock as the code under test.
        let in_harness = InHarness::enter();
        // A panic in the code under test unwinds through `block_on`, never while this is held.
        let guard = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        StateGuard {
            guard,
            _in_harness: in_harness,
        }
    }

    /// Ends the run at once: it fails with `why` when `run` returns. The first reason stands.
    pub(crate) fn fail(&self, why: String) {
        let mut state = self.lock();
        if state.broken.is_none() {
            state.broken = Some(why);
        }
        self.end(&mut state);
    }

    /// tokio's clock since the start of the run.
    pub(crate) fn elapsed_ns(&self) -> u64 {
        (Instant::now() - self.start).as_nanos() as u64
    }

    /// The runtime's `on_thread_unpark` hook: tokio's paused clock moves on its own only while
    /// the thread parks, so the timeline is brought up to it here, before any task reads a clock.
    pub(crate) fn on_unpark(&self) {
        let mut state = self.lock();
        super::context::sync(self, &mut state);
        drop(state);
        if cfg!(not(tokio_unstable)) {
            self.stretches.begin();
        }
    }

    /// The runtime's `on_thread_park` hook: it runs only when no task is left to poll, so the
    /// driver it wakes is the only task that runs next, before the runtime moves its clock.
    pub(crate) fn on_idle(&self) {
        let mut state = self.lock();
        self.stretches.end(&state.timeline);
        if let Some(waker) = state.idle_waiter.take() {
            state.idle_count += 1;
            waker.wake();
        }
    }

    /// Resolves once every task has run all it can at the current instant. The first time the
    /// runtime runs out of work it also looks for timers that the last jump made due, and wakes
    /// their tasks behind the driver; the second time, those have run too.
    pub(crate) fn idle(self: &Arc<Self>) -> Idle {
        let wanted = self.lock().idle_count + 2;
        Idle {
            shared: Arc::clone(self),
            wanted,
        }
    }

    /// Marks the run over and wakes the body's `block_on`.
    pub(crate) fn end(&self, state: &mut State) {
        debug_assert!(state.timeline.is_over() || state.broken.is_some());
        if let Some(waker) = state.over_waiter.take() {
            waker.wake();
        }
    }

    /// Ready once the run is over.
    pub(crate) fn poll_over(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.lock();
        if state.timeline.is_over() || state.broken.is_some() {
            return Poll::Ready(());
        }
        state.over_waiter = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// The run's state, locked; while it is held, clock reads on this thread are ticklab's own.
#[derive(Debug)]
pub(crate) struct StateGuard<'a> {
    guard: MutexGuard<'a, State>,
    _in_harness: InHarness,
}

impl Deref for StateGuard<'_> {
    type Target = State;

    fn deref(&self) -> &State {
        &self.guard
    }
}

impl DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

#[derive(Debug)]
pub(crate) struct Idle {
    shared: Arc<Shared>,
    wanted: u64,
}

impl Future for Idle {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.shared.lock();
        if state.idle_count >= self.wanted {
            return Poll::Ready(());
        }
        state.idle_waiter = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Moves tokio's paused clock forward by `ns` without yielding, so that no task runs between the
/// move and what the caller does next. `tokio::time::advance` moves the clock when first polled
/// and only then yields; polled once and dropped, it is the move alone.
pub(crate) fn advance_clock(ns: u64) {
    if ns == 0 {
        return;
    }
    let advance = std::pin::pin!(tokio::time::advance(std::time::Duration::from_nanos(ns)));
    let mut cx = Context::from_waker(Waker::noop());
    let _ = advance.poll(&mut cx);
}
