//! The trace event of a task its scheduler preempted (Go's sysmon, at the end of a 10 ms slice).

use std::sync::Arc;

use serde::Serialize;
use ticklab_sim::{Approx, Secs};

use crate::trace::ModelEvent;

/// A worker's scheduler cut a task's `cpu` step at the end of its time slice, and scheduled it
/// again with the rest of the step still to run.
#[derive(Clone, Debug, Serialize)]
pub struct PreemptEvent {
    pub t_ns: u64,
    pub worker: Arc<str>,
    pub task: Arc<str>,
    /// How long the worker had run since its tick began: the slice it used.
    pub ran_ns: u64,
    /// What is left of the step.
    pub left_ns: u64,
    /// Where the task went, in words.
    pub queued: Arc<str>,
}

impl ModelEvent for PreemptEvent {
    crate::model_event_basics!("preempt");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} preempt   {} on {} after {}, {} left, to {}",
            Secs(self.t_ns),
            self.task,
            self.worker,
            Approx(self.ran_ns),
            Approx(self.left_ns),
            self.queued
        )
    }

    fn plural(&self) -> &'static str {
        "preemptions"
    }
}
