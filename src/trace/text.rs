//! The text trace: one line per event, like a program's own log, with physical time first.
//!
//! Runs of routine events (ticks, calls, fires) can be elided to their first and last few, with
//! one line saying how many were hidden, where they bunched up and the longest delay among them.
//! Eliding never hides what matters: faults, resumes, BROKEN and STARVED lines, the header and
//! the summary are always printed, and so are the first event after any of them and every event
//! whose delay stands out from those of its kind before it (a fire an hour late among a million
//! on time).

use std::collections::VecDeque;
use std::io::{self, Write};

use ticklab_sim::{Approx, Secs};

use super::event::ModelEvent;
use super::text_lines::write_event;
use super::{Event, TraceSink};
use crate::latencies::Latencies;

/// Writes text lines to `out`.
#[derive(Debug)]
pub struct TextSink<W: Write> {
    out: W,
    elision: Option<Elision>,
}

/// An event whose delay is this many times the [`USUAL_QUANTILE`] of its kind's delays so far,
/// and at least [`OUTLIER_FLOOR_NS`] more, stands out and is printed.
const OUTLIER_FACTOR: u64 = 10;
/// Delays within a millisecond of the usual ones never stand out, however small those are.
const OUTLIER_FLOOR_NS: u64 = 1_000_000;
/// What a usual delay is: all but the rarest one in a thousand. Rarer delays never move it, so
/// each of them stands out (four fires an hour late among 180,000 on time); a pattern more
/// common than that (a lock held across every fork, a burst of 392 late ticks after a resume)
/// soon becomes usual, and shows only its first occurrences.
const USUAL_QUANTILE: f64 = 0.999;
/// At most this many outliers of one kind are printed per second of physical time, so a burst
/// that is rare against a long quiet run (130,000 late ticks after a resume, among 170,000 on
/// time) shows its start, and the elision line sums up the rest with their longest delay.
const OUTLIERS_PER_SECOND: u32 = 10;

/// The delays of one kind of event, and the usual one, recomputed as counts double and then
/// every 1024 events, which keeps the quantile's cost out of the per-event path.
#[derive(Debug)]
struct Delays {
    noun: &'static str,
    class: String,
    histogram: Latencies,
    usual_ns: u64,
    /// The physical second of the latest outlier printed, and how many were printed in it.
    shown_in_second: (u64, u32),
}

impl Delays {
    fn stands_out(&mut self, delay_ns: u64, t_ns: u64) -> bool {
        let usual_ns = self.usual_ns;
        let outlier = delay_ns >= usual_ns.saturating_add(OUTLIER_FLOOR_NS)
            && delay_ns / OUTLIER_FACTOR >= usual_ns;
        self.histogram.record(delay_ns);
        let count = self.histogram.len();
        if count.is_power_of_two() || count.is_multiple_of(1024) {
            self.usual_ns = self.histogram.quantile(USUAL_QUANTILE);
        }
        if !outlier {
            return false;
        }
        let second = t_ns / 1_000_000_000;
        if self.shown_in_second.0 != second {
            self.shown_in_second = (second, 0);
        }
        self.shown_in_second.1 += 1;
        self.shown_in_second.1 <= OUTLIERS_PER_SECOND
    }
}

/// Keeps the first and last `keep` routine events of each run between other events.
#[derive(Debug)]
struct Elision {
    keep: usize,
    /// The delays of each kind of event: its noun and [`Event::delay_class`].
    delays: Vec<Delays>,
    printed_in_run: usize,
    /// The latest events of the run, held back until the run ends; hidden ones are never
    /// formatted.
    tail: VecDeque<Box<dyn ModelEvent>>,
    hidden: u64,
    /// What the hidden events are called: one kind's plural, or "events" for a mix.
    hidden_noun: &'static str,
    first_hidden_ns: u64,
    last_hidden_ns: u64,
    /// Hidden events at one physical instant: the current streak and the largest.
    streak: (u64, u64),
    peak: (u64, u64),
    /// The longest delay among the hidden events.
    longest_hidden_delay_ns: u64,
}

impl Elision {
    fn new(keep: usize) -> Self {
        Elision {
            keep,
            delays: Vec::new(),
            printed_in_run: 0,
            tail: VecDeque::new(),
            hidden: 0,
            hidden_noun: "events",
            first_hidden_ns: 0,
            last_hidden_ns: 0,
            streak: (0, 0),
            peak: (0, 0),
            longest_hidden_delay_ns: 0,
        }
    }

    /// Whether `event`'s delay stands out from the usual ones of its kind, so that it is printed.
    fn stands_out(&mut self, event: &dyn ModelEvent) -> bool {
        let Some(delay_ns) = event.delay_ns() else {
            return false;
        };
        let noun = event.plural();
        let class = event.delay_class();
        let index = match self
            .delays
            .iter()
            .position(|delays| delays.noun == noun && delays.class == class)
        {
            Some(index) => index,
            None => {
                self.delays.push(Delays {
                    noun,
                    class: class.to_string(),
                    histogram: Latencies::new(),
                    usual_ns: 0,
                    shown_in_second: (0, 0),
                });
                self.delays.len() - 1
            }
        };
        self.delays[index].stands_out(delay_ns, event.t_ns())
    }

    fn hide(&mut self, event: &dyn ModelEvent) {
        let t_ns = event.t_ns();
        let noun = event.plural();
        if self.hidden == 0 {
            self.first_hidden_ns = t_ns;
            self.last_hidden_ns = t_ns;
            self.streak = (t_ns, 0);
            self.peak = (t_ns, 0);
            self.hidden_noun = noun;
            self.longest_hidden_delay_ns = 0;
        } else if self.hidden_noun != noun {
            self.hidden_noun = "events";
        }
        self.hidden += 1;
        // Events are mostly in time order, but a timer round stamps each fire with the end of
        // its callback, ahead of events that come after the round: keep the span's both ends.
        self.first_hidden_ns = self.first_hidden_ns.min(t_ns);
        self.last_hidden_ns = self.last_hidden_ns.max(t_ns);
        self.longest_hidden_delay_ns = self
            .longest_hidden_delay_ns
            .max(event.delay_ns().unwrap_or(0));
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
        if self.longest_hidden_delay_ns > 0 {
            line.push_str(&format!(
                ", the longest delay {}",
                Approx(self.longest_hidden_delay_ns)
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
    fn routine(&mut self, event: &dyn ModelEvent) -> io::Result<()> {
        let Some(elision) = &mut self.elision else {
            return event.write_text(&mut self.out);
        };
        if elision.stands_out(event) {
            // Printed in its place, with the held-back events before it; a new run starts.
            self.end_run()?;
            if let Some(elision) = &mut self.elision {
                elision.printed_in_run = 1;
            }
            return event.write_text(&mut self.out);
        }
        // The first event after a fault or any other printed line is always kept.
        if elision.printed_in_run < elision.keep.max(1) {
            elision.printed_in_run += 1;
            return event.write_text(&mut self.out);
        }
        elision.tail.push_back(event.to_owned_event());
        if elision.tail.len() > elision.keep
            && let Some(hidden) = elision.tail.pop_front()
        {
            elision.hide(&*hidden);
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
            event.write_text(&mut self.out)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timer::events::FireEvent;
    use crate::trace::{FaultEvent, InvariantEvent, Wall};

    /// The events of a made-up trace, owned.
    enum Item {
        Fire(FireEvent),
        Step(FaultEvent),
        Broken(InvariantEvent),
    }

    fn fire(t_ms: u64, lateness_ns: i64) -> Item {
        Item::Fire(FireEvent {
            t_ns: t_ms * 1_000_000,
            call: t_ms as u32,
            thread: 0,
            lateness_ns,
        })
    }

    fn step(t_ms: u64) -> Item {
        Item::Step(FaultEvent {
            t_ns: t_ms * 1_000_000,
            fault: 0,
            kind: "wall-step",
            what: "wall-step by -1h".to_string(),
            host: None,
            instant_ns: 0,
            wall: Wall(0),
        })
    }

    fn elided(keep: usize, events: &[Item]) -> Vec<String> {
        let mut sink = TextSink::new(Vec::new()).eliding_after(keep);
        for item in events {
            let event = match item {
                Item::Fire(fire) => Event::Model(fire),
                Item::Step(step) => Event::WallStep(step),
                Item::Broken(broken) => Event::Invariant(broken),
            };
            sink.record(&event).unwrap();
        }
        sink.finish().unwrap();
        String::from_utf8(sink.into_inner())
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn fires_an_hour_late_among_thousands_on_time_are_all_printed() {
        let hour_ns = 3_600_000_000_000;
        let mut events = vec![step(0)];
        for t_ms in 1..=50_000 {
            let late = [10_000, 10_003, 10_004, 25_000].contains(&t_ms);
            events.push(fire(t_ms, if late { hour_ns } else { 60_000 }));
        }
        let lines = elided(2, &events);
        let hour_late: Vec<&String> = lines
            .iter()
            .filter(|line| line.ends_with("late by 3600s"))
            .collect();
        assert_eq!(hour_late.len(), 4, "{lines:#?}");
        assert!(
            lines.len() < 40,
            "the ordinary fires stay hidden: {lines:#?}"
        );
        let hidden: Vec<&String> = lines
            .iter()
            .filter(|line| line.contains("more fires"))
            .collect();
        assert!(
            hidden
                .iter()
                .all(|line| line.ends_with("the longest delay 60us")),
            "{hidden:#?}"
        );
    }

    #[test]
    fn a_burst_of_late_events_prints_only_its_first_few() {
        let mut events = vec![step(0)];
        // 392 fires in a row, each a second less late than the one before.
        events.extend((0..392).map(|i| fire(1, (392 - i) * 1_000_000_000)));
        events.extend((2..100).map(|t_ms| fire(t_ms, 0)));
        let lines = elided(2, &events);
        let printed = lines.iter().filter(|line| line.contains(" fire ")).count();
        assert!((3..=12).contains(&printed), "{lines:#?}");
        assert!(
            lines.iter().any(|line| line.contains("the longest delay")),
            "{lines:#?}"
        );
    }

    #[test]
    fn a_delay_that_recurs_often_stops_standing_out() {
        // Every sixth fire waits 7 ms behind a slow callback: a pattern, not an outlier.
        let events: Vec<Item> = (1..=6_000)
            .map(|t_ms| fire(t_ms, if t_ms % 6 == 0 { 7_000_000 } else { 0 }))
            .collect();
        let lines = elided(2, &events);
        let printed = lines
            .iter()
            .filter(|line| line.ends_with("late by 7ms"))
            .count();
        assert!((1..=3).contains(&printed), "{lines:#?}");
    }

    #[test]
    fn the_first_event_after_a_fault_or_a_broken_line_is_kept_even_when_eliding_all() {
        let broken = Item::Broken(InvariantEvent {
            t_ns: 50_000_000,
            what: "timer of call #1 fired twice".to_string(),
        });
        let mut events: Vec<Item> = (1..40).map(|t_ms| fire(t_ms, 0)).collect();
        events.insert(10, step(10));
        events.insert(30, broken);
        let lines = elided(0, &events);
        let after = |marker: &str| {
            let at = lines.iter().position(|line| line.contains(marker)).unwrap();
            lines[at + 1].clone()
        };
        assert!(after("step").contains(" fire "), "{lines:#?}");
        assert!(after("BROKEN").contains(" fire "), "{lines:#?}");
        assert!(lines[0].contains(" fire "), "{lines:#?}");
    }
}
