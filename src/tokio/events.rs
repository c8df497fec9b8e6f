//! What a harness run records: the user's notes and marked busy sections, beside the fault edges
//! and resumes every run traces.

use serde::Serialize;
use ticklab_sim::Secs;

use crate::plot::collect::Collected;
use crate::trace::{ModelEvent, SignedSecs, Wall};

/// One `note()` from the code under test: when it happened on every clock.
#[derive(Clone, Debug, Serialize)]
pub struct Note {
    /// Physical time since the run began.
    pub t_ns: u64,
    pub label: &'static str,
    /// What `note_with` added; empty for a plain `note`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// tokio's `Instant::now()`, since the run began.
    pub instant_ns: i64,
    pub wall: Wall,
    /// Physical time since the previous note with this label; none for the first.
    #[serde(skip)]
    pub gap_ns: Option<u64>,
}

impl ModelEvent for Note {
    crate::model_event_basics!("note");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let space = if self.detail.is_empty() { "" } else { " " };
        writeln!(
            out,
            "{:>17} note      {}{space}{}  wall {}  instant {}",
            Secs(self.t_ns),
            self.label,
            self.detail,
            self.wall,
            SignedSecs(self.instant_ns),
        )
    }

    fn plural(&self) -> &'static str {
        "notes"
    }

    /// A note long after the one before it stands out among evenly spaced ones.
    fn delay_ns(&self) -> Option<u64> {
        self.gap_ns
    }

    fn delay_class(&self) -> &str {
        self.label
    }

    fn collect(&self, plot: &mut Collected) {
        plot.clock_reading(self.t_ns, self.instant_ns, self.wall, false);
        plot.count_on_wall(self.t_ns, self.wall.0);
        plot.note(self.label, self.t_ns, self.gap_ns);
    }
}

/// A section the code under test marked with `busy()`: the runtime thread ran it and nothing
/// else.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Busy {
    pub t_ns: u64,
    /// Running time asked for.
    pub busy_ns: u64,
    /// Physical time it took: more than `busy_ns` when a suspend fell inside it, less when the run
    /// ended first.
    pub took_ns: u64,
    pub instant_ns: i64,
    pub wall: Wall,
}

impl ModelEvent for Busy {
    crate::model_event_basics!("busy");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} busy      for {} (took {})  wall {}  instant {}",
            Secs(self.t_ns),
            ticklab_sim::Compact(self.busy_ns as i64),
            ticklab_sim::Compact(self.took_ns as i64),
            self.wall,
            SignedSecs(self.instant_ns),
        )
    }

    fn plural(&self) -> &'static str {
        "busy sections"
    }

    fn collect(&self, plot: &mut Collected) {
        plot.clock_reading(self.t_ns, self.instant_ns, self.wall, false);
        plot.busy_span(self.t_ns, self.took_ns);
    }
}
