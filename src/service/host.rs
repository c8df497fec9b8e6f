//! One host's tokio runtime: stepped by the run until every task waits, when it parks and says
//! how far off its next timer is.
//!
//! The runtime is an ordinary current-thread one with real (unpaused) time: its clock is std's
//! `Instant`, which reads the host's own simulated clock while the run steps the host. A host's
//! code runs on a `LocalSet`, so it may hold what is not `Send`, as under turmoil.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use tokio::task::LocalSet;

use crate::tokio::os::park::{ParkWatch, Parked};

/// What a host's code returns, as turmoil's `Result`.
pub type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A host's code, not yet started.
pub(crate) type Software = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = Result>>>>;

/// One host's runtime and what its code has come to.
pub(crate) struct HostRuntime {
    runtime: Option<tokio::runtime::Runtime>,
    local: Option<LocalSet>,
    software: Option<Software>,
    /// How the host's code ended, once it has: `Err` with its error.
    pub(crate) outcome: Rc<RefCell<Option<std::result::Result<(), String>>>>,
}

impl std::fmt::Debug for HostRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostRuntime")
            .field("started", &self.software.is_none())
            .field("outcome", &self.outcome)
            .finish()
    }
}

impl HostRuntime {
    /// Builds the runtime: its clock starts at the host's `Instant` now, which the caller has
    /// made the host's.
    pub(crate) fn new(software: Software) -> HostRuntime {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime builds");
        HostRuntime {
            runtime: Some(runtime),
            local: Some(LocalSet::new()),
            software: Some(software),
            outcome: Rc::new(RefCell::new(None)),
        }
    }

    pub(crate) fn started(&self) -> bool {
        self.software.is_none()
    }

    /// Runs the host's tasks until every one waits; how long the runtime would then block.
    /// `None` if they never all wait: some task is always ready (one that yields in a loop), so
    /// the host's clock could never move.
    pub(crate) fn step(&mut self, watch: &ParkWatch) -> Option<Parked> {
        let (Some(runtime), Some(local)) = (&self.runtime, &self.local) else {
            return Some(Parked::UntilWoken);
        };
        if let Some(software) = self.software.take() {
            let outcome = Rc::clone(&self.outcome);
            let _entered = runtime.enter();
            local.spawn_local(async move {
                let ended = software().await.map_err(|error| error.to_string());
                *outcome.borrow_mut() = Some(ended);
            });
        }
        watch.take();
        let until_parked = UntilParked {
            watch,
            busy_parks: 0,
        };
        runtime.block_on(local.run_until(until_parked))
    }

    /// Drops the host's tasks, then its runtime.
    pub(crate) fn shut_down(&mut self) {
        drop(self.local.take());
        drop(self.runtime.take());
    }
}

/// Parks in one step with work still ready before the host is taken to never wait: at about a
/// microsecond each, a second or two of real time.
const MAX_BUSY_PARKS: u32 = 1_000_000;

/// Ready once the runtime has parked for a timer in the future or for good: every task waits.
struct UntilParked<'a> {
    watch: &'a ParkWatch,
    /// Parks that found work still ready, in a row.
    busy_parks: u32,
}

impl Future for UntilParked<'_> {
    type Output = Option<Parked>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Parked>> {
        match self.watch.take() {
            // Not parked yet, or a timer was due as it parked (the runtime fires it and runs
            // on), or it only looked for events on its way.
            None | Some(Parked::For { ms: 0 }) => {
                self.busy_parks += 1;
                if self.busy_parks > MAX_BUSY_PARKS {
                    return Poll::Ready(None);
                }
                self.watch.wake_on_park(cx.waker());
                Poll::Pending
            }
            Some(parked) => Poll::Ready(Some(parked)),
        }
    }
}
