//! An event loop with nothing to do, under each idle strategy: how much CPU it burns, and how
//! late it notices the next event. The system calls' costs come from the scenario's cost profile.

mod arrivals;
mod events;
pub mod keys;
mod model;
mod picture;
pub mod runner;
pub mod spec;

pub use events::IdleWakeEvent;
pub use model::IdleModel;
pub use spec::IdleConfig;

use crate::expect::Metric;

/// What an idle run reports for the whole run.
pub const METRICS: &[Metric] = &[
    Metric::count("events", "events that arrived during the run"),
    crate::invariant::VIOLATIONS,
];

/// What it reports per strategy; `[expect.<strategy>]` can bound these.
pub const STRATEGY_METRICS: &[Metric] = &[
    Metric::count("calls", "idle calls the loop made"),
    Metric::duration(
        "total_time",
        "total_time_ns",
        "until the loop made its `calls`, or the whole run",
    ),
    Metric::duration(
        "time_per_call",
        "time_per_call_ns",
        "time the loop could run and was not handling events, over its idle calls",
    ),
    Metric::count(
        "cpu_percent",
        "CPU the loop used over its total time, in percent",
    ),
    Metric::count("events", "events the loop handled"),
    Metric::duration(
        "p50_wake_latency",
        "p50_wake_latency_ns",
        "median time from an event's arrival to the loop noticing it",
    ),
    Metric::duration(
        "p99_wake_latency",
        "p99_wake_latency_ns",
        "99th percentile of that latency",
    ),
    Metric::duration(
        "max_wake_latency",
        "max_wake_latency_ns",
        "the latest any event was noticed",
    ),
];
