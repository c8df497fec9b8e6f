//! The idle model's events: each time a loop notices events.

use serde::Serialize;
use ticklab_sim::{Approx, Secs};

use crate::trace::ModelEvent;

/// An idle loop noticed events and handles them.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct IdleWakeEvent {
    pub t_ns: u64,
    pub strategy: &'static str,
    pub events: u64,
    /// From the first of them arriving to now.
    pub latency_ns: u64,
    /// Idle calls the loop made since it last handled events.
    pub idle_calls: u64,
}

impl ModelEvent for IdleWakeEvent {
    crate::model_event_basics!("idle-wake");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} wake      {} noticed {} event(s) {} after the first arrived, after {} idle calls",
            Secs(self.t_ns),
            self.strategy,
            self.events,
            Approx(self.latency_ns),
            self.idle_calls
        )
    }

    fn plural(&self) -> &'static str {
        "wakes"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.latency_ns)
    }

    fn delay_class(&self) -> &str {
        self.strategy
    }
}
