//! `ticklab plot` streams its SVG to where it goes as it is drawn: drawing a long run's picture
//! allocates far less than the picture's size, so the picture is never held whole. Checked
//! against an allocator that counts every byte.
//!
//! One test in its own binary: the allocator counts every thread of the process.

use std::io::{self, Write};

use ticklab::measure::{CountingAllocator, live_bytes, peak_bytes, reset_peak};
use ticklab::plot::{pictured, run_to_draw, write_svg};
use ticklab::run::RunOptions;

#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator;

/// Three days of a 1 s interval, frozen once: its picture is as big as a run's gets (a long run
/// is binned), its burst included.
const THREE_DAYS: &str = include_str!("data/three-days-frozen-once.toml");

/// Counts the bytes written to it, and keeps none.
#[derive(Default)]
struct CountedSink {
    bytes: u64,
}

impl Write for CountedSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Pictures stacked in one drawing: many, so the drawing is far bigger than what drawing any one
/// of its panels takes.
const STACKED: usize = 8;

#[test]
fn a_long_runs_picture_is_written_as_it_is_drawn_not_held_whole() {
    let scenarios = [ticklab::loader::parse("three-days.toml", THREE_DAYS).unwrap()];
    let runs = run_to_draw(&scenarios, &RunOptions::default()).unwrap();
    let stacked = pictured(&scenarios, &runs).repeat(STACKED);
    let mut sink = CountedSink::default();
    let before = live_bytes();
    reset_peak();
    let written = write_svg(&mut sink, &stacked).unwrap();
    let allocated = peak_bytes() - before;
    assert_eq!(written, sink.bytes);
    assert!(written > 500_000, "the drawing is {written} B");
    // Drawing a panel allocates its points and labels, and the writer a buffer of 8 KiB, all
    // given back before the next panel; holding the drawing whole would allocate its size.
    assert!(
        (allocated as u64) * 10 < written,
        "writing {written} B of SVG allocated {allocated} B at most at once"
    );
}
