//! Go's runtime scheduler, from `runtime/proc.go` (Go 1.22 to 1.25):
//! - a goroutine readied or started by a P goes to its `runnext`; the one it displaces goes to
//!   the back of the P's local run queue, 256 slots, whose overflow moves half of it, with the
//!   new one, to the global queue (`runqput`, `runqputslow`); then `wakep` starts a spinning M
//!   for an idle P;
//! - goroutines the netpoller readies go to the global queue while Ps are idle, and each idle P
//!   is started (`injectglist`); those readied off any P go there too;
//! - `Gosched` puts the goroutine on the global queue, and wakes nobody;
//! - `schedule` takes one goroutine from the global queue first every 61st schedule tick, then
//!   `runnext`, then the local queue, then a batch from the global queue
//!   (`min(len/GOMAXPROCS + 1, 128)`), then polls the netpoller without blocking, then steals half
//!   a random P's queue, four times round, taking a P's `runnext` only on the last round;
//! - a goroutine that runs past 10 ms (`forcePreemptNS`) is preempted by sysmon (asynchronously
//!   since Go 1.14) and put on the global queue (`gopreempt_m`);
//! - a goroutine run from `runnext` inherits the time slice and does not count a tick, so a pair
//!   readying each other shares one slice: past 10 ms (`forcePreemptNS`) sysmon ends it, and
//!   here the `runnext` goroutine then goes to the back of the queue;
//! - sysmon polls the netpoller when nobody has for 10 ms: here at the next schedule tick of any
//!   P after that, as sysmon's thread is not modelled on its own;
//! - a P that finds nothing gives itself up, looks at every queue once more, and the first M to
//!   find nothing blocks in the netpoller; the others sleep (`stopm`).
//!
//! Left out: the cap on spinning Ms (a search takes no time here), and sysmon's own thread:
//! its preemption and netpoll checks land at the 10 ms marks, where sysmon's sleep of 20 µs to
//! 10 ms would notice them up to that much later.

use super::super::design::DesignMetric;
use super::super::idle_workers::IdleWorkers;
use super::super::{
    BuildScheduler, Inject, LOCAL_QUEUE_CAPACITY, LifoSlot, LocalQueue, Park, Placement,
    SchedulerConfig, SchedulerDesign, Source, TaskId,
};
use crate::sync::Primitives;

/// The global queue comes first every this many schedule ticks.
pub const GO_GLOBAL_QUEUE_INTERVAL: u32 = 61;
/// A time slice, and sysmon's netpoll period: `forcePreemptNS`, and `lastpoll + 10ms`.
pub const GO_TIME_SLICE_NS: i64 = 10_000_000;

/// One Go process's Ps.
#[derive(Debug)]
pub struct GoRuntime<S: Primitives> {
    config: SchedulerConfig,
    global: Inject<S>,
    runqs: Vec<LocalQueue<S>>,
    runnexts: Vec<LifoSlot<S>>,
    schedticks: Vec<u32>,
    /// Ps inside a netpoll: what they ready goes through `injectglist`.
    in_netpoll: Vec<bool>,
    last_netpoll_ns: i64,
    idle: IdleWorkers,
    /// Goroutines an idle P took from another P's `runnext`; a cell, as stealing reads `&self`.
    runnext_steals: std::cell::Cell<u64>,
}

impl<S: Primitives> GoRuntime<S> {
    pub fn new(config: SchedulerConfig) -> Self {
        let workers = config.workers.max(1);
        GoRuntime {
            config,
            global: Inject::new(),
            runqs: (0..workers).map(|_| LocalQueue::new()).collect(),
            runnexts: (0..workers).map(|_| LifoSlot::new()).collect(),
            schedticks: vec![0; workers],
            in_netpoll: vec![false; workers],
            last_netpoll_ns: 0,
            idle: IdleWorkers::default(),
            runnext_steals: std::cell::Cell::new(0),
        }
    }

    /// `globrunqget`: one to run, and a batch into the P's queue.
    fn global_batch(&self, worker: usize) -> Option<(TaskId, Source)> {
        let batch = (self.global.len() / self.runqs.len() + 1).min(LOCAL_QUEUE_CAPACITY / 2);
        let mut tasks = self.global.pop_batch(batch).into_iter();
        let first = tasks.next()?;
        for task in tasks {
            self.runqs[worker].push_back_or_overflow(task, &self.global);
        }
        Some((first, Source::Inject))
    }

    /// `stealWork`: half of a random P's queue; `runnext` only on the last of four rounds,
    /// which, with nothing changing meanwhile, is the second look here.
    fn steal(&self, worker: usize, random_start: usize) -> Option<(TaskId, Source)> {
        let workers = self.runqs.len();
        let victims = (0..workers)
            .map(|offset| (random_start + offset) % workers)
            .filter(|&victim| victim != worker);
        for victim in victims.clone() {
            if let Some(task) = self.runqs[victim].steal_into(&self.runqs[worker]) {
                return Some((task, Source::Stolen { victim }));
            }
        }
        let stolen = victims
            .into_iter()
            .find_map(|victim| self.runnexts[victim].take().map(|task| (task, victim)));
        if stolen.is_some() {
            self.runnext_steals.set(self.runnext_steals.get() + 1);
        }
        stolen.map(|(task, victim)| (task, Source::Stolen { victim }))
    }

    fn any_work(&self) -> bool {
        !self.global.is_empty()
            || self.runqs.iter().any(|runq| !runq.is_empty())
            || self.runnexts.iter().any(|runnext| !runnext.is_empty())
    }
}

impl<S: Primitives> SchedulerDesign for GoRuntime<S> {
    fn workers(&self) -> usize {
        self.runqs.len()
    }

    fn schedule(
        &mut self,
        task: TaskId,
        from: Option<usize>,
        yielded: bool,
    ) -> (Placement, Option<usize>) {
        match from {
            Some(_) if yielded => {
                self.global.push(task);
                (Placement::Inject, None)
            }
            Some(worker) if !self.in_netpoll[worker] => {
                let displaced = self.runnexts[worker].put(task);
                if let Some(previous) = displaced {
                    self.runqs[worker].push_back_or_overflow(previous, &self.global);
                }
                let placement = Placement::Lifo {
                    displaced: displaced.is_some(),
                };
                (placement, self.idle.last())
            }
            _ => {
                self.global.push(task);
                (Placement::Inject, self.idle.last())
            }
        }
    }

    fn tick(&mut self, worker: usize, now_ns: i64) -> bool {
        self.schedticks[worker] = self.schedticks[worker].wrapping_add(1);
        let netpoll_due = now_ns.saturating_sub(self.last_netpoll_ns) >= GO_TIME_SLICE_NS;
        if netpoll_due {
            self.last_netpoll_ns = now_ns;
        }
        netpoll_due
    }

    fn slot_name(&self) -> &'static str {
        "runnext"
    }

    fn time_slice_ns(&self) -> Option<u64> {
        Some(GO_TIME_SLICE_NS as u64)
    }

    fn next_task(&mut self, worker: usize, random_start: usize) -> Option<(TaskId, Source)> {
        let fair_tick =
            self.schedticks[worker].is_multiple_of(self.config.global_queue_interval.max(1));
        if fair_tick && let Some(task) = self.global.pop() {
            return Some((task, Source::Inject));
        }
        if let Some(task) = self.runnexts[worker].take() {
            return Some((task, Source::Lifo));
        }
        if let Some(task) = self.runqs[worker].pop() {
            return Some((task, Source::LocalQueue));
        }
        self.global_batch(worker)
            .or_else(|| self.steal(worker, random_start))
    }

    fn next_lifo_task(
        &mut self,
        worker: usize,
        _budget_left: bool,
        tick_ran_ns: u64,
    ) -> Option<TaskId> {
        let task = self.runnexts[worker].take()?;
        if tick_ran_ns >= GO_TIME_SLICE_NS as u64 {
            self.runqs[worker].push_back_or_overflow(task, &self.global);
            return None;
        }
        Some(task)
    }

    fn park(&mut self, worker: usize) -> Park {
        if self.any_work() {
            return Park::WorkPending;
        }
        let park = self.idle.park(worker);
        self.in_netpoll[worker] = park == Park::OnDriver;
        park
    }

    fn begin_park_check(&mut self, worker: usize) {
        self.in_netpoll[worker] = true;
    }

    fn end_park_check(&mut self, worker: usize) -> Option<usize> {
        self.in_netpoll[worker] = false;
        None
    }

    fn unpark(&mut self, worker: usize) {
        self.in_netpoll[worker] = false;
        self.idle.unpark(worker);
    }

    fn driver_holder(&self) -> Option<usize> {
        self.idle.driver_holder()
    }

    fn should_notify_others(&self, _worker: usize) -> bool {
        // `injectglist` started the idle Ps as it queued.
        false
    }

    fn worker_to_notify(&self) -> Option<usize> {
        self.idle.last()
    }

    fn hand_off_lifo(&mut self, worker: usize) -> bool {
        // A P whose M blocks in a syscall is handed off with its queues (`handoffp`); here its
        // `runnext` moves to its queue, where an idle P steals it.
        match self.runnexts[worker].take() {
            Some(task) => {
                self.runqs[worker].push_back_or_overflow(task, &self.global);
                true
            }
            None => false,
        }
    }

    fn queued(&self, worker: usize) -> usize {
        self.runqs[worker].len() + usize::from(!self.runnexts[worker].is_empty())
    }

    fn injected(&self) -> usize {
        self.global.len()
    }

    fn metric(&self, name: &str) -> Option<u64> {
        (name == RUNNEXT_STEALS.name).then(|| self.runnext_steals.get())
    }
}

/// Go's own metric.
pub const RUNNEXT_STEALS: DesignMetric = DesignMetric::new(
    "runnext_steals",
    "goroutines an idle P took from another P's runnext, on its last steal round",
);

/// `scheduler = "go"`.
#[derive(Debug)]
pub struct GoScheduler;

impl BuildScheduler for GoScheduler {
    const NAME: &'static str = "go";
    const ABOUT: &'static str = "Go's runtime: runnext, a 256-slot run queue per P, the global queue every 61st tick, the netpoller";
    const KEYS: &'static [&'static str] = &["global_queue_interval"];
    const METRICS: &'static [DesignMetric] = &[RUNNEXT_STEALS];
    type Design<S: Primitives> = GoRuntime<S>;

    fn defaults(workers: usize) -> SchedulerConfig {
        SchedulerConfig {
            lifo_slot: true,
            global_queue_interval: GO_GLOBAL_QUEUE_INTERVAL,
            ..SchedulerConfig::tokio(workers)
        }
    }

    fn build<S: Primitives>(config: &SchedulerConfig) -> GoRuntime<S> {
        GoRuntime::new(*config)
    }
}
