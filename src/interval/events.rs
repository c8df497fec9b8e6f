//! The interval model's events: its ticks.

use serde::Serialize;
use ticklab_sim::Secs;

use crate::trace::{ModelEvent, SignedSecs, Wall};

/// An interval yielded a tick.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct TickEvent {
    pub t_ns: u64,
    pub interval: u32,
    /// 1 for an interval's first tick, then counting up, like a program's own log counter.
    pub seq: u64,
    /// `Instant::now()` when the tick was handled.
    pub instant_ns: i64,
    /// The instant the tick was scheduled for, which `tick()` returns.
    pub deadline_ns: i64,
    pub wall: Wall,
}

impl ModelEvent for TickEvent {
    crate::model_event_basics!("tick");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} tick      i{} #{}  wall {}  instant {}  deadline {}",
            Secs(self.t_ns),
            self.interval,
            self.seq,
            self.wall,
            SignedSecs(self.instant_ns),
            SignedSecs(self.deadline_ns)
        )
    }

    fn plural(&self) -> &'static str {
        "ticks"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.instant_ns.saturating_sub(self.deadline_ns).max(0) as u64)
    }
}
