//! A sink that keeps the first broken invariant of a run, as its text line says it, whatever
//! the sink it wraps keeps: `check` and `sweep` show it beside a failure's counts.

use std::io;

use super::{Event, TraceSink};

/// Passes everything to `inner`, and keeps the first broken invariant.
#[derive(Debug)]
pub struct FirstBroken<S> {
    pub inner: S,
    /// `at <time>: <what broke>`, once something has.
    pub first: Option<String>,
}

impl<S> FirstBroken<S> {
    pub fn new(inner: S) -> Self {
        FirstBroken { inner, first: None }
    }
}

impl<S: TraceSink> TraceSink for FirstBroken<S> {
    fn wants_events(&self) -> bool {
        self.inner.wants_events()
    }

    /// Always: a run that traces nothing else still says what broke first.
    fn wants_invariants(&self) -> bool {
        true
    }

    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        if let Event::Invariant(broken) = event
            && self.first.is_none()
        {
            self.first = Some(format!(
                "at {}: {}",
                ticklab_sim::Secs(broken.t_ns),
                broken.what
            ));
        }
        self.inner.record(event)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.inner.finish()
    }
}
