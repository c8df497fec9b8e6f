//! How long a service host's runtime would block when it parks.
//!
//! A service run steps each host's tokio runtime on one thread until every task waits. tokio's
//! runtime then parks in `epoll_wait` (its I/O driver), with a timeout that reaches its next
//! timer, computed from the host's own `Instant`. The run watches the thread's parks while it
//! steps a host: it takes the timeout as the moment the host wants to run again, lets the call
//! return at once (the host's clock does not move while the run steps it), and wakes the future
//! the run is blocked on, so that the step ends.

use std::cell::RefCell;
use std::ffi::c_int;
use std::task::Waker;

/// What a watched park asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parked {
    /// Until its next timer, `ms` whole milliseconds on: tokio's timers count milliseconds, and
    /// mio rounds a timeout up to one. Zero: a timer is due, or the runtime only looked for
    /// events on its way.
    For { ms: u64 },
    /// With no timer at all, until something wakes it.
    UntilWoken,
}

#[derive(Debug, Default)]
struct Watch {
    last: Option<Parked>,
    /// Woken at the next park.
    waker: Option<Waker>,
}

thread_local! {
    /// This thread's watch, while its parks are watched.
    static WATCH: RefCell<Option<Watch>> = const { RefCell::new(None) };
}

/// Watches this thread's parks until dropped.
#[derive(Debug)]
pub(crate) struct ParkWatch(());

impl ParkWatch {
    pub(crate) fn start() -> ParkWatch {
        WATCH.set(Some(Watch::default()));
        ParkWatch(())
    }

    /// The last park seen since the watch started or was last asked, if any.
    pub(crate) fn take(&self) -> Option<Parked> {
        WATCH.with_borrow_mut(|watch| watch.as_mut().and_then(|watch| watch.last.take()))
    }

    /// Wakes `waker` at the thread's next park.
    pub(crate) fn wake_on_park(&self, waker: &Waker) {
        WATCH.with_borrow_mut(|watch| {
            if let Some(watch) = watch {
                watch.waker = Some(waker.clone());
            }
        });
    }
}

impl Drop for ParkWatch {
    fn drop(&mut self) {
        let _ = WATCH.try_with(|watch| watch.borrow_mut().take());
    }
}

/// The timeout a thread's `epoll_wait` goes on with: zero while its parks are watched, after
/// noting the one it asked for; its own otherwise.
pub(crate) fn on_wait(timeout_ms: c_int) -> c_int {
    let watched = WATCH.try_with(|watch| {
        let mut watch = watch.try_borrow_mut().ok()?;
        let watch = watch.as_mut()?;
        watch.last = Some(match u64::try_from(timeout_ms) {
            Ok(ms) => Parked::For { ms },
            Err(_) => Parked::UntilWoken,
        });
        Some(watch.waker.take())
    });
    match watched {
        Ok(Some(waker)) => {
            if let Some(waker) = waker {
                waker.wake();
            }
            0
        }
        _ => timeout_ms,
    }
}
