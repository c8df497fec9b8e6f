//! A scheduler design: one runtime's scheduling decisions, whatever its rules. tokio's
//! multi-thread scheduler is one; tokio's current-thread scheduler, async-executor (smol's), Go's
//! runtime and a thread-per-core design are the others ticklab ships, and a user's crate may bring
//! its own through [`BuildScheduler`].
//!
//! A design is sans-time, as a timer design is: the simulator (or a test, or the shuttle battery)
//! tells it what happened and asks what to do next. It answers:
//! - where a spawned or woken task goes, and whom that wake notifies ([`schedule`]);
//! - what a free worker runs next, and from where ([`next_task`], [`next_lifo_task`]);
//! - when a busy worker polls the driver ([`tick`]);
//! - when a worker parks, and whether on the driver ([`park`]).
//!
//! The calls come one at a time, but not necessarily back to back: between a worker's search
//! that found nothing and its [`park`], other workers and other threads may schedule tasks. A
//! design whose `park` does not look again for work that came meanwhile loses that wake; the
//! simulator and the shuttle battery both let such wakes come.
//!
//! [`schedule`]: SchedulerDesign::schedule
//! [`next_task`]: SchedulerDesign::next_task
//! [`next_lifo_task`]: SchedulerDesign::next_lifo_task
//! [`tick`]: SchedulerDesign::tick
//! [`park`]: SchedulerDesign::park

use std::fmt;

use super::{SchedulerConfig, TaskId};
use crate::sync::Primitives;
pub use crate::timer::DesignMetric;

/// Where a scheduled task went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Into the scheduling worker's LIFO slot (Go's `runnext`); `displaced` says whether an
    /// occupant moved to its queue.
    Lifo { displaced: bool },
    /// To the back of the scheduling worker's local queue; `overflowed` tasks moved on to the
    /// global queue.
    LocalQueue { overflowed: usize },
    /// Into the global (inject) queue.
    Inject,
    /// To the back of `worker`'s own queue, whoever scheduled it: a design that keeps each task
    /// on one worker.
    Pinned { worker: usize },
}

/// Where a worker found the task it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Lifo,
    LocalQueue,
    Inject,
    Stolen { victim: usize },
}

/// What a worker that found nothing to do does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Park {
    /// It took the driver, and blocks in it until an event, a timer or a notification.
    OnDriver,
    /// Another worker holds the driver; it sleeps until notified.
    Asleep,
    /// Work came since its search: it searches again instead of parking.
    WorkPending,
}

/// What a design promises about a runnable task's wait, which every run holds it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchedulerPromise {
    /// No runnable task waits past the starvation threshold while a worker of its runtime sits
    /// parked the whole time: idle workers find queued work.
    WorkConserving,
    /// A task runs only on the worker it was placed on: it may wait while other workers idle,
    /// but never while its own worker sits parked.
    OwnWorker,
}

/// One runtime's scheduler. Workers are numbered `0..workers()`.
pub trait SchedulerDesign: Send {
    fn workers(&self) -> usize;

    /// Schedules a woken or spawned task. `from` is the worker of this runtime whose thread did
    /// it, if any; a wake from anywhere else (another runtime, a blocking thread, the network)
    /// has none. `yielded` is a task that gave its worker up on purpose (`yield_now`). Returns
    /// where it went and which parked worker to notify, if any.
    fn schedule(
        &mut self,
        task: TaskId,
        from: Option<usize>,
        yielded: bool,
    ) -> (Placement, Option<usize>);

    /// Starts `worker`'s next scheduler tick at `now_ns` (the runtime's `Instant`). Returns
    /// whether it polls the driver, without blocking, before it takes its next task.
    fn tick(&mut self, worker: usize, now_ns: i64) -> bool;

    /// `worker` found a task to run: the parked worker to notify so that it takes over the
    /// search, if the design does that.
    fn found(&mut self, worker: usize) -> Option<usize> {
        let _ = worker;
        None
    }

    /// How long a task may run on a worker before the scheduler preempts it, if it does (Go's
    /// 10 ms): a `cpu` step still running then is cut, and the task is scheduled again as one
    /// that yielded, with the rest of the step left for its next poll.
    fn time_slice_ns(&self) -> Option<u64> {
        None
    }

    /// Whether a task that yields waits until its worker's next driver check (tokio's
    /// `yield_now` since 1.24), instead of being scheduled again at once with `yielded` set.
    fn defers_yields(&self) -> bool {
        false
    }

    /// The task `worker` runs next, and where it found it; `random_start` (`0..workers`) picks
    /// the first victim of a steal.
    fn next_task(&mut self, worker: usize, random_start: usize) -> Option<(TaskId, Source)>;

    /// After a task's poll on `worker`: a task to poll at once, in the same tick, such as a LIFO
    /// slot's. `budget_left` is whether tokio's cooperative budget for the tick has polls left;
    /// `tick_ran_ns` is how long the worker has run since the tick began.
    fn next_lifo_task(
        &mut self,
        worker: usize,
        budget_left: bool,
        tick_ran_ns: u64,
    ) -> Option<TaskId> {
        let _ = (worker, budget_left, tick_ran_ns);
        None
    }

    /// `worker` found nothing to do, and parks, unless work came since its search.
    fn park(&mut self, worker: usize) -> Park;

    /// `worker` starts a zero-timeout park (a driver check): wakes until
    /// [`end_park_check`](Self::end_park_check) notify nobody.
    fn begin_park_check(&mut self, worker: usize) {
        let _ = worker;
    }

    /// The check is over: the parked worker to notify, if `worker` now has more work than it
    /// can run alone.
    fn end_park_check(&mut self, worker: usize) -> Option<usize> {
        if self.should_notify_others(worker) {
            self.worker_to_notify()
        } else {
            None
        }
    }

    /// `worker` runs again: notified, or its driver returned. It gives the driver back.
    fn unpark(&mut self, worker: usize);

    /// The worker blocking in the driver, if any.
    fn driver_holder(&self) -> Option<usize>;

    /// After a driver poll that woke tasks onto `worker`: whether another worker should be
    /// notified to share them.
    fn should_notify_others(&self, worker: usize) -> bool;

    /// The parked worker a notification wakes.
    fn worker_to_notify(&self) -> Option<usize>;

    /// `worker` is about to block its thread (`block_in_place`): tasks only it could run move
    /// where others can. Returns whether a task moved.
    fn hand_off_lifo(&mut self, worker: usize) -> bool {
        let _ = worker;
        false
    }

    /// What traces call the slot [`Placement::Lifo`] fills: tokio's "LIFO slot", Go's
    /// "runnext".
    fn slot_name(&self) -> &'static str {
        "LIFO slot"
    }

    /// Tasks waiting for `worker` alone (its queue and slot).
    fn queued(&self, worker: usize) -> usize;

    /// Tasks in the global queue.
    fn injected(&self) -> usize;

    /// The value of the metric named `name`, one of those its [`BuildScheduler::METRICS`]
    /// declares, read once at the end of a run. A declared metric it does not answer fails the
    /// run.
    fn metric(&self, name: &str) -> Option<u64> {
        let _ = name;
        None
    }
}

impl fmt::Debug for dyn SchedulerDesign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchedulerDesign")
            .field("workers", &self.workers())
            .field("injected", &self.injected())
            .finish_non_exhaustive()
    }
}

/// A scheduler design scenario files can name with `scheduler = "..."`.
///
/// `KEYS` are the runtime keys it reads, of `lifo_slot`, `global_queue_interval` and
/// `event_interval`; a file that sets another is refused. [`defaults`](Self::defaults) gives the
/// values for the keys a file leaves out, so a design keeps its own (tokio's current-thread
/// scheduler checks its global queue every 31 ticks, the multi-thread one every 61).
pub trait BuildScheduler: 'static {
    const NAME: &'static str;
    const ABOUT: &'static str;
    const KEYS: &'static [&'static str];
    /// The most workers a runtime of this design may have.
    const MAX_WORKERS: usize = 1024;
    const PROMISE: SchedulerPromise = SchedulerPromise::WorkConserving;
    /// Metrics of its own, added to the executor's summary and `[expect]`, summed over the
    /// runtimes that run it.
    const METRICS: &'static [DesignMetric] = &[];

    type Design<S: Primitives>: SchedulerDesign;

    fn defaults(workers: usize) -> SchedulerConfig;

    fn build<S: Primitives>(config: &SchedulerConfig) -> Self::Design<S>;
}
