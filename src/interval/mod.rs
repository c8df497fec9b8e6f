//! The Interval family bound into the world: scenario keys, the runner and its summary.

pub(crate) mod events;
mod invariants;
pub mod keys;
mod model;
mod picture;
pub mod runner;
pub mod spec;
mod stats;

use crate::expect::{Metric, Unit};
pub use events::TickEvent;
pub use model::IntervalModel;
pub use spec::{IntervalConfig, Period, Phase};

/// What an interval run reports, and what `[expect]` can bound.
pub const METRICS: &[Metric] = &[
    Metric {
        name: "ticks",
        summary_key: "ticks",
        unit: Unit::Count,
        about: "ticks of all intervals over the run",
    },
    Metric {
        name: "ticks_after_resume",
        summary_key: "max_ticks_after_resume",
        unit: Unit::Count,
        about: "most ticks in the first second after any resume",
    },
    Metric {
        name: "ticks_per_wall_second",
        summary_key: "max_ticks_per_wall_second",
        unit: Unit::Count,
        about: "most ticks stamped with one wall-clock second",
    },
    Metric {
        name: "cpu_busy_in_worst_second",
        summary_key: "cpu_busy_ns_worst_second",
        unit: Unit::Duration,
        about: "CPU time the runtime thread spent in its busiest second",
    },
    Metric {
        name: "lateness",
        summary_key: "max_lateness_ns",
        unit: Unit::Duration,
        about: "worst tick lateness: Instant at the tick minus its deadline",
    },
    Metric::time(
        "first_tick_at",
        "first_tick_at_ns",
        "physical time of the first tick",
    ),
    Metric::time(
        "last_tick_at",
        "last_tick_at_ns",
        "physical time of the last tick",
    ),
    Metric::time(
        "worst_tick_at",
        "worst_tick_at_ns",
        "physical time of the latest tick after its deadline: the one `max_lateness` measures (the first, if several)",
    ),
    Metric {
        name: "longest_gap",
        summary_key: "longest_gap_ns",
        unit: Unit::Duration,
        about: "longest physical time between two ticks of one interval",
    },
    Metric {
        name: "resumes",
        summary_key: "resumes",
        unit: Unit::Count,
        about: "times the process could run again after it was stopped",
    },
    crate::invariant::VIOLATIONS,
];
