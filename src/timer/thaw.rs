//! What runs first when a frozen process runs again, or a sleeping system wakes: the design's
//! timer threads, or the callers whose calls and responses came due meanwhile.
//!
//! Everything that came due while nothing could run is due at the same instant, and which of it
//! runs first decides what a design sees. A timer thread that runs first catches up with its
//! clock before any caller arms a timer. One that runs after the callers finds timers filed
//! while it still lagged behind: a design whose clock catches up only when its thread runs (the
//! Linux wheel's `__forward_timer_base`) files them from where it lagged, on coarser levels.
//!
//! The default is `timers-first`: the timer threads are the threads of a process that sleep the
//! most, and a scheduler that orders by CPU time used, as Linux's does, runs them first when all
//! wake at once; and a kernel runs its own wheel at the tick's interrupt exit, before any task.
//! `callers-first` is the other order, which a process meets when its callers win the CPU, and
//! under which a run excuses a design's lag (see `runner/liveness.rs`).

use crate::scenario::values::Named;

/// The order in which what came due meanwhile runs at a thaw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThawOrder {
    /// Every timer thread whose wait ran out runs its round first, then the calls and responses.
    #[default]
    TimersFirst,
    /// The calls and responses first, then the timer threads.
    CallersFirst,
}

impl Named for ThawOrder {
    const ALL: &'static [Self] = &[ThawOrder::TimersFirst, ThawOrder::CallersFirst];
    const NAMES: &'static [&'static str] = &["timers-first", "callers-first"];
}

impl ThawOrder {
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}
