//! A thread-per-core executor, as glommio and monoio build one:
//! - each worker (core) runs its own tasks from its own FIFO queue, and nothing moves between
//!   cores: no stealing, no global queue;
//! - a task stays on the core that spawned it; one woken from outside a core first is placed
//!   round-robin, and stays there;
//! - a wake from another core or thread goes to the task's own core, and unparks that core;
//! - a busy core checks its ring every `event_interval` tasks (61 here, as tokio's, for want of
//!   one fixed number: glommio checks between task-queue time slices, monoio every 61 ticks);
//! - a core with nothing queued parks.
//!
//! Each core has a ring of its own in glommio and monoio; here the runtime has one driver, whose
//! wakes go to each task's own core, so a task's I/O is noticed by whichever core polls first.
//! The design promises only that a task never waits while its own core sits parked
//! ([`SchedulerPromise::OwnWorker`]): work pinned to a busy core waits, by design.

use std::collections::BTreeMap;

use super::super::design::DesignMetric;
use super::super::idle_workers::IdleWorkers;
use super::super::{
    BuildScheduler, Inject, Park, Placement, SchedulerConfig, SchedulerDesign, SchedulerPromise,
    Source, TaskId,
};
use crate::sync::Primitives;

/// One thread-per-core runtime.
#[derive(Debug)]
pub struct ThreadPerCore<S: Primitives> {
    config: SchedulerConfig,
    queues: Vec<Inject<S>>,
    homes: BTreeMap<TaskId, usize>,
    next_home: usize,
    ticks: Vec<u32>,
    idle: IdleWorkers,
    /// Wakes that came from another core or thread than the task's own.
    remote_wakes: u64,
}

impl<S: Primitives> ThreadPerCore<S> {
    pub fn new(config: SchedulerConfig) -> Self {
        let workers = config.workers.max(1);
        ThreadPerCore {
            config,
            queues: (0..workers).map(|_| Inject::new()).collect(),
            homes: BTreeMap::new(),
            next_home: 0,
            ticks: vec![0; workers],
            idle: IdleWorkers::default(),
            remote_wakes: 0,
        }
    }

    fn home(&mut self, task: TaskId, from: Option<usize>) -> usize {
        let workers = self.queues.len();
        let next_home = &mut self.next_home;
        *self.homes.entry(task).or_insert_with(|| {
            from.unwrap_or_else(|| {
                let home = *next_home;
                *next_home = (home + 1) % workers;
                home
            })
        })
    }
}

impl<S: Primitives> SchedulerDesign for ThreadPerCore<S> {
    fn workers(&self) -> usize {
        self.queues.len()
    }

    fn schedule(
        &mut self,
        task: TaskId,
        from: Option<usize>,
        _yielded: bool,
    ) -> (Placement, Option<usize>) {
        let home = self.home(task, from);
        self.remote_wakes += u64::from(from != Some(home));
        self.queues[home].push(task);
        let notify = (from != Some(home) && self.idle.is_parked(home)).then_some(home);
        (Placement::Pinned { worker: home }, notify)
    }

    fn tick(&mut self, worker: usize, _now_ns: i64) -> bool {
        self.ticks[worker] = self.ticks[worker].wrapping_add(1);
        self.ticks[worker].is_multiple_of(self.config.event_interval.max(1))
    }

    fn next_task(&mut self, worker: usize, _random_start: usize) -> Option<(TaskId, Source)> {
        self.queues[worker]
            .pop()
            .map(|task| (task, Source::LocalQueue))
    }

    fn park(&mut self, worker: usize) -> Park {
        if !self.queues[worker].is_empty() {
            return Park::WorkPending;
        }
        self.idle.park(worker)
    }

    fn unpark(&mut self, worker: usize) {
        self.idle.unpark(worker);
    }

    fn driver_holder(&self) -> Option<usize> {
        self.idle.driver_holder()
    }

    fn should_notify_others(&self, _worker: usize) -> bool {
        false
    }

    fn worker_to_notify(&self) -> Option<usize> {
        // A wake notifies the task's own core, in `schedule`; nobody else is ever asked.
        None
    }

    fn queued(&self, worker: usize) -> usize {
        self.queues[worker].len()
    }

    fn injected(&self) -> usize {
        0
    }

    fn metric(&self, name: &str) -> Option<u64> {
        (name == REMOTE_WAKES.name).then_some(self.remote_wakes)
    }
}

/// The thread-per-core design's own metric.
pub const REMOTE_WAKES: DesignMetric = DesignMetric::new(
    "remote_wakes",
    "wakes from another core or thread than the task's own, sent to its core",
);

/// `scheduler = "thread-per-core"`.
#[derive(Debug)]
pub struct ThreadPerCoreDesign;

impl BuildScheduler for ThreadPerCoreDesign {
    const NAME: &'static str = "thread-per-core";
    const ABOUT: &'static str =
        "glommio/monoio style: a queue per core, tasks stay where they start, no stealing";
    const KEYS: &'static [&'static str] = &["event_interval"];
    const PROMISE: SchedulerPromise = SchedulerPromise::OwnWorker;
    const METRICS: &'static [DesignMetric] = &[REMOTE_WAKES];
    type Design<S: Primitives> = ThreadPerCore<S>;

    fn defaults(workers: usize) -> SchedulerConfig {
        SchedulerConfig {
            lifo_slot: false,
            ..SchedulerConfig::tokio(workers)
        }
    }

    fn build<S: Primitives>(config: &SchedulerConfig) -> ThreadPerCore<S> {
        ThreadPerCore::new(*config)
    }
}
