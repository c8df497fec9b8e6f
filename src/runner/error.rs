//! Why a run was refused or stopped, with the hint a user needs to change it.

use std::fmt;
use std::io;

use crate::memory::{DEFAULT_MAX_MEMORY_BYTES, Size};

#[derive(Debug)]
pub enum RunError {
    /// The run could need more events than allowed: refused before starting.
    TooMuchWork {
        events_bound: u128,
        max_events: u64,
        why: String,
        /// The scenario keys that would bring the work down, as the model names them.
        fewer_by: &'static str,
    },
    /// The model kept working without the run getting anywhere: more steps than its work bound
    /// allows, as a design whose deadline never advances takes. Stopped, not left to hang.
    Runaway {
        design: String,
        at_ns: u64,
        steps: u64,
    },
    /// The model kept waking at one instant: more steps without time moving than its whole run
    /// could take, as a design takes that sleeps until a deadline it has reached without firing
    /// what is due.
    Stuck {
        design: String,
        at_ns: u64,
        steps: u64,
    },
    /// The run could hold more live state than allowed: refused before starting.
    TooMuchMemory {
        bytes_bound: u128,
        max_bytes: u64,
        /// What would fill it, largest first.
        footprint: String,
        fewer_by: &'static str,
    },
    /// The run held more live state than allowed while it ran, though its estimate did not:
    /// stopped there, as a design that never frees what it holds is.
    OutOfMemory {
        design: String,
        at_ns: u64,
        bytes: u128,
        max_bytes: u64,
        footprint: String,
    },
    /// More wakes could wait at once than the event queue holds: refused before starting
    /// (`at_ns` is `None`), or stopped when it happened.
    TooManyWakes {
        design: String,
        at_ns: Option<u64>,
        /// How many could wait, as estimated; 0 once stopped.
        wakes: u128,
    },
    /// The design declared a metric of its own and did not report it.
    UnreportedMetric {
        design: &'static str,
        metric: &'static str,
    },
    /// Writing the trace failed.
    Io(io::Error),
    /// The simulator a model runs inside (turmoil, for hosts) stopped with an error.
    Simulator(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::TooMuchWork {
                events_bound,
                max_events,
                why,
                fewer_by,
            } => write!(
                f,
                "this run could handle up to {events_bound} events ({why}), more than the limit of {max_events}\n  \
                 hint: {fewer_by}, shorten `run_for` or the faults, or raise the limit with --max-events"
            ),
            RunError::Runaway {
                design,
                at_ns,
                steps,
            } => write!(
                f,
                "the {design} design ran away: {steps} steps by {}, more than its work bound allows, \
                 so the run was stopped\n  hint: a design must move its deadlines forward; one that \
                 keeps waking at the same instant, or never reaches a deadline, never ends",
                ticklab_sim::Secs(*at_ns)
            ),
            RunError::Stuck {
                design,
                at_ns,
                steps,
            } => write!(
                f,
                "the {design} design kept waking at {}: {steps} steps at that one instant without \
                 time moving, more than its whole run allows, so the run was stopped\n  hint: a \
                 wait for a deadline that has come ends at once; a design must fire what is due, \
                 or move its deadline past now, before it waits again",
                ticklab_sim::Secs(*at_ns)
            ),
            RunError::TooMuchMemory {
                bytes_bound,
                max_bytes,
                footprint,
                fewer_by,
            } => {
                write!(
                    f,
                    "this run could hold up to {} of live state ({footprint}), more than the \
                     memory limit of {}\n  hint: {fewer_by}, or raise the limit with --max-memory",
                    Size(*bytes_bound),
                    Size(u128::from(*max_bytes))
                )?;
                // A file may only raise the bound above the default, so suggest it only where
                // the default itself is too little.
                if *bytes_bound > u128::from(DEFAULT_MAX_MEMORY_BYTES) {
                    write!(
                        f,
                        ", or with `max_memory = \"{}\"` at the top of the scenario file",
                        round_up_gib(*bytes_bound)
                    )?;
                }
                Ok(())
            }
            RunError::OutOfMemory {
                design,
                at_ns,
                bytes,
                max_bytes,
                footprint,
            } => write!(
                f,
                "the {design} held {} of live state at {} ({footprint}), more than the memory \
                 limit of {}, so the run was stopped\n  hint: a design that keeps what it no \
                 longer needs grows without end; if this run really needs it, raise the limit \
                 with --max-memory or `max_memory` in the scenario file",
                Size(*bytes),
                ticklab_sim::Secs(*at_ns),
                Size(u128::from(*max_bytes))
            ),
            RunError::TooManyWakes {
                design,
                at_ns,
                wakes,
            } => {
                let max = ticklab_sim::MAX_PENDING_WAKES;
                match at_ns {
                    None => write!(
                        f,
                        "the {design} could have up to {wakes} wakes waiting at once (one for \
                         each call, task or message in flight, and each thread), more than the \
                         {max} the event queue holds"
                    )?,
                    Some(at_ns) => write!(
                        f,
                        "the {design} had more than {max} wakes waiting at once at {}, more \
                         than the event queue holds, so the run was stopped",
                        ticklab_sim::Secs(*at_ns)
                    )?,
                }
                write!(
                    f,
                    "\n  hint: fewer calls, tasks or messages in flight at once: shorten \
                     latencies and timeouts, or lower the rate"
                )
            }
            RunError::UnreportedMetric { design, metric } => write!(
                f,
                "the {design} design declares the metric `{metric}` and did not report it at \
                 the end of the run\n  hint: its `metric` method must answer Some(value) for \
                 every name in the `METRICS` its builder declares"
            ),
            RunError::Io(error) => write!(f, "cannot write the trace: {error}"),
            RunError::Simulator(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<io::Error> for RunError {
    fn from(error: io::Error) -> Self {
        RunError::Io(error)
    }
}

/// A `max_memory` value that covers `bytes`: whole GiB, rounded up.
fn round_up_gib(bytes: u128) -> String {
    format!("{}GiB", bytes.div_ceil(1 << 30).max(1))
}
