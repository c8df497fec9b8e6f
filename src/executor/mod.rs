//! A tokio-like work-stealing executor bound into the world: runtimes whose workers share the
//! machine's cores, tasks declared as steps, connection pools owned by a runtime's driver.

pub mod arrivals;
mod events;
pub mod keys;
mod model;
mod picture;
pub mod pool;
mod preempt_event;
pub mod runner;
mod runtime_spec;
pub mod spec;
mod stats;
mod tasks;
mod work;

pub use events::{
    BlockingEvent, DriverPollEvent, IoEvent, IoTimeoutEvent, ParkEvent, PollEvent, SpawnEvent,
    StarvationEvent, TaskDoneEvent, TimerEvent, UnfinishedEvent,
};
pub use model::ExecutorModel;
pub use preempt_event::PreemptEvent;

pub use crate::registry::schedulers::SCHEDULER_KEYS;
pub use spec::ExecutorConfig;

use crate::expect::Metric;

/// What an executor run reports for the whole process, and what `[expect]` can bound.
pub const METRICS: &[Metric] = &[
    Metric::count(
        "tasks_started",
        "task instances that arrived or were spawned",
    ),
    Metric::count("tasks_finished", "task instances that ran their last step"),
    Metric::count(
        "tasks_unfinished",
        "task instances still pending at the end",
    ),
    Metric::count("polls", "task polls on every worker"),
    Metric::count("steals", "tasks workers took from another worker's queue"),
    Metric::count("lifo_hits", "tasks run from a worker's LIFO slot"),
    Metric::count("driver_polls", "times a worker polled its runtime's driver"),
    Metric::count(
        "parks",
        "times a worker parked, on the driver or asleep, with nothing to run",
    ),
    Metric::count(
        "starvation_events",
        "times a runnable task waited longer than `starvation_threshold`",
    ),
    Metric::duration(
        "max_runnable_wait",
        "max_runnable_wait_ns",
        "the longest any task waited between its wake and its poll",
    ),
    Metric::count("io_calls", "io steps that completed"),
    Metric::count(
        "cross_runtime_io_calls",
        "io steps served by a connection another runtime owns",
    ),
    Metric::count("connections_opened", "connections the pools opened"),
    Metric::duration(
        "max_send_wait",
        "max_send_wait_ns",
        "the longest an io request waited for its connection task to send it",
    ),
    Metric::duration(
        "max_driver_wait",
        "max_driver_wait_ns",
        "the longest a reply waited for the owning runtime to poll its driver",
    ),
    crate::invariant::VIOLATIONS,
];

/// What an executor run reports per task group; `[expect.<group>]` can bound these.
pub const GROUP_METRICS: &[Metric] = &[
    Metric::count(
        "started",
        "instances of the group that arrived or were spawned",
    ),
    Metric::count("finished", "instances that ran their last step"),
    Metric::duration(
        "p50_latency",
        "p50_latency_ns",
        "median time from an instance's arrival to its last step",
    ),
    Metric::duration(
        "p99_latency",
        "p99_latency_ns",
        "99th percentile of that latency",
    ),
    Metric::duration(
        "max_latency",
        "max_latency_ns",
        "the slowest finished instance",
    ),
    Metric::count("io_calls", "the group's io steps that completed"),
    Metric::duration(
        "p50_io_latency",
        "p50_io_latency_ns",
        "median time from an io step's start to its task running again",
    ),
    Metric::duration(
        "p99_io_latency",
        "p99_io_latency_ns",
        "99th percentile of that io latency",
    ),
    Metric::duration("max_io_latency", "max_io_latency_ns", "the slowest io step"),
    Metric::count(
        "timeouts",
        "io steps whose `timeout` fired before the reply was read: the task went on without it",
    ),
    Metric::count(
        "timers",
        "the group's sleeps that ended, ticks that returned and io timeouts that fired",
    ),
    Metric::duration(
        "p50_timer_lateness",
        "p50_timer_lateness_ns",
        "median `Instant` at which a task ran again after a sleep or tick, minus its deadline",
    ),
    Metric::duration(
        "p99_timer_lateness",
        "p99_timer_lateness_ns",
        "99th percentile of that timer lateness",
    ),
    Metric::duration(
        "max_timer_lateness",
        "max_timer_lateness_ns",
        "the latest sleep or tick",
    ),
];

/// What an executor run reports per worker, in the summary only.
pub const WORKER_METRICS: &[Metric] = &[
    Metric::duration("busy", "busy_ns", "time running task steps on a core"),
    Metric::duration(
        "waiting_for_core",
        "waiting_for_core_ns",
        "time inside a cpu step but waiting for a core, when threads outnumber cores",
    ),
    Metric::duration(
        "idle",
        "idle_ns",
        "time neither busy, waiting for a core, parked nor blocked: suspended, or its thread in block_in_place",
    ),
    Metric::duration(
        "parked",
        "parked_ns",
        "time parked, on the driver or asleep",
    ),
    Metric::duration(
        "blocked",
        "blocked_ns",
        "time its thread was blocked in a `block` step, using no CPU and running no other task",
    ),
    Metric::count("polls", "tasks polled"),
    Metric::count("steals", "tasks taken from other workers"),
    Metric::count("lifo_hits", "tasks run from the LIFO slot"),
    Metric::count("driver_polls", "driver polls"),
];
