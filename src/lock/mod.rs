//! A process-wide lock under spawning threads, as Go's `syscall.ForkLock` is: each spawn holds
//! the lock for as long as the system call takes, and `fork`'s cost grows with the parent's mapped
//! memory while `vfork`'s stays flat.

mod events;
pub mod keys;
mod model;
mod picture;
pub mod runner;
pub mod spec;
mod stats;

pub use events::{LockWaitEvent, LockWindowEvent};
pub use model::LockModel;
pub use spec::{LockConfig, SpawnKind};

use crate::expect::Metric;

/// What a lock run reports, and what `[expect]` can bound.
pub const METRICS: &[Metric] = &[
    Metric::count("spawns", "commands started, each under the lock"),
    Metric::count("reads", "read-lock acquisitions"),
    Metric::duration(
        "p50_wait",
        "p50_wait_ns",
        "median wait for the lock, every acquisition",
    ),
    Metric::duration("p99_wait", "p99_wait_ns", "99th percentile of that wait"),
    Metric::duration(
        "max_wait",
        "max_wait_ns",
        "the longest wait, including threads still waiting at the end",
    ),
    Metric::duration(
        "p99_wait_first_window",
        "p99_wait_first_window_ns",
        "p99 wait in the first window of the run",
    ),
    Metric::duration(
        "p99_wait_last_window",
        "p99_wait_last_window_ns",
        "p99 wait in the last window of the run",
    ),
    Metric::count(
        "waiting_at_end",
        "threads still waiting for the lock at the end",
    ),
    Metric::duration(
        "p50_spawn_cost",
        "p50_spawn_cost_ns",
        "median time one spawn held the lock, on a core",
    ),
    Metric::duration(
        "max_spawn_cost",
        "max_spawn_cost_ns",
        "the most costly spawn",
    ),
    Metric::count("memory_at_end_mib", "mapped memory at the end, in MiB"),
    Metric::count(
        "busiest_core_percent",
        "the busiest core's utilisation over the run, in percent",
    ),
    crate::invariant::VIOLATIONS,
];
