//! What a service run leaves: how it failed, or its notes, trace, work and warnings.

use std::fmt;

use ticklab_sim::Secs;

use super::notes::HostNote;
use super::record::Record;
use crate::trace::Wall;

/// Why a service run failed, naming the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceError {
    message: String,
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ServiceError {}

pub(crate) fn error(message: impl Into<String>) -> ServiceError {
    ServiceError {
        message: message.into(),
    }
}

/// A finished service run: when it ended, the hosts' notes, and its trace.
#[derive(Debug)]
pub struct ServiceRun {
    pub(crate) ended_at_ns: u64,
    pub(crate) notes: Vec<HostNote>,
    pub(crate) trace: Vec<String>,
    pub(crate) steps: u64,
    pub(crate) warnings: Vec<String>,
    pub(crate) record: Record,
    pub(crate) footprint: crate::memory::Footprint,
}

impl ServiceRun {
    /// Physical time at which the run ended: when its time ran out, or the last client returned.
    pub fn ended_at_ns(&self) -> u64 {
        self.ended_at_ns
    }

    /// How many times the run stepped a host's runtime: its work, which `max_events` bounds.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The most the run held at any of its counts (every 1,024 host steps, sooner after a step
    /// that sends much, and at the end), by what held it: the hosts' runtimes, their sockets
    /// and what waits in them, segments on their way, notes and trace. The memory bound ([`Service::max_memory`]) is checked
    /// against the same count.
    ///
    /// [`Service::max_memory`]: super::Service::max_memory
    pub fn footprint(&self) -> &crate::memory::Footprint {
        &self.footprint
    }

    /// Warnings of code that held the thread in real time, naming the host; also on stderr.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Every note, in the order the hosts made them.
    pub fn notes(&self) -> &[HostNote] {
        &self.notes
    }

    /// The notes of host `host`.
    pub fn notes_on<'a>(&'a self, host: &'a str) -> impl Iterator<Item = &'a HostNote> + 'a {
        self.notes.iter().filter(move |note| note.host == host)
    }

    /// The first note on `host` whose text starts with `prefix`.
    pub fn first_note(&self, host: &str, prefix: &str) -> Option<&HostNote> {
        self.notes
            .iter()
            .find(|note| note.host == host && note.text.starts_with(prefix))
    }

    /// The run drawn as an SVG document: a row per host with its own faults (suspends, freezes
    /// and slews shaded, wall steps as red lines), the partitions and spikes that struck it
    /// along its foot, and a mark per note, coloured by the note's first word (a word that
    /// comes up three times or fewer has a dot on top); then every host's `Instant` and wall
    /// clock against physical time. The same run gives the same bytes.
    pub fn svg(&self) -> String {
        super::picture::Picture {
            record: &self.record,
            notes: &self.notes,
            ended_at_ns: self.ended_at_ns,
        }
        .svg()
    }

    /// Writes [`ServiceRun::svg`] to `path`, atomically. It replaces a plot an earlier service
    /// run wrote there, and refuses to replace any other file.
    pub fn write_svg(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        crate::plot::svg_file::write_drawn(
            path.as_ref(),
            &self.svg(),
            super::picture::DRAWN_HERE,
            "a service run",
        )
    }

    /// The run as text, a line per event: each host's start, fault edges and notes, partitions,
    /// lost datagrams and returned clients, with physical time first. The same service gives
    /// the same bytes.
    pub fn trace(&self) -> String {
        let mut text = String::new();
        for line in &self.trace {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

/// A note's line in the trace.
pub(crate) fn note_line(note: &HostNote) -> String {
    format!(
        "{}  {}  instant {}  wall {}  {}",
        Secs(note.at_ns),
        note.host,
        Secs(note.instant_ns),
        Wall(note.wall_ns),
        note.text
    )
}
