//! One runtime's scheduling decisions, as tokio's multi-thread scheduler makes them: where a woken
//! task goes, which task a worker runs next, when it polls the driver, and whom a wake notifies.
//!
//! The core is sans-time: a driver (the simulator, or a test) tells it what happened and asks what
//! to do next. The queues it uses are the real concurrent ones ([`LocalQueue`], [`Inject`],
//! [`LifoSlot`]), so the code the simulator runs is the code shuttle and loom check.
//!
//! What tokio does that this leaves out: the cap of about half the workers searching at once (a
//! search takes no time here, so it never overlaps another), and the global queue interval's
//! self-tuning (#5720); the interval stays at its configured value, 61 by default, as before 1.29.

use crate::sync::Primitives;

use super::design::{BuildScheduler, Park, Placement, SchedulerDesign, Source};
use super::{IdleWorkers, Inject, LifoSlot, LocalQueue, TaskId};

/// tokio's knobs, with its defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedulerConfig {
    pub workers: usize,
    /// `false` is tokio's unstable `disable_lifo_slot`.
    pub lifo_slot: bool,
    /// The inject queue is checked first every this many ticks.
    pub global_queue_interval: u32,
    /// The driver is polled, without blocking, every this many ticks.
    pub event_interval: u32,
    /// Polls from the LIFO slot after one task's poll, before it is bypassed (#5712).
    pub max_lifo_polls_per_tick: u32,
}

impl SchedulerConfig {
    pub const TOKIO_GLOBAL_QUEUE_INTERVAL: u32 = 61;
    pub const TOKIO_EVENT_INTERVAL: u32 = 61;
    pub const TOKIO_MAX_LIFO_POLLS_PER_TICK: u32 = 3;

    /// tokio's defaults for `workers` workers.
    pub fn tokio(workers: usize) -> Self {
        SchedulerConfig {
            workers: workers.max(1),
            lifo_slot: true,
            global_queue_interval: Self::TOKIO_GLOBAL_QUEUE_INTERVAL,
            event_interval: Self::TOKIO_EVENT_INTERVAL,
            max_lifo_polls_per_tick: Self::TOKIO_MAX_LIFO_POLLS_PER_TICK,
        }
    }
}

/// What only the worker itself touches (tokio's `Core`).
#[derive(Clone, Copy, Debug)]
struct WorkerCore {
    tick: u32,
    lifo_enabled: bool,
    lifo_polls: u32,
    /// Inside a park or a zero-timeout driver check: wakes it causes notify nobody, as tokio's
    /// core has its parker taken out then; one check follows at the end.
    in_park: bool,
}

/// One runtime: its workers' queues and slots, its inject queue, and who holds its driver.
#[derive(Debug)]
pub struct Scheduler<S: Primitives> {
    config: SchedulerConfig,
    inject: Inject<S>,
    locals: Vec<LocalQueue<S>>,
    lifos: Vec<LifoSlot<S>>,
    cores: Vec<WorkerCore>,
    /// Parked workers, most recently parked last (tokio notifies the last sleeper first), and
    /// the driver's holder.
    idle: IdleWorkers,
    /// Times a LIFO chain hit the cap and the slot was bypassed.
    lifo_capped: u64,
}

impl<S: Primitives> Scheduler<S> {
    pub fn new(config: SchedulerConfig) -> Self {
        let workers = config.workers.max(1);
        Scheduler {
            config,
            inject: Inject::new(),
            locals: (0..workers).map(|_| LocalQueue::new()).collect(),
            lifos: (0..workers).map(|_| LifoSlot::new()).collect(),
            cores: vec![
                WorkerCore {
                    tick: 0,
                    lifo_enabled: config.lifo_slot,
                    lifo_polls: 0,
                    in_park: false,
                };
                workers
            ],
            idle: IdleWorkers::default(),
            lifo_capped: 0,
        }
    }

    pub fn config(&self) -> &SchedulerConfig {
        &self.config
    }
}

impl<S: Primitives> SchedulerDesign for Scheduler<S> {
    fn workers(&self) -> usize {
        self.cores.len()
    }

    /// Schedules a woken or spawned task. `from` is the worker of this runtime whose thread did
    /// it, if any; a wake from anywhere else (another runtime, the blocking pool, the network)
    /// goes to the inject queue. Returns where it went and which parked worker to notify.
    fn schedule(
        &mut self,
        task: TaskId,
        from: Option<usize>,
        yielded: bool,
    ) -> (Placement, Option<usize>) {
        let Some(worker) = from else {
            self.inject.push(task);
            return (Placement::Inject, self.worker_to_notify());
        };
        let lifo = self.cores[worker].lifo_enabled && !yielded;
        let (placement, notify) = if lifo {
            let displaced = self.lifos[worker].put(task);
            if let Some(previous) = displaced {
                self.locals[worker].push_back_or_overflow(previous, &self.inject);
            }
            // Filling an empty slot notifies nobody: the worker will run it next.
            (
                Placement::Lifo {
                    displaced: displaced.is_some(),
                },
                displaced.is_some(),
            )
        } else {
            let overflowed = self.locals[worker].push_back_or_overflow(task, &self.inject);
            (Placement::LocalQueue { overflowed }, true)
        };
        // A parked worker's wakes come from its driver poll; it notifies others afterwards.
        let notify = notify && !self.idle.is_parked(worker) && !self.cores[worker].in_park;
        (
            placement,
            if notify {
                self.worker_to_notify()
            } else {
                None
            },
        )
    }

    /// Starts a worker's next scheduler tick. Returns whether maintenance is due: a poll of the
    /// driver without blocking.
    fn tick(&mut self, worker: usize, _: i64) -> bool {
        let core = &mut self.cores[worker];
        core.tick = core.tick.wrapping_add(1);
        core.tick.is_multiple_of(self.config.event_interval.max(1))
    }

    /// The task `worker` runs next, and where it came from: the inject queue first on every
    /// `global_queue_interval`th tick, otherwise its LIFO slot, its queue, a batch from the inject
    /// queue, and last a steal from a victim picked by `random_start` (`0..workers`).
    fn defers_yields(&self) -> bool {
        true
    }

    fn next_task(&mut self, worker: usize, random_start: usize) -> Option<(TaskId, Source)> {
        let core = &mut self.cores[worker];
        core.lifo_enabled = self.config.lifo_slot;
        core.lifo_polls = 0;
        if core
            .tick
            .is_multiple_of(self.config.global_queue_interval.max(1))
        {
            if let Some(task) = self.inject.pop() {
                return Some((task, Source::Inject));
            }
            return self
                .next_local_task(worker)
                .or_else(|| self.steal(worker, random_start));
        }
        self.next_local_task(worker)
            .or_else(|| self.pull_from_inject(worker))
            .or_else(|| self.steal(worker, random_start))
    }

    /// After a task's poll: the task to poll next from the LIFO slot, within the poll budget and
    /// the cap of LIFO polls per tick. Past the cap the slot is bypassed until the next tick, and
    /// without budget its task goes to the back of the queue.
    fn next_lifo_task(&mut self, worker: usize, budget_left: bool, _: u64) -> Option<TaskId> {
        let Some(task) = self.lifos[worker].take() else {
            // The chain is over: the slot takes wakes again, even if this tick hit the cap.
            self.cores[worker].lifo_enabled = self.config.lifo_slot;
            return None;
        };
        if !budget_left {
            self.locals[worker].push_back_or_overflow(task, &self.inject);
            return None;
        }
        let core = &mut self.cores[worker];
        core.lifo_polls += 1;
        if core.lifo_polls >= self.config.max_lifo_polls_per_tick && core.lifo_enabled {
            core.lifo_enabled = false;
            self.lifo_capped += 1;
        }
        Some(task)
    }

    /// `worker` found nothing to do. It takes the driver if nobody holds it.
    fn park(&mut self, worker: usize) -> Park {
        // tokio's `transition_to_parked`: a worker with tasks of its own does not park, and the
        // last searcher to park looks at every queue once more, for work that came meanwhile
        // (`notify_if_work_pending`); the worker it would notify is itself, the last to park.
        if self.queued(worker) > 0 || self.work_pending() {
            return Park::WorkPending;
        }
        self.idle.park(worker)
    }

    /// `worker` starts a zero-timeout park: a driver check, or releasing its yielded tasks. Wakes
    /// until [`Scheduler::end_park_check`] notify nobody.
    fn begin_park_check(&mut self, worker: usize) {
        self.cores[worker].in_park = true;
    }

    /// The check is over: returns the parked worker to notify if `worker` now has more work
    /// than it can run alone.
    fn end_park_check(&mut self, worker: usize) -> Option<usize> {
        self.cores[worker].in_park = false;
        if self.should_notify_others(worker) {
            self.worker_to_notify()
        } else {
            None
        }
    }

    /// `worker` runs again: notified, or its driver returned. It gives the driver back.
    fn unpark(&mut self, worker: usize) {
        self.idle.unpark(worker);
    }

    /// The worker blocking in the driver, if any.
    fn driver_holder(&self) -> Option<usize> {
        self.idle.driver_holder()
    }

    /// After a driver poll that woke tasks onto `worker`: whether it has more than it can run
    /// alone, so another worker should be notified (tokio's `should_notify_others`).
    fn should_notify_others(&self, worker: usize) -> bool {
        usize::from(!self.lifos[worker].is_empty()) + self.locals[worker].len() > 1
    }

    /// The parked worker a notification wakes: the last to park.
    fn worker_to_notify(&self) -> Option<usize> {
        self.idle.last()
    }

    /// `block_in_place` on `worker`: its LIFO task moves to its queue, where others can steal it
    /// (#6596). Returns whether a task moved.
    fn hand_off_lifo(&mut self, worker: usize) -> bool {
        self.lifos[worker].hand_off(&self.locals[worker], &self.inject)
    }

    /// Tasks waiting in `worker`'s queue and slot.
    fn queued(&self, worker: usize) -> usize {
        self.locals[worker].len() + usize::from(!self.lifos[worker].is_empty())
    }

    fn injected(&self) -> usize {
        self.inject.len()
    }

    fn metric(&self, name: &str) -> Option<u64> {
        (name == LIFO_CAPPED.name).then_some(self.lifo_capped)
    }
}

/// The multi-thread scheduler's own metric.
pub const LIFO_CAPPED: super::design::DesignMetric = super::design::DesignMetric::new(
    "lifo_capped",
    "times a worker's LIFO chain reached 3 polls in a tick and the slot was bypassed (#5712)",
);

impl<S: Primitives> Scheduler<S> {
    /// Work some worker could take: the inject queue's, or another worker's queue.
    fn work_pending(&self) -> bool {
        !self.inject.is_empty() || self.locals.iter().any(|local| !local.is_empty())
    }

    fn next_local_task(&mut self, worker: usize) -> Option<(TaskId, Source)> {
        if let Some(task) = self.lifos[worker].take() {
            return Some((task, Source::Lifo));
        }
        self.locals[worker]
            .pop()
            .map(|task| (task, Source::LocalQueue))
    }

    /// An empty worker pulls `min(len / workers + 1, 128)` tasks from the inject queue.
    fn pull_from_inject(&mut self, worker: usize) -> Option<(TaskId, Source)> {
        if self.inject.is_empty() {
            return None;
        }
        let batch = (self.inject.len() / self.workers() + 1).min(super::LOCAL_QUEUE_CAPACITY / 2);
        let mut tasks = self.inject.pop_batch(batch).into_iter();
        let first = tasks.next()?;
        for task in tasks {
            self.locals[worker].push_back_or_overflow(task, &self.inject);
        }
        Some((first, Source::Inject))
    }

    /// Steals from each other worker in turn from `random_start`, then tries the inject queue.
    fn steal(&mut self, worker: usize, random_start: usize) -> Option<(TaskId, Source)> {
        let workers = self.workers();
        for offset in 0..workers {
            let victim = (random_start + offset) % workers;
            if victim == worker {
                continue;
            }
            if let Some(task) = self.locals[victim].steal_into(&self.locals[worker]) {
                return Some((task, Source::Stolen { victim }));
            }
        }
        self.inject.pop().map(|task| (task, Source::Inject))
    }
}

/// tokio's multi-thread scheduler, as a design scenario files name: `scheduler =
/// "tokio-multi-thread"`, the default.
#[derive(Debug)]
pub struct TokioMultiThread;

impl BuildScheduler for TokioMultiThread {
    const NAME: &'static str = "tokio-multi-thread";
    const ABOUT: &'static str = "tokio's work-stealing scheduler: a LIFO slot and a 256-task queue per worker, one inject queue";
    const KEYS: &'static [&'static str] = &["lifo_slot", "global_queue_interval", "event_interval"];
    const METRICS: &'static [super::design::DesignMetric] = &[LIFO_CAPPED];
    type Design<S: Primitives> = Scheduler<S>;

    fn defaults(workers: usize) -> SchedulerConfig {
        SchedulerConfig::tokio(workers)
    }

    fn build<S: Primitives>(config: &SchedulerConfig) -> Scheduler<S> {
        Scheduler::new(*config)
    }
}
