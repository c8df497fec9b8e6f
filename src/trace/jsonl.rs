//! The JSON-lines trace: one object per event, `"event"` and `"t_ns"` first.

use std::io::{self, Write};

use super::{Event, TraceSink};

#[derive(Debug)]
pub struct JsonlSink<W: Write> {
    out: W,
}

impl<W: Write> JsonlSink<W> {
    pub fn new(out: W) -> Self {
        JsonlSink { out }
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> TraceSink for JsonlSink<W> {
    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        event.write_json(&mut self.out)?;
        self.out.write_all(b"\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
