//! tokio's current-thread scheduler (`runtime::Builder::new_current_thread`), from tokio's
//! `runtime/scheduler/current_thread/mod.rs`:
//! - one worker: the thread in `block_on`;
//! - a task woken on that thread goes to the back of its local queue (a `VecDeque`); one woken
//!   anywhere else goes to the shared inject queue and unparks the thread;
//! - each tick takes the inject queue's task first every `global_queue_interval` ticks (31 by
//!   default, where the multi-thread scheduler's is 61), and the local queue's otherwise;
//! - every `event_interval` ticks (61) it polls the driver without blocking;
//! - no LIFO slot, no stealing: there is nobody to steal from;
//! - out of tasks, it parks in the driver, which also takes the wakes from other threads.

use super::super::idle_workers::IdleWorkers;
use super::super::{
    BuildScheduler, Inject, Park, Placement, SchedulerConfig, SchedulerDesign, Source, TaskId,
};
use crate::sync::Primitives;

/// tokio's `DEFAULT_GLOBAL_QUEUE_INTERVAL` for the current-thread scheduler.
pub const CURRENT_THREAD_GLOBAL_QUEUE_INTERVAL: u32 = 31;

/// One runtime of tokio's current-thread scheduler.
#[derive(Debug)]
pub struct CurrentThread<S: Primitives> {
    config: SchedulerConfig,
    local: Inject<S>,
    inject: Inject<S>,
    tick: u32,
    idle: IdleWorkers,
}

impl<S: Primitives> CurrentThread<S> {
    pub fn new(config: SchedulerConfig) -> Self {
        CurrentThread {
            config,
            local: Inject::new(),
            inject: Inject::new(),
            tick: 0,
            idle: IdleWorkers::default(),
        }
    }
}

impl<S: Primitives> SchedulerDesign for CurrentThread<S> {
    fn workers(&self) -> usize {
        1
    }

    fn schedule(
        &mut self,
        task: TaskId,
        from: Option<usize>,
        _yielded: bool,
    ) -> (Placement, Option<usize>) {
        match from {
            Some(_) => {
                self.local.push(task);
                (Placement::LocalQueue { overflowed: 0 }, None)
            }
            None => {
                self.inject.push(task);
                (Placement::Inject, self.idle.last())
            }
        }
    }

    fn tick(&mut self, _worker: usize, _now_ns: i64) -> bool {
        self.tick = self.tick.wrapping_add(1);
        self.tick.is_multiple_of(self.config.event_interval.max(1))
    }

    fn defers_yields(&self) -> bool {
        true
    }

    fn next_task(&mut self, _worker: usize, _random_start: usize) -> Option<(TaskId, Source)> {
        let local = |this: &Self| this.local.pop().map(|task| (task, Source::LocalQueue));
        let remote = |this: &Self| this.inject.pop().map(|task| (task, Source::Inject));
        if self
            .tick
            .is_multiple_of(self.config.global_queue_interval.max(1))
        {
            remote(self).or_else(|| local(self))
        } else {
            local(self).or_else(|| remote(self))
        }
    }

    fn park(&mut self, worker: usize) -> Park {
        if !self.local.is_empty() || !self.inject.is_empty() {
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
        self.local.len()
    }

    fn injected(&self) -> usize {
        self.inject.len()
    }
}

/// `scheduler = "tokio-current-thread"`.
#[derive(Debug)]
pub struct TokioCurrentThread;

impl BuildScheduler for TokioCurrentThread {
    const NAME: &'static str = "tokio-current-thread";
    const ABOUT: &'static str =
        "tokio's current-thread scheduler: one worker, a local queue and an inject queue";
    const KEYS: &'static [&'static str] = &["global_queue_interval", "event_interval"];
    const MAX_WORKERS: usize = 1;
    type Design<S: Primitives> = CurrentThread<S>;

    fn defaults(workers: usize) -> SchedulerConfig {
        SchedulerConfig {
            lifo_slot: false,
            global_queue_interval: CURRENT_THREAD_GLOBAL_QUEUE_INTERVAL,
            ..SchedulerConfig::tokio(workers)
        }
    }

    fn build<S: Primitives>(config: &SchedulerConfig) -> CurrentThread<S> {
        CurrentThread::new(*config)
    }
}
