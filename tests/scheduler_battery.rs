//! Every scheduler design ticklab ships passes the shuttle scheduler battery
//! (`ticklab::battery::scheduler`): no schedule of its workers' and an outside thread's calls
//! loses a wake or runs a task twice. The battery's planted bug is in
//! `examples/fifo-pool-scheduler`, which proves the battery catches a lost wake.

use ticklab::Registry;

#[test]
fn every_built_in_scheduler_passes_the_shuttle_battery() {
    let registry = Registry::builtin();
    let names: Vec<&str> = registry.schedulers().map(|entry| entry.name).collect();
    assert_eq!(
        names,
        [
            "tokio-multi-thread",
            "tokio-current-thread",
            "async-executor",
            "go",
            "thread-per-core"
        ]
    );
    for entry in registry.schedulers() {
        entry.run_shuttle_battery();
    }
}

/// tokio's multi-thread scheduler under another name, with a metric or a key of its own.
macro_rules! renamed {
    ($name:ident, $metrics:expr, $keys:expr) => {
        struct $name;
        impl ticklab::models::executor::BuildScheduler for $name {
            const NAME: &'static str = stringify!($name);
            const ABOUT: &'static str = "tokio's multi-thread scheduler, renamed";
            const KEYS: &'static [&'static str] = $keys;
            const METRICS: &'static [ticklab::models::executor::design::DesignMetric] = $metrics;
            type Design<S: ticklab::models::sync::Primitives> =
                ticklab::models::executor::Scheduler<S>;
            fn defaults(workers: usize) -> ticklab::models::executor::SchedulerConfig {
                ticklab::models::executor::SchedulerConfig::tokio(workers)
            }
            fn build<S: ticklab::models::sync::Primitives>(
                config: &ticklab::models::executor::SchedulerConfig,
            ) -> ticklab::models::executor::Scheduler<S> {
                ticklab::models::executor::Scheduler::new(*config)
            }
        }
    };
}

#[test]
#[should_panic(
    expected = "scheduler `ShadowsSteals` declares the metric `steals`, which every executor run already reports"
)]
fn a_scheduler_metric_may_not_hide_an_executor_metric() {
    renamed!(
        ShadowsSteals,
        &[ticklab::models::executor::design::DesignMetric::new(
            "steals",
            "tasks stolen"
        )],
        &[]
    );
    let _ = Registry::builtin().with_scheduler::<ShadowsSteals>();
}

#[test]
#[should_panic(expected = "scheduler `ReadsWorkers` reads the key `workers_per_core`")]
fn a_scheduler_may_read_only_the_runtime_keys() {
    renamed!(ReadsWorkers, &[], &["workers_per_core"]);
    let _ = Registry::builtin().with_scheduler::<ReadsWorkers>();
}
