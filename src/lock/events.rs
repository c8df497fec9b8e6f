//! The lock model's events: each acquisition, and each window's waits.

use std::sync::Arc;

use serde::Serialize;
use ticklab_sim::{Approx, Secs};

use crate::trace::ModelEvent;

/// A thread got the process-wide lock.
#[derive(Clone, Debug, Serialize)]
pub struct LockWaitEvent {
    pub t_ns: u64,
    pub thread: Arc<str>,
    /// `write` for a spawn, `read` for a reader.
    pub access: &'static str,
    pub waited_ns: u64,
    /// How long it will hold the lock, on a core: the system call's cost.
    pub hold_ns: u64,
    pub memory_mib: u64,
}

/// The lock waits of one window of the run.
#[derive(Clone, Debug, Serialize)]
pub struct LockWindowEvent {
    pub t_ns: u64,
    pub from_ns: u64,
    pub acquisitions: u64,
    pub p50_wait_ns: u64,
    pub p99_wait_ns: u64,
    pub max_wait_ns: u64,
    /// Mapped memory at the window's end.
    pub memory_mib: u64,
}

impl ModelEvent for LockWaitEvent {
    crate::model_event_basics!("lock-wait");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} lock      {} took it for {} after {}, holds it {} ({} MiB mapped)",
            Secs(self.t_ns),
            self.thread,
            self.access,
            Approx(self.waited_ns),
            Approx(self.hold_ns),
            self.memory_mib
        )
    }

    fn plural(&self) -> &'static str {
        "lock acquisitions"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.waited_ns)
    }

    fn delay_class(&self) -> &str {
        self.access
    }
}

impl ModelEvent for LockWindowEvent {
    crate::model_event_basics!("lock-window");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} window    from {}: {} acquisitions, wait p50 {} p99 {} max {}, {} MiB mapped",
            Secs(self.t_ns),
            Secs(self.from_ns),
            self.acquisitions,
            Approx(self.p50_wait_ns),
            Approx(self.p99_wait_ns),
            Approx(self.max_wait_ns),
            self.memory_mib
        )
    }

    fn routine(&self) -> bool {
        false
    }

    fn plural(&self) -> &'static str {
        "lock windows"
    }
}
