//! async-executor's `Executor` (smol's), from its `src/lib.rs` at 1.13:
//! - every wake, from any thread, pushes the task to the one global queue
//!   (`Executor::schedule`), then notifies one sleeping runner unless one is notified already;
//! - a runner searches its local queue (bounded at 512), then the global queue, taking one task
//!   and moving half the rest to its queue, then steals half of each other runner's queue, from
//!   a random one on;
//! - a runner that finds a task notifies another sleeper, to take over the search;
//! - every 64th task found, it also moves half the global queue to its own (`ticks % 64`);
//! - no LIFO slot;
//! - `Executor::run` yields to `block_on` every 200 tasks, and async-io's `block_on` then polls
//!   the reactor without blocking: the driver check of a busy runner;
//! - a runner that finds nothing registers as a sleeper and searches once more before it
//!   sleeps; the first to sleep blocks in the reactor.

use super::super::design::DesignMetric;
use super::super::idle_workers::IdleWorkers;
use super::super::{
    BuildScheduler, Inject, Park, Placement, SchedulerConfig, SchedulerDesign, Source, TaskId,
};
use crate::sync::Primitives;

/// A runner's local queue holds this many tasks (`ConcurrentQueue::bounded(512)`).
pub const RUNNER_QUEUE_CAPACITY: usize = 512;
/// Every this many tasks found, a runner moves half the global queue to its own.
pub const GLOBAL_STEAL_INTERVAL: u32 = 64;
/// `Executor::run` runs this many tasks between yields to `block_on`.
pub const TASKS_PER_YIELD: u32 = 200;

/// One `async_executor::Executor` run by `workers` threads.
#[derive(Debug)]
pub struct AsyncExecutor<S: Primitives> {
    config: SchedulerConfig,
    global: Inject<S>,
    locals: Vec<Inject<S>>,
    ticks: Vec<u32>,
    polls: Vec<u32>,
    /// A sleeper notified and not yet running: no other is notified until it runs.
    notified: Option<usize>,
    idle: IdleWorkers,
    /// Sleepers a runner that found a task notified, to take over the search.
    handoffs: u64,
}

impl<S: Primitives> AsyncExecutor<S> {
    pub fn new(config: SchedulerConfig) -> Self {
        let workers = config.workers.max(1);
        AsyncExecutor {
            config,
            global: Inject::new(),
            locals: (0..workers).map(|_| Inject::new()).collect(),
            ticks: vec![0; workers],
            polls: vec![0; workers],
            notified: None,
            idle: IdleWorkers::default(),
            handoffs: 0,
        }
    }

    /// `State::notify`: one sleeper, unless one is notified already.
    fn notify(&mut self) -> Option<usize> {
        if self.notified.is_some() {
            return None;
        }
        self.notified = self.idle.last();
        self.notified
    }

    /// Moves half of `from`, rounded up, to `worker`'s queue, as far as it has room.
    fn steal_half(&self, from: &Inject<S>, worker: usize) {
        let room = RUNNER_QUEUE_CAPACITY.saturating_sub(self.locals[worker].len());
        let count = from.len().div_ceil(2).min(room);
        self.locals[worker].push_batch(from.pop_batch(count));
    }

    fn search(&self, worker: usize, random_start: usize) -> Option<(TaskId, Source)> {
        if let Some(task) = self.locals[worker].pop() {
            return Some((task, Source::LocalQueue));
        }
        if let Some(task) = self.global.pop() {
            self.steal_half(&self.global, worker);
            return Some((task, Source::Inject));
        }
        let workers = self.locals.len();
        for offset in 0..workers {
            let victim = (random_start + offset) % workers;
            if victim == worker {
                continue;
            }
            self.steal_half(&self.locals[victim], worker);
            if let Some(task) = self.locals[worker].pop() {
                return Some((task, Source::Stolen { victim }));
            }
        }
        None
    }

    fn any_work(&self) -> bool {
        !self.global.is_empty() || self.locals.iter().any(|local| !local.is_empty())
    }
}

impl<S: Primitives> SchedulerDesign for AsyncExecutor<S> {
    fn workers(&self) -> usize {
        self.locals.len()
    }

    fn schedule(
        &mut self,
        task: TaskId,
        _from: Option<usize>,
        _yielded: bool,
    ) -> (Placement, Option<usize>) {
        self.global.push(task);
        (Placement::Inject, self.notify())
    }

    fn tick(&mut self, worker: usize, _now_ns: i64) -> bool {
        self.polls[worker] = self.polls[worker].wrapping_add(1);
        self.polls[worker].is_multiple_of(self.config.event_interval.max(1))
    }

    fn next_task(&mut self, worker: usize, random_start: usize) -> Option<(TaskId, Source)> {
        let found = self.search(worker, random_start)?;
        self.ticks[worker] = self.ticks[worker].wrapping_add(1);
        if self.ticks[worker].is_multiple_of(self.config.global_queue_interval.max(1)) {
            self.steal_half(&self.global, worker);
        }
        Some(found)
    }

    fn found(&mut self, worker: usize) -> Option<usize> {
        if self.notified == Some(worker) {
            self.notified = None;
        }
        let notified = self.notify();
        self.handoffs += u64::from(notified.is_some());
        notified
    }

    fn park(&mut self, worker: usize) -> Park {
        // `Ticker::sleep`, then the search once more.
        if self.any_work() {
            return Park::WorkPending;
        }
        if self.notified == Some(worker) {
            self.notified = None;
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
        // The driver's wakes went to the global queue, and notified as they went.
        false
    }

    fn worker_to_notify(&self) -> Option<usize> {
        self.idle.last()
    }

    fn queued(&self, worker: usize) -> usize {
        self.locals[worker].len()
    }

    fn injected(&self) -> usize {
        self.global.len()
    }

    fn metric(&self, name: &str) -> Option<u64> {
        (name == SEARCH_HANDOFFS.name).then_some(self.handoffs)
    }
}

/// async-executor's own metric.
pub const SEARCH_HANDOFFS: DesignMetric = DesignMetric::new(
    "search_handoffs",
    "sleepers a runner that found a task notified, to take over the search",
);

/// `scheduler = "async-executor"`.
#[derive(Debug)]
pub struct AsyncExecutorDesign;

impl BuildScheduler for AsyncExecutorDesign {
    const NAME: &'static str = "async-executor";
    const ABOUT: &'static str = "async-executor (smol): one global queue, a 512-task queue per runner, stealing, no LIFO slot";
    const KEYS: &'static [&'static str] = &["global_queue_interval", "event_interval"];
    const METRICS: &'static [DesignMetric] = &[SEARCH_HANDOFFS];
    type Design<S: Primitives> = AsyncExecutor<S>;

    fn defaults(workers: usize) -> SchedulerConfig {
        SchedulerConfig {
            lifo_slot: false,
            global_queue_interval: GLOBAL_STEAL_INTERVAL,
            event_interval: TASKS_PER_YIELD,
            ..SchedulerConfig::tokio(workers)
        }
    }

    fn build<S: Primitives>(config: &SchedulerConfig) -> AsyncExecutor<S> {
        AsyncExecutor::new(*config)
    }
}
