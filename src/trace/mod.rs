//! Traces: every observable of a run as an event, streamed to a sink as it happens.
//!
//! Two formats: text lines that read like a printed log, and JSON lines for tools. A summary-only
//! sink drops per-event lines, for runs too large to print. Nothing is buffered beyond a line.

mod event;
mod first_broken;
mod jsonl;
mod summary;
mod text;
mod text_lines;

use std::io;

pub use event::{
    Event, FaultEvent, InvariantEvent, ModelEvent, ResumeEvent, SignedSecs, StartEvent, Wall,
    write_tagged_json,
};
pub use first_broken::FirstBroken;
pub use jsonl::JsonlSink;
pub use summary::{Section, Summary};
pub use text::TextSink;

/// Where a run's events go.
pub trait TraceSink {
    /// False when only the start and summary are wanted, so runners can skip building per-event
    /// records in their inner loop.
    fn wants_events(&self) -> bool {
        true
    }

    /// Whether broken invariants are wanted: by default, when events are. A sink that wants
    /// them alone (`check` keeps the first) says so, and runners report them to it.
    fn wants_invariants(&self) -> bool {
        self.wants_events()
    }

    fn record(&mut self, event: &Event<'_>) -> io::Result<()>;

    /// Flushes anything pending; called once at the end of a run.
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Passes only the start and the summary through to `inner`.
#[derive(Debug)]
pub struct SummaryOnly<S>(pub S);

impl<S: TraceSink> TraceSink for SummaryOnly<S> {
    fn wants_events(&self) -> bool {
        false
    }

    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        match event {
            Event::Start(_) | Event::Summary(_) => self.0.record(event),
            _ => Ok(()),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.0.finish()
    }
}

/// Discards everything: for `ticklab check` and benchmarks.
#[derive(Debug, Default)]
pub struct NoTrace;

impl TraceSink for NoTrace {
    fn wants_events(&self) -> bool {
        false
    }

    fn record(&mut self, _: &Event<'_>) -> io::Result<()> {
        Ok(())
    }
}

impl<T: TraceSink + ?Sized> TraceSink for Box<T> {
    fn wants_events(&self) -> bool {
        (**self).wants_events()
    }

    fn wants_invariants(&self) -> bool {
        (**self).wants_invariants()
    }

    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        (**self).record(event)
    }

    fn finish(&mut self) -> io::Result<()> {
        (**self).finish()
    }
}
