//! Timer threads under an RPC-style load: clients arm a timeout per call and cancel it when the
//! response arrives; the design's timer thread(s) run the timeouts that fire.

mod design_keys;
pub(crate) mod designs;
pub(crate) mod events;
pub mod keys;
mod model;
mod picture;
pub mod runner;
pub mod spec;
mod stats;
pub mod thaw;
pub mod threads;

pub(crate) use events::Bytes;
pub use events::{CallEvent, FireEvent, MemoryEvent, ResponseEvent, RoundEvent};
pub use model::TimerModel;
pub use spec::TimerConfig;

use crate::expect::{Metric, Unit};

/// What a timer run reports, and what `[expect]` can bound.
pub const METRICS: &[Metric] = &[
    Metric::count("calls", "calls the clients started"),
    Metric::count(
        "timeouts",
        "timers that fired: calls whose response came too late",
    ),
    Metric::count("cancels", "timers a response cancelled in time"),
    Metric::count(
        "late_responses",
        "responses that found their timer already fired",
    ),
    Metric::count("schedule_failures", "calls that found no free timer slot"),
    Metric::count("wakeups", "rounds the timer threads ran"),
    Metric::count(
        "wakeups_per_second",
        "rounds per second of the run, all timer threads together",
    ),
    Metric::count(
        "global_lock_schedules",
        "schedules that took the lock every scheduler shares",
    ),
    Metric::count(
        "waking_schedules",
        "schedules that had to wake a timer thread",
    ),
    Metric {
        name: "p50_lateness",
        summary_key: "p50_lateness_ns",
        unit: Unit::Duration,
        about: "median physical time a timer fired after its call's timeout",
    },
    Metric {
        name: "p99_lateness",
        summary_key: "p99_lateness_ns",
        unit: Unit::Duration,
        about: "99th percentile of that lateness",
    },
    Metric {
        name: "max_lateness",
        summary_key: "max_lateness_ns",
        unit: Unit::Duration,
        about: "the latest any timer fired",
    },
    Metric::count(
        "postponed",
        "timers that fired later than their timeout by more than their design's promise and the \
         machine's delay for a timed wait (its timer resolution and slack, or `sleep_overshoot`)",
    ),
    Metric::time(
        "first_fire_at",
        "first_fire_at_ns",
        "physical time of the first fire",
    ),
    Metric::time(
        "last_fire_at",
        "last_fire_at_ns",
        "physical time of the last fire",
    ),
    Metric::time(
        "worst_fire_at",
        "worst_fire_at_ns",
        "physical time of the latest fire after its timeout: the one `max_lateness` measures \
         (the first, if several)",
    ),
    Metric::count(
        "early_fires",
        "timers that fired before their call's timeout had passed",
    ),
    Metric::count(
        "lost",
        "timers the caller never saw fire within their promise and the machine's delay: those \
         the design missed (`missed`), and those still waiting at the end, as a clock stepped \
         back leaves wall-clock deadlines; a timer held back by its own busy, starved or frozen \
         thread and then cancelled is not counted",
    ),
    Metric::count(
        "missed",
        "timers the design had not fired by their deadline, its promise and the machine's delay, \
         with every timer thread free and asleep past them: an invariant",
    ),
    Metric::count(
        "duplicates",
        "timers that fired twice, or after their call was cancelled",
    ),
    Metric {
        name: "cpu_busy_in_worst_second",
        summary_key: "cpu_busy_ns_worst_second",
        unit: Unit::Duration,
        about: "most CPU time of any timer thread in one second",
    },
    Metric::count(
        "live_slots",
        "timer slots in use at the end: scheduled timers, and cancelled or fired ones the design \
         has not freed yet",
    ),
    Metric::count(
        "peak_live_slots",
        "the most timer slots in use at once, read before every timer-thread round (the only \
         place the built-in designs free slots), every memory sample, and at the end",
    ),
    Metric::count(
        "peak_live_bytes",
        "`peak_live_slots` times `task_bytes` (64 by default, brpc's cache-line Task)",
    ),
    crate::invariant::VIOLATIONS,
];
