//! A scheduler design from outside ticklab, written only against its public API: a thread pool
//! whose workers share one FIFO queue, as a plain `ThreadPoolExecutor` does.
//!
//! - Every spawn and wake, from any thread, goes to the back of the one queue, and notifies the
//!   worker that parked last.
//! - A free worker takes the queue's front.
//! - Out of tasks, a worker parks; the first to park blocks in the driver.
//!
//! [`FifoPool`] looks at the queue once more as it parks, for a task that came between its
//! search and its park. [`LostWakePool`] does not: a task scheduled in that window notifies
//! nobody, since nobody is parked yet, and then every worker parks with it queued. It is the
//! planted bug that ticklab's scheduler battery and the executor's liveness check must each catch.

use ticklab::Registry;
use ticklab::models::executor::{
    BuildScheduler, IdleWorkers, Inject, Park, Placement, SchedulerConfig, SchedulerDesign, Source,
    TaskId,
};
use ticklab::models::sync::Primitives;

/// The pool; `RECHECKS` is whether a worker looks at the queue again as it parks.
#[derive(Debug)]
pub struct Pool<S: Primitives, const RECHECKS: bool> {
    workers: usize,
    queue: Inject<S>,
    idle: IdleWorkers,
}

impl<S: Primitives, const RECHECKS: bool> Pool<S, RECHECKS> {
    pub fn new(workers: usize) -> Self {
        Pool {
            workers: workers.max(1),
            queue: Inject::new(),
            idle: IdleWorkers::default(),
        }
    }
}

impl<S: Primitives, const RECHECKS: bool> SchedulerDesign for Pool<S, RECHECKS> {
    fn workers(&self) -> usize {
        self.workers
    }

    fn schedule(
        &mut self,
        task: TaskId,
        _from: Option<usize>,
        _yielded: bool,
    ) -> (Placement, Option<usize>) {
        self.queue.push(task);
        (Placement::Inject, self.idle.last())
    }

    fn tick(&mut self, _worker: usize, _now_ns: i64) -> bool {
        false
    }

    fn next_task(&mut self, _worker: usize, _random_start: usize) -> Option<(TaskId, Source)> {
        self.queue.pop().map(|task| (task, Source::Inject))
    }

    fn park(&mut self, worker: usize) -> Park {
        if RECHECKS && !self.queue.is_empty() {
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
        self.idle.last()
    }

    fn queued(&self, _worker: usize) -> usize {
        0
    }

    fn injected(&self) -> usize {
        self.queue.len()
    }
}

/// `scheduler = "fifo-pool"`: the pool, correct.
#[derive(Debug)]
pub struct FifoPool;

impl BuildScheduler for FifoPool {
    const NAME: &'static str = "fifo-pool";
    const ABOUT: &'static str = "one FIFO queue shared by every worker";
    const KEYS: &'static [&'static str] = &[];
    type Design<S: Primitives> = Pool<S, true>;

    fn defaults(workers: usize) -> SchedulerConfig {
        SchedulerConfig::tokio(workers)
    }

    fn build<S: Primitives>(config: &SchedulerConfig) -> Pool<S, true> {
        Pool::new(config.workers)
    }
}

/// `scheduler = "fifo-pool-lost-wake"`: the pool with the planted bug.
#[derive(Debug)]
pub struct LostWakePool;

impl BuildScheduler for LostWakePool {
    const NAME: &'static str = "fifo-pool-lost-wake";
    const ABOUT: &'static str = "the FIFO pool, parking without looking at the queue again";
    const KEYS: &'static [&'static str] = &[];
    type Design<S: Primitives> = Pool<S, false>;

    fn defaults(workers: usize) -> SchedulerConfig {
        SchedulerConfig::tokio(workers)
    }

    fn build<S: Primitives>(config: &SchedulerConfig) -> Pool<S, false> {
        Pool::new(config.workers)
    }
}

/// ticklab's designs, and both pools.
pub fn registry() -> Registry {
    Registry::builtin()
        .with_scheduler::<FifoPool>()
        .with_scheduler::<LostWakePool>()
}
