//! The events of a trace. Every event has a physical time, `t_ns`; the JSON form adds
//! `"event": "<kind>"`.
//!
//! The events every run shares (its start, faults, resumes, broken invariants and summary) are
//! here; each model's own events (ticks, fires, polls...) live in the model's folder and reach a
//! sink as [`Event::Model`], through the [`ModelEvent`] trait: how the event reads as a line of
//! text and as JSON, and whether eliding may hide it. What a picture takes from it is the kind's
//! own (`plot::collect::KindPlot`, in the kind's folder).

use std::any::Any;
use std::fmt;
use std::io::{self, Write};

use jiff::Timestamp;
use serde::{Serialize, Serializer};

use super::Summary;

/// One event of a run.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    Start(&'a StartEvent),
    Invariant(&'a InvariantEvent),
    FaultBegin(&'a FaultEvent),
    FaultEnd(&'a FaultEvent),
    WallStep(&'a FaultEvent),
    Resume(&'a ResumeEvent),
    Summary(&'a Summary),
    /// An event of the model's own: a tick, a fire, a poll.
    Model(&'a dyn ModelEvent),
}

/// An event of one model's own, as traces, eliding and plots see it.
pub trait ModelEvent: fmt::Debug + Send + Sync {
    /// Its name: `"event"` in JSON, such as `tick`.
    fn kind(&self) -> &'static str;

    fn t_ns(&self) -> u64;

    /// Its line in a text trace, physical time first, ending in a newline.
    fn write_text(&self, out: &mut dyn Write) -> io::Result<()>;

    /// Its JSON object, `"event"` first, without a newline.
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()>;

    /// Routine events repeat by the thousand (ticks, calls, polls): a text trace may elide them.
    /// A report of something gone wrong (a starved task) is never hidden.
    fn routine(&self) -> bool {
        true
    }

    /// What a run of them is called in an elision line: `ticks`.
    fn plural(&self) -> &'static str;

    /// How long the event came after it was due or wanted, for events that have such a delay: a
    /// tick's or fire's lateness, a poll's or lock's wait, a task's or wake's latency. Eliding
    /// keeps the events whose delay stands out.
    fn delay_ns(&self) -> Option<u64> {
        None
    }

    /// What its delay is compared with: events of its kind and of the same part (a task group,
    /// a lock access, an idle strategy).
    fn delay_class(&self) -> &str {
        ""
    }

    /// A copy of its own, for a text trace that holds events back while eliding.
    fn to_owned_event(&self) -> Box<dyn ModelEvent>;

    /// The event as its own type, for a test or a tool that reads one kind.
    fn as_any(&self) -> &dyn Any;
}

/// Writes `value` as a JSON object whose `"event"` comes first.
pub fn write_tagged_json<T: Serialize>(
    out: &mut dyn Write,
    event: &'static str,
    value: &T,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct Tagged<'a, T> {
        event: &'static str,
        #[serde(flatten)]
        inner: &'a T,
    }
    serde_json::to_writer(
        out,
        &Tagged {
            event,
            inner: value,
        },
    )
    .map_err(io::Error::from)
}

/// Implements the parts of [`ModelEvent`] that every event writes the same way, for an event
/// type that is `Clone + Serialize` and has a `t_ns` field.
#[macro_export]
macro_rules! model_event_basics {
    ($kind:literal) => {
        fn kind(&self) -> &'static str {
            $kind
        }

        fn t_ns(&self) -> u64 {
            self.t_ns
        }

        fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
            $crate::trace::write_tagged_json(out, $kind, self)
        }

        fn to_owned_event(&self) -> Box<dyn $crate::trace::ModelEvent> {
            Box::new(self.clone())
        }

        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
}

impl Event<'_> {
    /// The model's event, if it is one eliding may hide.
    pub fn routine(&self) -> Option<&dyn ModelEvent> {
        match self {
            Event::Model(event) if event.routine() => Some(*event),
            _ => None,
        }
    }

    pub fn t_ns(&self) -> u64 {
        match self {
            Event::Start(start) => start.t_ns,
            Event::Invariant(invariant) => invariant.t_ns,
            Event::FaultBegin(fault) | Event::FaultEnd(fault) | Event::WallStep(fault) => {
                fault.t_ns
            }
            Event::Resume(resume) => resume.t_ns,
            Event::Summary(summary) => summary.t_ns,
            Event::Model(event) => event.t_ns(),
        }
    }

    /// Writes the event as one JSON object, `"event"` first.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Event::Start(start) => write_tagged_json(out, "start", *start),
            Event::Invariant(invariant) => write_tagged_json(out, "invariant", *invariant),
            Event::FaultBegin(fault) => write_tagged_json(out, "fault-begin", *fault),
            Event::FaultEnd(fault) => write_tagged_json(out, "fault-end", *fault),
            Event::WallStep(fault) => write_tagged_json(out, "wall-step", *fault),
            Event::Resume(resume) => write_tagged_json(out, "resume", *resume),
            Event::Summary(summary) => write_tagged_json(out, "summary", *summary),
            Event::Model(event) => event.write_json(out),
        }
    }
}

/// What the run is: the trace's header.
#[derive(Clone, Debug, Serialize)]
pub struct StartEvent {
    pub t_ns: u64,
    pub about: String,
    pub source: String,
    pub model: &'static str,
    pub platform: &'static str,
    pub instant_clock: &'static str,
    /// The OS primitive the platform's `Instant` reads, when the scenario does not override it.
    pub instant_source: Option<&'static str>,
    pub seed: u64,
    pub run_for_ns: u64,
    pub wall: Wall,
    /// The cost profile system calls are charged from, for models that use one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// What else a reader needs to read the trace right, one line each, as the model says it
    /// (for hosts on turmoil: how its tick rounds latencies).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A model broke one of its invariants.
#[derive(Clone, Debug, Serialize)]
pub struct InvariantEvent {
    pub t_ns: u64,
    pub what: String,
}

/// A fault began, ended, or (for a wall step) happened.
#[derive(Clone, Debug, Serialize)]
pub struct FaultEvent {
    pub t_ns: u64,
    /// Position of the fault in the scenario file, counting from 0. A hosts run counts every
    /// host's faults in host order, then its partitions, then its latency spikes.
    pub fault: usize,
    pub kind: &'static str,
    pub what: String,
    /// The host whose machine the fault struck, in a run of several; its clocks are the ones
    /// `instant_ns` and `wall` read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub instant_ns: i64,
    pub wall: Wall,
}

/// The process can run again after a suspend.
#[derive(Clone, Debug, Serialize)]
pub struct ResumeEvent {
    pub t_ns: u64,
    /// The host that resumed, in a run of several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// How long it could not run.
    pub stopped_ns: u64,
    pub instant_ns: i64,
    pub wall: Wall,
}

/// A wall-clock reading, ns since the Unix epoch; shown as RFC 3339 with nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wall(pub i64);

impl fmt::Display for Wall {
    /// Traces print a wall reading per event and most share their second with the one before, so
    /// the date and time of day are formatted once per second and reused.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        thread_local! {
            static LAST_SECOND: std::cell::RefCell<(i64, String)> = const { std::cell::RefCell::new((i64::MIN, String::new())) };
        }
        let second = self.0.div_euclid(1_000_000_000);
        let nanos = self.0.rem_euclid(1_000_000_000);
        LAST_SECOND.with_borrow_mut(|(cached_second, prefix)| {
            if *cached_second != second {
                let Ok(timestamp) = Timestamp::from_second(second) else {
                    return write!(f, "{}ns", self.0);
                };
                // Whole seconds print as `2020-03-12T14:08:19Z`; the `Z` goes after the fraction.
                *prefix = format!("{timestamp:.0}").trim_end_matches('Z').to_string();
                *cached_second = second;
            }
            write!(f, "{prefix}.{nanos:09}Z")
        })
    }
}

impl Serialize for Wall {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_readings_print_as_rfc3339_with_nanoseconds_either_side_of_1970() {
        for (ns, text) in [
            (1_584_022_098_000_000_001, "2020-03-12T14:08:18.000000001Z"),
            (1_584_022_098_999_999_999, "2020-03-12T14:08:18.999999999Z"),
            (1_584_022_099_000_000_000, "2020-03-12T14:08:19.000000000Z"),
            (-1, "1969-12-31T23:59:59.999999999Z"),
        ] {
            assert_eq!(Wall(ns).to_string(), text);
            let reference = Timestamp::from_nanosecond(i128::from(ns)).unwrap();
            assert_eq!(Wall(ns).to_string(), format!("{reference:.9}"));
        }
    }
}

/// Signed nanoseconds as seconds with nine fraction digits, for `Instant` readings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedSecs(pub i64);

impl fmt::Display for SignedSecs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        write!(f, "{sign}{}", ticklab_sim::Secs(self.0.unsigned_abs()))
    }
}
