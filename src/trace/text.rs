//! The text trace: one line per event, like a program's own log, with physical time first.

use std::collections::VecDeque;
use std::io::{self, Write};

use ticklab_sim::{Compact, Secs};

use super::event::SignedSecs;
use super::{Event, StartEvent, Summary, TickEvent, TraceSink};

/// Writes text lines to `out`, optionally eliding the middle of long runs of ticks.
#[derive(Debug)]
pub struct TextSink<W: Write> {
    out: W,
    elision: Option<Elision>,
}

/// Keeps the first and last `keep` ticks of each run of ticks between other events, and sums up
/// the rest in one line that says where the ticks bunched up.
#[derive(Debug)]
struct Elision {
    keep: usize,
    printed_in_run: usize,
    /// The latest ticks of the run, not yet printed: `(t_ns, line)`.
    tail: VecDeque<TickEvent>,
    hidden: u64,
    first_hidden_ns: u64,
    last_hidden_ns: u64,
    /// Hidden ticks at one physical instant: the current streak and the largest.
    streak: (u64, u64),
    peak: (u64, u64),
}

impl Elision {
    fn hide(&mut self, t_ns: u64) {
        if self.hidden == 0 {
            self.first_hidden_ns = t_ns;
            self.streak = (t_ns, 0);
            self.peak = (t_ns, 0);
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

    /// The summary line for the hidden ticks, if any were hidden.
    fn summary_line(&self) -> Option<String> {
        if self.hidden == 0 {
            return None;
        }
        let mut line = format!(
            "{:>17}   ... {} more ticks from {} to {}",
            "",
            self.hidden,
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

    /// Keeps only the first and last `keep` ticks of each run of ticks between other events.
    pub fn eliding_after(mut self, keep: usize) -> Self {
        self.elision = Some(Elision {
            keep,
            printed_in_run: 0,
            tail: VecDeque::new(),
            hidden: 0,
            first_hidden_ns: 0,
            last_hidden_ns: 0,
            streak: (0, 0),
            peak: (0, 0),
        });
        self
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// Prints a tick now, or holds it back for eliding; hidden ticks are never formatted.
    fn tick(&mut self, tick: &TickEvent) -> io::Result<()> {
        let Some(elision) = &mut self.elision else {
            return write_tick(&mut self.out, tick);
        };
        if elision.printed_in_run < elision.keep {
            elision.printed_in_run += 1;
            return write_tick(&mut self.out, tick);
        }
        elision.tail.push_back(*tick);
        if elision.tail.len() > elision.keep
            && let Some(hidden) = elision.tail.pop_front()
        {
            elision.hide(hidden.t_ns);
        }
        Ok(())
    }

    /// Ends a run of ticks: prints the summary of hidden ticks and the held-back tail.
    fn end_tick_run(&mut self) -> io::Result<()> {
        let Some(elision) = &mut self.elision else {
            return Ok(());
        };
        if let Some(line) = elision.summary_line() {
            writeln!(self.out, "{line}")?;
        }
        for tick in elision.tail.drain(..) {
            write_tick(&mut self.out, &tick)?;
        }
        elision.printed_in_run = 0;
        elision.hidden = 0;
        Ok(())
    }

    fn start(&mut self, start: &StartEvent) -> io::Result<()> {
        writeln!(self.out, "# {}", one_line(&start.about))?;
        writeln!(
            self.out,
            "# {} model, {}; seed {}; run for {}; wall clock starts at {}",
            start.model,
            start.source,
            start.seed,
            Compact(start.run_for_ns as i64),
            start.wall
        )?;
        match start.instant_source {
            Some(source) => writeln!(
                self.out,
                "# platform {}: Instant reads {} ({source})",
                start.platform, start.instant_clock
            ),
            None => writeln!(
                self.out,
                "# platform {}: Instant reads {} (overridden by the scenario)",
                start.platform, start.instant_clock
            ),
        }
    }

    fn summary(&mut self, summary: &Summary) -> io::Result<()> {
        writeln!(
            self.out,
            "--- summary of the {} run at {}",
            summary.model,
            Secs(summary.t_ns)
        )?;
        for (metric, value) in &summary.values {
            writeln!(
                self.out,
                "{:<28}{}",
                metric.summary_key,
                metric.show(*value)
            )?;
        }
        for thread in &summary.threads {
            writeln!(
                self.out,
                "{:<28}busy {}, worst second {} from {}",
                format!("thread {}", thread.name),
                Compact(thread.busy_ns as i64),
                Compact(thread.worst_second_busy_ns as i64),
                Secs(thread.worst_second_start_ns)
            )?;
        }
        Ok(())
    }
}

impl<W: Write> TraceSink for TextSink<W> {
    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        let t = Secs(event.t_ns());
        if let Event::Tick(tick) = event {
            return self.tick(tick);
        }
        self.end_tick_run()?;
        match event {
            Event::Start(start) => self.start(start),
            Event::Tick(_) => unreachable!("ticks are handled above"),
            Event::FaultBegin(fault) => writeln!(
                self.out,
                "{t:>17} begin     {} (fault {})",
                fault.what, fault.fault
            ),
            Event::FaultEnd(fault) => writeln!(
                self.out,
                "{t:>17} end       {} (fault {})",
                fault.what, fault.fault
            ),
            Event::WallStep(fault) => writeln!(
                self.out,
                "{t:>17} step      {} (fault {}): wall now {}",
                fault.what, fault.fault, fault.wall
            ),
            Event::Resume(resume) => writeln!(
                self.out,
                "{t:>17} resume    after {} stopped  wall {}  instant {}",
                Compact(resume.stopped_ns as i64),
                resume.wall,
                SignedSecs(resume.instant_ns)
            ),
            Event::Summary(summary) => self.summary(summary),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        self.end_tick_run()?;
        self.out.flush()
    }
}

fn write_tick(out: &mut impl Write, tick: &TickEvent) -> io::Result<()> {
    writeln!(
        out,
        "{:>17} tick      i{} #{}  wall {}  instant {}  deadline {}",
        Secs(tick.t_ns),
        tick.interval,
        tick.seq,
        tick.wall,
        SignedSecs(tick.instant_ns),
        SignedSecs(tick.deadline_ns)
    )
}

/// Text a scenario wrote, made safe for one trace line: line breaks and tabs become spaces, and
/// other control characters are escaped, so a header never spills over or drives the terminal.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => " ".to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multi_line_about_stays_on_its_header_line() {
        assert_eq!(one_line("two\nlines\x1b[31m"), "two lines\\u{1b}[31m");
    }
}
