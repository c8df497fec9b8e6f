//! Binds the executor model into the world.
//!
//! Every worker and blocking thread is a thread on the machine's [`Cores`](ticklab_sim::Cores): a
//! `cpu` step asks its thread for CPU time, and the step goes on when the cores have given it all.
//! Everything else a task does (queueing, waking, polling the driver) takes no time. The
//! scheduling decisions are the runtime's scheduler design's ([`SchedulerDesign`]), made on the
//! same concurrent queues the shuttle and loom checks exercise.
//!
//! An `io` step hands its request to the connection's own task, which runs on the runtime that
//! opened the connection. That task sends the request when polled; the reply reaches the owning
//! runtime's driver, is noticed when one of its workers polls the driver, and the connection task
//! then wakes the requester. A runtime whose workers are all busy therefore delays both the send
//! and the notice, whichever runtime asked.

mod blocking;
mod polls;
mod requests;
mod steps;
mod summary;
mod unfinished;
mod workers;

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use ticklab_models::executor::{
    Driver, Park, Placement, SchedulerDesign, SchedulerPromise, Source, TaskId,
};
use ticklab_models::interval::{IntervalCore, MissedTick};
use ticklab_sim::{CoreTime, CpuKind, SimRng, ThreadId};

use super::arrivals::Arrivals;
use super::pool::{Checkout, ConnectionId, Pools};
use super::spec::{ExecutorConfig, RuntimeConfig, Step};
use super::stats::ExecutorStats;
use super::tasks::{ConnectionState, Queued, Request, TaskKind, Tasks};
use super::work::{BYTES_PER_REQUEST, BYTES_PER_TASK, REQUESTS, TASKS, check_work, peak_footprint};
use super::{
    BlockingEvent, DriverPollEvent, IoEvent, IoTimeoutEvent, ParkEvent, PollEvent, SpawnEvent,
    StarvationEvent, TaskDoneEvent, TimerEvent,
};
use crate::machine::{Binding, Machine, MachineReport, drive, physical};
use crate::memory::Footprint;
use crate::runner::error::RunError;
use crate::runner::options::RunOptions;
use crate::runner::start::{Plan, begin, world_config};
use crate::scenario::setting::Setting;
use crate::trace::{Event, Summary, TraceSink};

/// tokio's cooperative budget: a worker's polls from one scheduler tick, LIFO chain included,
/// may consume this many resource operations. Each poll here consumes one.
const COOP_BUDGET: u32 = 128;

/// What a wake in the world is for.
#[derive(Clone, Copy, Debug)]
enum Wake {
    /// The next instance of a group arrives.
    Arrival { group: u32 },
    /// A request's reply reached its connection's socket.
    Reply { connection: u32 },
    /// A worker goes on: looks for its next task, or (parked on the driver) its timed block
    /// ended. Stale if its generation has moved on.
    Worker {
        runtime: u32,
        worker: u32,
        generation: u32,
    },
    /// A thread blocked in a `block` step runs again.
    Unblocked { thread: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WorkerState {
    /// A `Worker` wake is pending; it will look for its next task.
    Ready,
    /// Its search found nothing; a `Worker` wake is pending for it to park. Other wakes at the
    /// same instant come first, as they race a real worker's way into its park.
    Parking,
    /// Its thread is running a `cpu` step of `task`; the poll goes on when the step is done.
    Polling {
        task: TaskId,
        budget: u32,
    },
    Parked {
        on_driver: bool,
    },
    /// Its thread went into `block_in_place` and the blocking pool, at its limit, has not yet
    /// started the thread that takes over its core.
    AwaitingThread,
}

#[derive(Debug)]
struct Worker {
    thread: ThreadId,
    state: WorkerState,
    generation: u32,
    parked_since_ns: u64,
    /// When the task it polls now was taken: how long its tick has run.
    tick_started_ns: u64,
    /// Its last finished park, from and to.
    last_park_ns: Option<(u64, u64)>,
    /// Its thread's core time when the current `cpu` step started.
    cpu_mark: CoreTime,
    /// Tasks that yielded on this worker. tokio defers their wake to the worker's next park or
    /// zero-timeout driver check, so the tasks already queued run before them.
    deferred: Vec<TaskId>,
    name: Arc<str>,
}

/// Who a thread on the cores works for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ThreadOwner {
    Worker {
        runtime: usize,
        worker: usize,
    },
    /// A blocking-pool thread running `task`'s `spawn_blocking` closure.
    Blocking {
        runtime: usize,
        task: TaskId,
    },
    /// `worker`'s former thread running `task`'s `block_in_place` section, its core handed on.
    InPlace {
        runtime: usize,
        worker: usize,
        task: TaskId,
    },
    /// A thread that left its worker for `block_in_place` going on with `task`'s poll without a
    /// core; it returns to the blocking pool when the task next suspends.
    Coreless {
        runtime: usize,
        task: TaskId,
    },
    /// An idle blocking-pool thread.
    Spare,
}

/// Work waiting for a blocking-pool thread once the pool is at its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PoolJob {
    /// A `spawn_blocking` closure.
    Blocking { task: TaskId, ns: u64 },
    /// The thread that takes over a worker's core after `block_in_place`.
    Worker { worker: usize },
}

/// Where a poll runs: on a worker, or on a thread that gave its core away in `block_in_place`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum On {
    Worker {
        runtime: usize,
        worker: usize,
        budget: u32,
    },
    Thread {
        runtime: usize,
        thread: ThreadId,
    },
}

impl On {
    /// The worker whose wakes stay local, if any.
    fn worker(self) -> Option<(usize, usize)> {
        match self {
            On::Worker {
                runtime, worker, ..
            } => Some((runtime, worker)),
            On::Thread { .. } => None,
        }
    }

    fn runtime(self) -> usize {
        match self {
            On::Worker { runtime, .. } | On::Thread { runtime, .. } => runtime,
        }
    }
}

#[derive(Debug)]
struct Runtime {
    scheduler: Box<dyn SchedulerDesign>,
    promise: SchedulerPromise,
    driver: Driver,
    workers: Vec<Worker>,
    /// Blocking-pool threads with nothing to do, and how many the pool has started beyond the
    /// workers' own. tokio caps the pool at the workers plus `blocking_threads`.
    idle_threads: Vec<ThreadId>,
    blocking_started: usize,
    blocking_limit: usize,
    pool_queue: VecDeque<PoolJob>,
    name: Arc<str>,
}

/// Sets `thread`'s owner; the machine numbers every thread on it, the outside load's included, so
/// the table may have gaps.
fn set(owners: &mut Vec<ThreadOwner>, thread: ThreadId, owner: ThreadOwner) {
    let index = thread.0 as usize;
    if owners.len() <= index {
        owners.resize(index + 1, ThreadOwner::Spare);
    }
    owners[index] = owner;
}

fn owner_of(owners: &[ThreadOwner], thread: ThreadId) -> ThreadOwner {
    owners
        .get(thread.0 as usize)
        .copied()
        .unwrap_or(ThreadOwner::Spare)
}

#[derive(Clone, Copy, Debug)]
struct ConnectionSlot {
    task: TaskId,
    state: ConnectionState,
}

pub(crate) fn run(
    scenario: &Setting,
    config: &ExecutorConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let plan = Plan {
        steps: check_work(scenario, config, options)?,
        peak: peak_footprint::<Wake>(scenario, config),
        design: "executor".to_string(),
        fewer_by: "lower the task groups' `count` or `repeat`",
    };
    let mut started = begin::<crate::executor::ExecutorModel>(
        scenario,
        config,
        seed,
        options,
        plan,
        Vec::new(),
        sink,
    )?;
    let mut machine = Machine::new(world_config(scenario), &scenario.machine, seed);
    let run = ExecutorRun::new(config, seed, &mut machine, sink);
    drive(machine, run, &mut started.watchdog)
}

impl Binding for ExecutorRun<'_> {
    type Wake = Wake;

    fn on_wake(&mut self, wake: Wake, m: &mut Machine<Wake>) -> Result<(), RunError> {
        Ok(self.wake(m, wake)?)
    }

    fn on_cpu_done(&mut self, thread: ThreadId, m: &mut Machine<Wake>) -> Result<(), RunError> {
        Ok(self.thread_finished(m, thread)?)
    }

    fn footprint(&self) -> Footprint {
        Footprint::new()
            .with(TASKS, self.tasks.len() as u128, BYTES_PER_TASK)
            .with(REQUESTS, self.requests.len() as u128, BYTES_PER_REQUEST)
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        self.sink
    }

    fn finish(
        &mut self,
        m: &mut Machine<Wake>,
        report: &MachineReport,
    ) -> Result<Summary, RunError> {
        let own = self.scheduler_metrics()?;
        Ok(self.summary(m, report, &own)?)
    }
}

struct ExecutorRun<'a> {
    config: &'a ExecutorConfig,
    owners: Vec<ThreadOwner>,
    /// When each thread's current blocking section started, for its trace event.
    blocking_since_ns: Vec<u64>,
    /// Threads blocked in a `block` step now, by thread.
    blocked: Vec<bool>,
    runtimes: Vec<Runtime>,
    tasks: Tasks,
    pools: Pools,
    connections: Vec<ConnectionSlot>,
    requests: Vec<Request>,
    arrivals: Vec<Arrivals>,
    steal_start: SimRng,
    latency: SimRng,
    stats: ExecutorStats,
    wants_events: bool,
    sink: &'a mut dyn TraceSink,
}

/// Runtime `index`: its workers' threads on the machine, each due to look for work at the start.
fn start_runtime(
    index: usize,
    runtime: &RuntimeConfig,
    world: &mut Machine<Wake>,
    owners: &mut Vec<ThreadOwner>,
) -> Runtime {
    let workers = (0..runtime.scheduler.workers)
        .map(|worker| {
            let name: Arc<str> = format!("{}-{worker}", runtime.name).into();
            let thread = world.add_thread(name.to_string());
            set(
                owners,
                thread,
                ThreadOwner::Worker {
                    runtime: index,
                    worker,
                },
            );
            world.wake_at_physical(
                0,
                Wake::Worker {
                    runtime: index as u32,
                    worker: worker as u32,
                    generation: 0,
                },
            );
            Worker {
                thread,
                state: WorkerState::Ready,
                generation: 0,
                parked_since_ns: 0,
                tick_started_ns: 0,
                last_park_ns: None,
                cpu_mark: CoreTime::default(),
                deferred: Vec::new(),
                name,
            }
        })
        .collect();
    Runtime {
        scheduler: runtime.design.build(&runtime.scheduler),
        promise: runtime.design.promise,
        driver: Driver::of(runtime.driver),
        workers,
        idle_threads: Vec::new(),
        blocking_started: 0,
        blocking_limit: runtime.blocking_threads,
        pool_queue: VecDeque::new(),
        name: runtime.name.as_str().into(),
    }
}

/// Each group's arrivals, with its first one filed.
fn first_arrivals(config: &ExecutorConfig, seed: u64, world: &mut Machine<Wake>) -> Vec<Arrivals> {
    config
        .groups
        .iter()
        .enumerate()
        .map(|(index, group)| {
            let mut arrivals = Arrivals::new(group, seed);
            if let Some(at_ns) = arrivals.next_ns() {
                world.wake_at_physical(
                    at_ns,
                    Wake::Arrival {
                        group: index as u32,
                    },
                );
            }
            arrivals
        })
        .collect()
}

impl<'a> ExecutorRun<'a> {
    fn new(
        config: &'a ExecutorConfig,
        seed: u64,
        world: &mut Machine<Wake>,
        sink: &'a mut dyn TraceSink,
    ) -> Self {
        let mut owners = Vec::new();
        let runtimes = config
            .runtimes
            .iter()
            .enumerate()
            .map(|(index, runtime)| start_runtime(index, runtime, world, &mut owners))
            .collect::<Vec<_>>();
        let arrivals = first_arrivals(config, seed, world);
        let group_names: Vec<String> = config.groups.iter().map(|g| g.name.clone()).collect();
        let workers: Vec<usize> = runtimes.iter().map(|r| r.workers.len()).collect();
        ExecutorRun {
            config,
            owners,
            blocking_since_ns: Vec::new(),
            blocked: Vec::new(),
            runtimes,
            tasks: Tasks::default(),
            pools: Pools::new(&config.pools, config.runtimes.len()),
            connections: Vec::new(),
            requests: Vec::new(),
            arrivals,
            steal_start: SimRng::for_purpose(seed, "executor-steal-start"),
            latency: SimRng::for_purpose(seed, "executor-io-latency"),
            stats: ExecutorStats::new(&group_names, &workers),
            wants_events: sink.wants_events(),
            sink,
        }
    }

    fn now_ns(&self, m: &Machine<Wake>) -> u64 {
        m.now_ns()
    }

    fn wake(&mut self, m: &mut Machine<Wake>, wake: Wake) -> io::Result<()> {
        match wake {
            Wake::Arrival { group } => self.arrival(m, group as usize),
            Wake::Reply { connection } => self.reply(m, ConnectionId(connection)),
            Wake::Unblocked { thread } => self.unblocked(m, ThreadId(thread)),
            Wake::Worker {
                runtime,
                worker,
                generation,
            } => {
                let (runtime, worker) = (runtime as usize, worker as usize);
                let current = &self.runtimes[runtime].workers[worker];
                if current.generation != generation {
                    return Ok(());
                }
                match current.state {
                    WorkerState::Ready => self.find_work(m, runtime, worker),
                    WorkerState::Parking => self.park(m, runtime, worker),
                    WorkerState::Parked { on_driver: true } => {
                        // Its timed block in the driver ended: a timer is due.
                        self.unpark(m, runtime, worker)?;
                        self.find_work(m, runtime, worker)
                    }
                    WorkerState::Parked { on_driver: false }
                    | WorkerState::Polling { .. }
                    | WorkerState::AwaitingThread => Ok(()),
                }
            }
        }
    }
}
