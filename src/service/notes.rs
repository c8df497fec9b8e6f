//! What a host's code records of itself: [`note`], with the moment on the run's physical
//! timeline and on the host's own clocks.

use std::cell::RefCell;

use super::clockwork::{Clockwork, Reading, SharedClockwork};

/// A note a host's code made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostNote {
    /// Physical time, in ns since the run began.
    pub at_ns: u64,
    pub host: String,
    /// The host's `Instant`, in ns since the run began.
    pub instant_ns: u64,
    /// The host's wall clock, in ns since the Unix epoch.
    pub wall_ns: i64,
    pub text: String,
}

thread_local! {
    /// The clocks, the host whose code runs now, and the notes so far.
    static NOTES: RefCell<Option<(SharedClockwork, Vec<HostNote>)>> = const { RefCell::new(None) };
}

/// Collects the notes of a run until [`Collecting::finish`].
#[derive(Debug)]
pub(crate) struct Collecting(());

impl Collecting {
    pub(crate) fn start(clockwork: &SharedClockwork) -> Collecting {
        NOTES.set(Some((clockwork.clone(), Vec::new())));
        Collecting(())
    }

    pub(crate) fn finish(self) -> Vec<HostNote> {
        NOTES
            .with_borrow_mut(|notes| notes.take())
            .map(|(_, notes)| notes)
            .unwrap_or_default()
    }
}

impl Drop for Collecting {
    fn drop(&mut self) {
        let _ = NOTES.try_with(|notes| notes.borrow_mut().take());
    }
}

/// Records `text` on the host whose code calls it, at its moment: the run's trace and
/// [`ServiceRun::notes`](super::ServiceRun::notes) keep it with physical time and the host's
/// `Instant` and wall clock.
///
/// # Panics
///
/// Outside a service host's code.
pub fn note(text: impl Into<String>) {
    let text = text.into();
    NOTES.with_borrow_mut(|notes| {
        let Some((clockwork, notes)) = notes else {
            panic!("ticklab::service::note was called outside a service host's code");
        };
        let clockwork = clockwork.lock();
        let Some(host) = clockwork.current else {
            panic!("ticklab::service::note was called outside a service host's code");
        };
        let Reading {
            instant_ns,
            wall_ns,
            ..
        } = clockwork.reading(host);
        notes.push(HostNote {
            at_ns: clockwork.host_now_ns(host),
            host: clockwork.hosts[host].name.clone(),
            instant_ns,
            wall_ns,
            text,
        });
    });
}

/// `read` of the clockwork and the host whose code runs now; `None` outside a host's code.
pub(crate) fn on_current_host<R>(read: impl FnOnce(&Clockwork, usize) -> R) -> Option<R> {
    NOTES.with_borrow(|notes| {
        let (clockwork, _) = notes.as_ref()?;
        let clockwork = clockwork.lock();
        let host = clockwork.current?;
        Some(read(&clockwork, host))
    })
}

/// The notes made since the first `seen`, which becomes all of them.
pub(crate) fn new_since(seen: &mut usize) -> Vec<HostNote> {
    NOTES.with_borrow(|notes| {
        let Some((_, notes)) = notes else {
            return Vec::new();
        };
        let new = notes[*seen..].to_vec();
        *seen = notes.len();
        new
    })
}
