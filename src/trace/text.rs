//! The text trace: one line per event, like a program's own log, with physical time first.
//!
//! Runs of routine events (ticks, calls, fires) can be elided to their first and last few, with
//! one line saying how many were hidden and where they bunched up; faults, resumes, the header
//! and the summary are always printed.

use std::collections::VecDeque;
use std::io::{self, Write};

use ticklab_sim::Secs;

use super::text_lines::{plural, write_event};
use super::{Event, TraceSink};

/// Writes text lines to `out`.
#[derive(Debug)]
pub struct TextSink<W: Write> {
    out: W,
    elision: Option<Elision>,
}

/// Keeps the first and last `keep` routine events of each run between other events.
#[derive(Debug)]
struct Elision {
    keep: usize,
    printed_in_run: usize,
    /// The latest events of the run, held back until the run ends; hidden ones are never
    /// formatted.
    tail: VecDeque<Event<'static>>,
    hidden: u64,
    /// What the hidden events are called: one kind's plural, or "events" for a mix.
    hidden_noun: &'static str,
    first_hidden_ns: u64,
    last_hidden_ns: u64,
    /// Hidden events at one physical instant: the current streak and the largest.
    streak: (u64, u64),
    peak: (u64, u64),
}

impl Elision {
    fn new(keep: usize) -> Self {
        Elision {
            keep,
            printed_in_run: 0,
            tail: VecDeque::new(),
            hidden: 0,
            hidden_noun: "events",
            first_hidden_ns: 0,
            last_hidden_ns: 0,
            streak: (0, 0),
            peak: (0, 0),
        }
    }

    fn hide(&mut self, event: &Event<'_>) {
        let t_ns = event.t_ns();
        let noun = plural(event);
        if self.hidden == 0 {
            self.first_hidden_ns = t_ns;
            self.streak = (t_ns, 0);
            self.peak = (t_ns, 0);
            self.hidden_noun = noun;
        } else if self.hidden_noun != noun {
            self.hidden_noun = "events";
        }
        self.hidden += 1;
        self.last_hidden_ns = t_ns;
        self.streak = if self.streak.0 == t_ns {
            (t_ns, self.streak.1 + 1)
        } else {
            (t_ns, 1)
        };
        if self.streak.1 > self.peak.1 {
            self.peak = self.streak;
        }
    }

    /// The line that stands for the hidden events, if any were hidden.
    fn summary_line(&self) -> Option<String> {
        if self.hidden == 0 {
            return None;
        }
        let mut line = format!(
            "{:>17}   ... {} more {} from {} to {}",
            "",
            self.hidden,
            self.hidden_noun,
            Secs(self.first_hidden_ns),
            Secs(self.last_hidden_ns)
        );
        if self.peak.1 > 1 {
            line.push_str(&format!(
                ", {} of them at {}",
                self.peak.1,
                Secs(self.peak.0)
            ));
        }
        Some(line)
    }
}

impl<W: Write> TextSink<W> {
    pub fn new(out: W) -> Self {
        TextSink { out, elision: None }
    }

    /// Keeps only the first and last `keep` routine events of each run between other events.
    pub fn eliding_after(mut self, keep: usize) -> Self {
        self.elision = Some(Elision::new(keep));
        self
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// Prints a routine event now, or holds it back for eliding.
    fn routine(&mut self, event: Event<'static>) -> io::Result<()> {
        let Some(elision) = &mut self.elision else {
            return write_event(&mut self.out, &event);
        };
        if elision.printed_in_run < elision.keep {
            elision.printed_in_run += 1;
            return write_event(&mut self.out, &event);
        }
        elision.tail.push_back(event);
        if elision.tail.len() > elision.keep
            && let Some(hidden) = elision.tail.pop_front()
        {
            elision.hide(&hidden);
        }
        Ok(())
    }

    /// Ends a run of routine events: prints the line for the hidden ones, then the held-back tail.
    fn end_run(&mut self) -> io::Result<()> {
        let Some(elision) = &mut self.elision else {
            return Ok(());
        };
        if let Some(line) = elision.summary_line() {
            writeln!(self.out, "{line}")?;
        }
        for event in elision.tail.drain(..) {
            write_event(&mut self.out, &event)?;
        }
        elision.printed_in_run = 0;
        elision.hidden = 0;
        Ok(())
    }
}

impl<W: Write> TraceSink for TextSink<W> {
    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        match event.routine() {
            Some(routine) => self.routine(routine),
            None => {
                self.end_run()?;
                write_event(&mut self.out, event)
            }
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.end_run()?;
        self.out.flush()
    }
}
