//! What a harness run records: the user's notes and marked busy sections, beside the fault edges
//! and resumes every run traces.

use serde::Serialize;
use ticklab_sim::Secs;

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
}

/// A section the code under test marked with `busy()`, or a `std::thread::sleep` it called: the
/// runtime thread ran it, or slept, and nothing else.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Busy {
    pub t_ns: u64,
    /// Running time the thread was held for: what was asked, unless the run ended first.
    pub busy_ns: u64,
    /// Physical time it took: more than `busy_ns` when a suspend fell inside it, less when the run
    /// ended first.
    pub took_ns: u64,
    pub instant_ns: i64,
    pub wall: Wall,
    /// A sleep through libc (`std::thread::sleep`), not a section marked `busy()`.
    #[serde(skip)]
    pub slept: bool,
}

impl ModelEvent for Busy {
    fn kind(&self) -> &'static str {
        if self.slept { "sleep" } else { "busy" }
    }

    fn t_ns(&self) -> u64 {
        self.t_ns
    }

    fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        crate::trace::write_tagged_json(out, self.kind(), self)
    }

    fn to_owned_event(&self) -> Box<dyn ModelEvent> {
        Box::new(*self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} {:<9} for {} (took {})  wall {}  instant {}",
            Secs(self.t_ns),
            self.kind(),
            ticklab_sim::Compact(self.busy_ns as i64),
            ticklab_sim::Compact(self.took_ns as i64),
            self.wall,
            SignedSecs(self.instant_ns),
        )
    }

    fn plural(&self) -> &'static str {
        "busy sections"
    }
}
