//! The scheduler designs an executor scenario's runtimes can name with `scheduler = "..."`.

use std::fmt;

use ticklab_models::executor::design::DesignMetric;
use ticklab_models::executor::{
    BuildScheduler, SchedulerConfig, SchedulerDesign, SchedulerPromise,
};
use ticklab_models::sync::StdPrimitives;

/// The runtime keys a scheduler design may read; each design declares which it does.
pub const SCHEDULER_KEYS: &[&str] = &["lifo_slot", "global_queue_interval", "event_interval"];

/// A scheduler design scenario files can name.
#[derive(Clone, Copy)]
pub struct SchedulerEntry {
    pub name: &'static str,
    pub about: &'static str,
    /// The runtime keys it reads, of `lifo_slot`, `global_queue_interval` and `event_interval`.
    pub keys: &'static [&'static str],
    pub max_workers: usize,
    pub promise: SchedulerPromise,
    /// The metrics of its own it reports.
    pub metrics: &'static [DesignMetric],
    /// Listed in hints and errors; planted bugs are not.
    pub listed: bool,
    pub(super) defaults: fn(usize) -> SchedulerConfig,
    pub(super) build: fn(&SchedulerConfig) -> Box<dyn SchedulerDesign>,
    #[cfg(feature = "battery")]
    pub(super) battery: fn(),
}

fn build<B: BuildScheduler>(config: &SchedulerConfig) -> Box<dyn SchedulerDesign> {
    Box::new(B::build::<StdPrimitives>(config))
}

impl SchedulerEntry {
    pub fn of<B: BuildScheduler>() -> Self {
        SchedulerEntry {
            name: B::NAME,
            about: B::ABOUT,
            keys: B::KEYS,
            max_workers: B::MAX_WORKERS,
            promise: B::PROMISE,
            metrics: B::METRICS,
            listed: true,
            defaults: B::defaults,
            build: build::<B>,
            #[cfg(feature = "battery")]
            battery: crate::battery::scheduler::shuttle::<B>,
        }
    }

    /// Its settings for `workers` workers, before a file's keys change them.
    pub fn defaults(&self, workers: usize) -> SchedulerConfig {
        (self.defaults)(workers)
    }

    pub(crate) fn build(&self, config: &SchedulerConfig) -> Box<dyn SchedulerDesign> {
        (self.build)(config)
    }

    /// Whether it reads the runtime key `name`.
    pub fn reads(&self, name: &str) -> bool {
        self.keys.contains(&name)
    }

    /// Runs the shuttle scheduler battery on the design.
    #[cfg(feature = "battery")]
    pub fn run_shuttle_battery(&self) {
        (self.battery)()
    }
}

impl fmt::Debug for SchedulerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchedulerEntry")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Two entries are the same design if they have the same name: a registry holds one per name.
impl PartialEq for SchedulerEntry {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for SchedulerEntry {}
