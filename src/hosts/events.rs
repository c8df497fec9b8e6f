//! The events of a hosts run: one type, whose kind says what happened on which host.

use serde::Serialize;
use ticklab_sim::{Approx, Secs};

use crate::trace::ModelEvent;

use super::event_kind::HostEventKind;

/// One event on one host.
#[derive(Clone, Debug, Serialize)]
pub struct HostEvent {
    pub t_ns: u64,
    pub host: String,
    /// The workload thread that did it, on a host with a `[machine]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    pub what: HostEventKind,
    /// What the host's clock read, on the clock the workload measures time on.
    pub clock_ns: i64,
    pub detail: String,
    /// How late or how long, for the kinds that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ns: Option<u64>,
}

impl ModelEvent for HostEvent {
    fn kind(&self) -> &'static str {
        self.what.name()
    }

    fn t_ns(&self) -> u64 {
        self.t_ns
    }

    fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        crate::trace::write_tagged_json(out, self.what.name(), self)
    }

    fn to_owned_event(&self) -> Box<dyn ModelEvent> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let delay = match (self.what, self.delay_ns) {
            (_, None) => String::new(),
            (HostEventKind::Timeout, Some(late_ns)) => {
                format!(" ({} past its deadline)", Approx(late_ns))
            }
            (_, Some(delay_ns)) => format!(" ({})", Approx(delay_ns)),
        };
        let thread = match &self.thread {
            Some(thread) => format!("[{thread}] "),
            None => String::new(),
        };
        writeln!(
            out,
            "{:>17} {:<14} {:<10} {thread}{}{delay}",
            Secs(self.t_ns),
            self.what.name(),
            self.host,
            self.detail,
        )
    }

    fn routine(&self) -> bool {
        self.what.is_routine()
    }

    fn plural(&self) -> &'static str {
        self.what.plural()
    }

    fn delay_ns(&self) -> Option<u64> {
        self.delay_ns
    }

    fn delay_class(&self) -> &str {
        self.what.name()
    }
}
