//! Where workloads report: the trace, with each event's host and thread named, and the count of
//! broken invariants.

use std::io;
use std::rc::Rc;

use super::event_kind::HostEventKind;
use super::events::HostEvent;
use super::step::HostId;
use crate::trace::{Event, TraceSink};

/// Host names, for the text of events.
#[derive(Debug)]
pub(crate) struct Names<'a>(&'a [String]);

impl Names<'_> {
    pub(crate) fn of(&self, host: HostId) -> &str {
        &self.0[host]
    }
}

/// The trace of a hosts run, and what it counts.
pub(crate) struct Out<'a> {
    pub(super) sink: &'a mut dyn TraceSink,
    names: Rc<[String]>,
    wants_events: bool,
    pub(super) violations: u64,
    /// The thread whose work is being done, on a host with a CPU; events name it.
    pub(super) thread: Option<String>,
    pub(super) error: Option<io::Error>,
}

impl<'a> Out<'a> {
    pub(crate) fn new(sink: &'a mut dyn TraceSink, names: Rc<[String]>) -> Self {
        Out {
            wants_events: sink.wants_events(),
            sink,
            names,
            violations: 0,
            thread: None,
            error: None,
        }
    }
}

impl Out<'_> {
    pub(crate) fn wants_events(&self) -> bool {
        self.wants_events
    }

    /// A host's name, as the trace gives it.
    pub(crate) fn name_of(&self, host: HostId) -> &str {
        &self.names[host]
    }

    /// Traces an event on `host` at physical time `t_ns`, when its clock read `clock_ns`.
    pub(crate) fn event(
        &mut self,
        t_ns: u64,
        host: HostId,
        what: HostEventKind,
        clock_ns: i64,
        detail: impl FnOnce(&Names<'_>) -> String,
        delay_ns: Option<u64>,
    ) {
        if !self.wants_events || self.error.is_some() {
            return;
        }
        let event = HostEvent {
            t_ns,
            host: self.names[host].clone(),
            thread: self.thread.clone(),
            what,
            clock_ns,
            detail: detail(&Names(&self.names)),
            delay_ns,
        };
        if let Err(error) = self.sink.record(&Event::Model(&event)) {
            self.error = Some(error);
        }
    }

    /// Counts a broken invariant, and traces the first few.
    pub(crate) fn violation(&mut self, t_ns: u64, what: impl FnOnce() -> String) {
        self.violations += 1;
        if self.error.is_none()
            && let Err(error) = crate::invariant::report(self.sink, t_ns, self.violations, what())
        {
            self.error = Some(error);
        }
    }

    /// The first error the trace gave, if any.
    pub(crate) fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

impl std::fmt::Debug for Out<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Out")
            .field("violations", &self.violations)
            .finish()
    }
}
