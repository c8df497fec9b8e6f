//! The text trace: one line per event, like a program's own log, with physical time first.

use std::io::{self, Write};

use ticklab_sim::{Compact, Secs};

use super::event::SignedSecs;
use super::{Event, StartEvent, Summary, TraceSink};

/// Writes text lines to `out`, optionally eliding long runs of ticks.
#[derive(Debug)]
pub struct TextSink<W: Write> {
    out: W,
    /// Print at most this many ticks in a row; the rest become one "… more ticks" line.
    tick_run_limit: Option<u64>,
    ticks_in_run: u64,
    elided: u64,
    last_elided_t_ns: u64,
}

impl<W: Write> TextSink<W> {
    pub fn new(out: W) -> Self {
        TextSink {
            out,
            tick_run_limit: None,
            ticks_in_run: 0,
            elided: 0,
            last_elided_t_ns: 0,
        }
    }

    /// Keeps only the first `limit` ticks of each run of ticks between other events.
    pub fn eliding_after(mut self, limit: u64) -> Self {
        self.tick_run_limit = Some(limit);
        self
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    fn flush_elided(&mut self) -> io::Result<()> {
        if self.elided > 0 {
            writeln!(
                self.out,
                "{:>17}   ... {} more ticks, the last at {}",
                "",
                self.elided,
                Secs(self.last_elided_t_ns)
            )?;
            self.elided = 0;
        }
        self.ticks_in_run = 0;
        Ok(())
    }

    fn start(&mut self, start: &StartEvent) -> io::Result<()> {
        writeln!(self.out, "# {}", start.about)?;
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
        if let Event::Tick(tick) = event {
            self.ticks_in_run += 1;
            if self
                .tick_run_limit
                .is_some_and(|limit| self.ticks_in_run > limit)
            {
                self.elided += 1;
                self.last_elided_t_ns = tick.t_ns;
                return Ok(());
            }
        } else {
            self.flush_elided()?;
        }
        let t = Secs(event.t_ns());
        match event {
            Event::Start(start) => self.start(start),
            Event::Tick(tick) => writeln!(
                self.out,
                "{t:>17} tick      i{} #{}  wall {}  instant {}  deadline {}",
                tick.interval,
                tick.seq,
                tick.wall,
                SignedSecs(tick.instant_ns),
                SignedSecs(tick.deadline_ns)
            ),
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
        self.flush_elided()?;
        self.out.flush()
    }
}
