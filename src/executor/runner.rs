//! Binds the executor model into the world.
//!
//! Every worker and blocking thread is a thread on the machine's [`Cores`]: a `cpu` step asks its
//! thread for CPU time, and the step goes on when the cores have given it all. Everything else a
//! task does (queueing, waking, polling the driver) takes no time. The scheduling decisions are
//! the [`Scheduler`]'s, made on the same concurrent queues the shuttle and loom checks exercise.
//!
//! An `io` step hands its request to the connection's own task, which runs on the runtime that
//! opened the connection. That task sends the request when polled; the reply reaches the owning
//! runtime's driver, is noticed when one of its workers polls the driver, and the connection task
//! then wakes the requester. A runtime whose workers are all busy therefore delays both the send
//! and the notice, whichever runtime asked.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use ticklab_models::executor::{Driver, Park, Placement, Scheduler, Source, TaskId};
use ticklab_models::interval::{IntervalCore, MissedTick};
use ticklab_models::sync::StdPrimitives;
use ticklab_sim::{CoreTime, CpuKind, SimRng, ThreadId};

use super::arrivals::Arrivals;
use super::pool::{Checkout, ConnectionId, Pools};
use super::spec::{ExecutorConfig, Step};
use super::stats::ExecutorStats;
use super::tasks::{ConnectionState, Queued, Request, TaskKind, Tasks};
use super::work::check_work;
use super::{
    BlockingEvent, DriverPollEvent, IoEvent, ParkEvent, PollEvent, SpawnEvent, StarvationEvent,
    TaskDoneEvent, TimerEvent,
};
use crate::machine::{Binding, Machine, MachineReport, drive, physical};
use crate::run::{RunError, RunOptions, Watchdog, start_event, world_config};
use crate::scenario::Scenario;
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
    scheduler: Scheduler<StdPrimitives>,
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
    scenario: &Scenario,
    config: &ExecutorConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let bound = check_work(scenario, config, options)?;
    let mut machine = Machine::new(world_config(scenario), &scenario.machine, seed);
    sink.record(&Event::Start(&start_event(scenario, seed)))?;
    let run = ExecutorRun::new(config, seed, &mut machine, sink);
    drive(machine, run, &mut Watchdog::new(bound, "executor"))
}

impl Binding for ExecutorRun<'_> {
    type Wake = Wake;

    fn on_wake(&mut self, wake: Wake, m: &mut Machine<Wake>) -> Result<(), RunError> {
        Ok(self.wake(m, wake)?)
    }

    fn on_cpu_done(&mut self, thread: ThreadId, m: &mut Machine<Wake>) -> Result<(), RunError> {
        Ok(self.thread_finished(m, thread)?)
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        self.sink
    }

    fn finish(
        &mut self,
        m: &mut Machine<Wake>,
        report: &MachineReport,
    ) -> Result<Summary, RunError> {
        Ok(self.summary(m, report)?)
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

impl<'a> ExecutorRun<'a> {
    fn new(
        config: &'a ExecutorConfig,
        seed: u64,
        world: &mut Machine<Wake>,
        sink: &'a mut dyn TraceSink,
    ) -> Self {
        let mut owners = Vec::new();
        let mut runtimes = Vec::with_capacity(config.runtimes.len());
        for (index, runtime) in config.runtimes.iter().enumerate() {
            let workers = (0..runtime.scheduler.workers)
                .map(|worker| {
                    let name: Arc<str> = format!("{}-{worker}", runtime.name).into();
                    let thread = world.add_thread(name.to_string());
                    set(
                        &mut owners,
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
                        last_park_ns: None,
                        cpu_mark: CoreTime::default(),
                        deferred: Vec::new(),
                        name,
                    }
                })
                .collect();
            runtimes.push(Runtime {
                scheduler: Scheduler::new(runtime.scheduler),
                driver: Driver::new(),
                workers,
                idle_threads: Vec::new(),
                blocking_started: 0,
                blocking_limit: runtime.blocking_threads,
                pool_queue: VecDeque::new(),
                name: runtime.name.as_str().into(),
            });
        }
        let mut arrivals = Vec::with_capacity(config.groups.len());
        for (index, group) in config.groups.iter().enumerate() {
            let mut group_arrivals = Arrivals::new(group, seed);
            if let Some(at_ns) = group_arrivals.next_ns() {
                world.wake_at_physical(
                    at_ns,
                    Wake::Arrival {
                        group: index as u32,
                    },
                );
            }
            arrivals.push(group_arrivals);
        }
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

    fn arrival(&mut self, m: &mut Machine<Wake>, group: usize) -> io::Result<()> {
        if let Some(at_ns) = self.arrivals[group].next_ns() {
            m.wake_at(
                physical(at_ns),
                Wake::Arrival {
                    group: group as u32,
                },
            );
        }
        let task = self.start_instance(m, group);
        // From outside the runtime: the inject queue.
        self.wake_task(m, task, None, false)
    }

    fn start_instance(&mut self, m: &mut Machine<Wake>, group: usize) -> TaskId {
        let stats = &mut self.stats.groups[group];
        stats.started += 1;
        let kind = TaskKind::Group {
            group,
            instance: stats.started as u32,
        };
        let runtime = self.config.groups[group].runtime;
        self.tasks.add(kind, runtime, m.now_ns())
    }

    /// Schedules a woken task on its runtime. `from` is the worker whose thread wakes it, if
    /// any: a wake from a worker of the task's own runtime stays on that worker.
    fn wake_task(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        from: Option<(usize, usize)>,
        yielded: bool,
    ) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let state = self.tasks.get_mut(task);
        if state.finished || state.runnable.is_some() {
            // Already queued: a second wake coalesces with the first, as tokio's task state does.
            return Ok(());
        }
        let runtime = state.runtime;
        let local = from.filter(|(from_runtime, _)| *from_runtime == runtime);
        let (placement, notify) = self.runtimes[runtime].scheduler.schedule(
            task,
            local.map(|(_, worker)| worker),
            yielded,
        );
        let queued = match (placement, local) {
            (Placement::Lifo { .. }, Some((_, worker))) => Queued::Lifo { worker },
            (Placement::LocalQueue { .. }, Some((_, worker))) => Queued::Local { worker },
            _ => Queued::Inject,
        };
        self.tasks.get_mut(task).runnable = Some((now_ns, queued));
        match notify {
            Some(worker) => self.notify(m, runtime, worker),
            None => Ok(()),
        }
    }

    /// Wakes a parked worker of `runtime` so it looks for work.
    fn notify(&mut self, m: &mut Machine<Wake>, runtime: usize, worker: usize) -> io::Result<()> {
        if !matches!(
            self.runtimes[runtime].workers[worker].state,
            WorkerState::Parked { .. }
        ) {
            return Ok(());
        }
        self.unpark(m, runtime, worker)?;
        self.schedule_worker(m, runtime, worker);
        Ok(())
    }

    /// Files a wake for `worker` to look for work now; any other pending wake of it is void.
    fn schedule_worker(&mut self, m: &mut Machine<Wake>, runtime: usize, worker: usize) {
        let state = &mut self.runtimes[runtime].workers[worker];
        state.state = WorkerState::Ready;
        state.generation = state.generation.wrapping_add(1);
        let wake = Wake::Worker {
            runtime: runtime as u32,
            worker: worker as u32,
            generation: state.generation,
        };
        let now_ns = m.now_ns();
        m.wake_at(physical(now_ns), wake);
    }

    /// A parked worker runs again. One parked on the driver first polls it, as the driver's
    /// park returns only after dispatching what woke it; the tasks it wakes stay on this worker,
    /// and others are notified only if it has more than it can run alone.
    fn unpark(&mut self, m: &mut Machine<Wake>, runtime: usize, worker: usize) -> io::Result<()> {
        let WorkerState::Parked { on_driver } = self.runtimes[runtime].workers[worker].state else {
            return Ok(());
        };
        let woke = if on_driver {
            self.poll_driver(m, runtime, worker, "park")?
        } else {
            0
        };
        let now_ns = self.now_ns(m);
        let rt = &mut self.runtimes[runtime];
        rt.scheduler.unpark(worker);
        let state = &mut rt.workers[worker];
        state.state = WorkerState::Ready;
        self.stats.worker(runtime, worker).parked_ns += now_ns - state.parked_since_ns;
        state.last_park_ns = Some((state.parked_since_ns, now_ns));
        if woke > 0
            && rt.scheduler.should_notify_others(worker)
            && let Some(other) = rt.scheduler.worker_to_notify()
        {
            return self.notify(m, runtime, other);
        }
        Ok(())
    }

    /// Polls `runtime`'s driver from `worker`: ready I/O and expired timers wake their tasks.
    fn poll_driver(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
        when: &'static str,
    ) -> io::Result<u32> {
        let now_ns = self.now_ns(m);
        let instant_ns = m.instant_ns();
        let woken = self.runtimes[runtime].driver.poll(instant_ns);
        self.stats.worker(runtime, worker).driver_polls += 1;
        for &task in &woken {
            if let TaskKind::Connection { connection } = self.tasks.get(task).kind
                && let ConnectionState::Replied { request } =
                    self.connections[connection.0 as usize].state
            {
                self.requests[request].noticed_ns = now_ns;
            }
            self.wake_task(m, task, Some((runtime, worker)), false)?;
        }
        if self.wants_events && !woken.is_empty() {
            let event = DriverPollEvent {
                t_ns: now_ns,
                worker: self.runtimes[runtime].workers[worker].name.clone(),
                woke: woken.len() as u32,
                when,
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(woken.len() as u32)
    }

    /// One scheduler tick of a free worker: maintenance when due, then its next task; out of
    /// tasks, it releases its yielded ones if it holds any, or parks.
    fn find_work(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
    ) -> io::Result<()> {
        if self.runtimes[runtime].scheduler.tick(worker) {
            self.park_check(m, runtime, worker, "maintenance")?;
        }
        let workers = self.runtimes[runtime].workers.len() as u64;
        let start = self.steal_start.in_range(0, workers - 1) as usize;
        match self.runtimes[runtime].scheduler.next_task(worker, start) {
            Some((task, source)) => self.poll(m, runtime, worker, task, source, COOP_BUDGET),
            None if !self.runtimes[runtime].workers[worker].deferred.is_empty() => {
                self.park_check(m, runtime, worker, "yield")?;
                self.schedule_worker(m, runtime, worker);
                Ok(())
            }
            None => self.park(m, runtime, worker),
        }
    }

    /// A park with a zero timeout, as tokio's maintenance and its yield path do: the driver is
    /// polled if no other worker holds it, the yielded tasks are woken, and other workers are
    /// notified once at the end if this one now has more than it can run alone.
    fn park_check(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
        when: &'static str,
    ) -> io::Result<()> {
        self.runtimes[runtime].scheduler.begin_park_check(worker);
        if self.runtimes[runtime].scheduler.driver_holder().is_none() {
            self.poll_driver(m, runtime, worker, when)?;
        }
        self.release_deferred(m, runtime, worker)?;
        match self.runtimes[runtime].scheduler.end_park_check(worker) {
            Some(other) => self.notify(m, runtime, other),
            None => Ok(()),
        }
    }

    /// Wakes the worker's yielded tasks, last first, as ordinary wakes on this worker; each keeps
    /// its runnable time from its yield.
    fn release_deferred(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
    ) -> io::Result<()> {
        let deferred = std::mem::take(&mut self.runtimes[runtime].workers[worker].deferred);
        for task in deferred.into_iter().rev() {
            let since = self.tasks.get_mut(task).runnable.take();
            self.wake_task(m, task, Some((runtime, worker)), false)?;
            if let (Some((yielded_ns, _)), Some((_, queued))) =
                (since, self.tasks.get(task).runnable)
            {
                self.tasks.get_mut(task).runnable = Some((yielded_ns, queued));
            }
        }
        Ok(())
    }

    fn park(&mut self, m: &mut Machine<Wake>, runtime: usize, worker: usize) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let on_driver = self.runtimes[runtime].scheduler.park(worker) == Park::OnDriver;
        {
            let state = &mut self.runtimes[runtime].workers[worker];
            state.state = WorkerState::Parked { on_driver };
            state.parked_since_ns = now_ns;
        }
        if on_driver {
            // The driver is polled on the way in: events that came meanwhile end the park at once.
            let woke = self.poll_driver(m, runtime, worker, "park")?;
            if woke > 0 {
                let rt = &mut self.runtimes[runtime];
                rt.scheduler.unpark(worker);
                let notify = rt
                    .scheduler
                    .should_notify_others(worker)
                    .then(|| rt.scheduler.worker_to_notify())
                    .flatten();
                self.schedule_worker(m, runtime, worker);
                if let Some(other) = notify {
                    self.notify(m, runtime, other)?;
                }
                return Ok(());
            }
            self.arm_driver_timeout(m, runtime);
        }
        if self.wants_events {
            let event = ParkEvent {
                t_ns: now_ns,
                worker: self.runtimes[runtime].workers[worker].name.clone(),
                on_driver,
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// The worker parked on `runtime`'s driver blocks until its earliest timer, on `Instant`.
    fn arm_driver_timeout(&mut self, m: &mut Machine<Wake>, runtime: usize) {
        let rt = &mut self.runtimes[runtime];
        let (Some(holder), Some(deadline_ns)) =
            (rt.scheduler.driver_holder(), rt.driver.next_deadline_ns())
        else {
            return;
        };
        let state = &mut rt.workers[holder];
        if state.state != (WorkerState::Parked { on_driver: true }) {
            return;
        }
        state.generation = state.generation.wrapping_add(1);
        let wake = Wake::Worker {
            runtime: runtime as u32,
            worker: holder as u32,
            generation: state.generation,
        };
        // The parked worker's timed block (`epoll_wait`) ends as the platform's waits end.
        let deadline = m.instant_deadline(deadline_ns);
        m.timed_wake(deadline, wake);
    }

    /// `worker` polls `task`, found at `source`.
    fn poll(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
        task: TaskId,
        source: Source,
        budget: u32,
    ) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let stats = self.stats.worker(runtime, worker);
        stats.polls += 1;
        match source {
            Source::Lifo => stats.lifo_hits += 1,
            Source::Stolen { .. } => stats.steals += 1,
            Source::LocalQueue | Source::Inject => {}
        }
        let (since_ns, queued) = self
            .tasks
            .get_mut(task)
            .runnable
            .take()
            .expect("a task is polled only after a wake queued it");
        let waited_ns = now_ns - since_ns;
        self.note_wait(m, task, waited_ns, queued, Some((runtime, worker)))?;
        if let Some(deadline_ns) = self.tasks.get_mut(task).sleep_deadline_ns.take() {
            self.timer_done(m, task, "sleep", deadline_ns)?;
        }
        if self.wants_events {
            let rt = &self.runtimes[runtime];
            let (source_name, victim) = match source {
                Source::Lifo => ("lifo", None),
                Source::LocalQueue => ("local", None),
                Source::Inject => ("inject", None),
                Source::Stolen { victim } => ("stolen", Some(rt.workers[victim].name.clone())),
            };
            let event = PollEvent {
                t_ns: now_ns,
                worker: rt.workers[worker].name.clone(),
                task: self.label(task),
                source: source_name,
                victim,
                waited_ns,
            };
            self.sink.record(&Event::Model(&event))?;
        }
        if let Some(request) = self.tasks.get_mut(task).request.take() {
            self.io_done(m, task, request)?;
        }
        let on = On::Worker {
            runtime,
            worker,
            budget: budget.saturating_sub(1),
        };
        self.continue_task(m, on, task)
    }

    /// Counts a runnable wait, and reports it if it passed the starvation threshold.
    fn note_wait(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        waited_ns: u64,
        queued: Queued,
        polled_by: Option<(usize, usize)>,
    ) -> io::Result<()> {
        self.stats.max_runnable_wait_ns = self.stats.max_runnable_wait_ns.max(waited_ns);
        if waited_ns <= self.config.starvation_threshold_ns {
            return Ok(());
        }
        self.stats.starvation_events += 1;
        self.check_work_conserving(m, task, waited_ns, queued)?;
        if self.wants_events {
            let event = StarvationEvent {
                t_ns: self.now_ns(m),
                task: self.label(task),
                waited_ns,
                queued: self.describe(task, queued),
                polled_by: polled_by.map(|(r, w)| self.runtimes[r].workers[w].name.clone()),
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// The executor's invariant: a runnable task never waits longer than the starvation threshold
    /// while a worker of its runtime sits parked the whole time. Work it cannot reach (a LIFO
    /// slot, a yielded task held by a busy worker) breaks it, as in tokio #4730.
    fn check_work_conserving(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        waited_ns: u64,
        queued: Queued,
    ) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let since_ns = now_ns - waited_ns;
        let rt = &self.runtimes[self.tasks.get(task).runtime];
        let idle = rt.workers.iter().find(|worker| {
            let parked_now = matches!(worker.state, WorkerState::Parked { .. })
                && worker.parked_since_ns <= since_ns;
            let parked_then = worker
                .last_park_ns
                .is_some_and(|(from_ns, to_ns)| from_ns <= since_ns && to_ns >= now_ns);
            parked_now || parked_then
        });
        let Some(idle) = idle else {
            return Ok(());
        };
        self.stats.invariant_violations += 1;
        let what = format!(
            "{} waited {} in {} while {} sat parked",
            self.label(task),
            ticklab_sim::Approx(waited_ns),
            self.describe(task, queued),
            idle.name
        );
        crate::invariant::report(self.sink, now_ns, self.stats.invariant_violations, what)
    }

    /// Runs `task`'s steps until it suspends, finishes, or starts a `cpu` step.
    fn continue_task(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId) -> io::Result<()> {
        let TaskKind::Group { group, .. } = self.tasks.get(task).kind else {
            self.run_connection(m, on, task)?;
            return self.end_poll(m, on);
        };
        let runtime = on.runtime();
        let group_config = &self.config.groups[group];
        loop {
            let state = self.tasks.get_mut(task);
            if state.step == group_config.steps.len() && state.round + 1 < group_config.repeat {
                state.step = 0;
                state.round += 1;
            }
            let Some(&step) = group_config.steps.get(state.step) else {
                self.task_done(m, task, group)?;
                return self.end_poll(m, on);
            };
            state.step += 1;
            match step {
                Step::Cpu { ns: 0 } => {}
                Step::Cpu { ns } => {
                    self.run_cpu(m, on, task, ns);
                    return Ok(());
                }
                Step::Yield => {
                    match on {
                        On::Worker { worker, .. } => {
                            let now_ns = self.now_ns(m);
                            self.tasks.get_mut(task).runnable =
                                Some((now_ns, Queued::Deferred { worker }));
                            self.runtimes[runtime].workers[worker].deferred.push(task);
                        }
                        // Without a core, the deferred wake comes when the poll ends, from
                        // outside the runtime.
                        On::Thread { .. } => self.wake_task(m, task, None, false)?,
                    }
                    return self.end_poll(m, on);
                }
                Step::Sleep { ns } => {
                    let deadline_ns = m.instant_ns().saturating_add(ns as i64);
                    state.sleep_deadline_ns = Some(deadline_ns);
                    self.runtimes[runtime].driver.sleep_until(deadline_ns, task);
                    // A new earliest timer shortens the parked driver holder's block.
                    self.arm_driver_timeout(m, runtime);
                    return self.end_poll(m, on);
                }
                Step::Tick {
                    period_ns,
                    missed_tick,
                } => {
                    if !self.tick(m, runtime, task, period_ns, missed_tick)? {
                        return self.end_poll(m, on);
                    }
                }
                Step::Block { ns } => {
                    self.block(m, on, task, ns);
                    return Ok(());
                }
                Step::Io { pool, latency_ns } => {
                    self.start_io(m, on, task, pool, latency_ns)?;
                    return self.end_poll(m, on);
                }
                Step::Spawn { group: child } => self.spawn(m, on, task, child)?,
                Step::SpawnBlocking { ns } => {
                    self.spawn_blocking(m, runtime, task, ns);
                    return self.end_poll(m, on);
                }
                Step::BlockInPlace { ns } => match on {
                    On::Worker { worker, .. } => {
                        return self.block_in_place(m, runtime, worker, task, ns);
                    }
                    // Already off the workers: the section just runs.
                    On::Thread { .. } => {
                        self.run_cpu(m, on, task, ns.max(1));
                        return Ok(());
                    }
                },
            }
        }
    }

    /// A `tick` step: `interval.tick().await` on the task's interval, made now if this is its
    /// first tick. Returns whether the tick was ready; if not, the task sleeps in the driver
    /// until the interval's deadline and runs the step again when woken.
    fn tick(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        task: TaskId,
        period_ns: u64,
        missed_tick: MissedTick,
    ) -> io::Result<bool> {
        let instant_ns = m.instant_ns();
        let state = self.tasks.get_mut(task);
        let interval = state.interval.get_or_insert_with(|| {
            IntervalCore::created_at(missed_tick, instant_ns, period_ns as i64)
        });
        if let Some(tick) = interval.tick(instant_ns) {
            self.timer_done(m, task, "tick", tick.deadline_ns)?;
            return Ok(true);
        }
        let deadline_ns = interval.deadline_ns();
        state.step -= 1;
        self.runtimes[runtime].driver.sleep_until(deadline_ns, task);
        self.arm_driver_timeout(m, runtime);
        Ok(false)
    }

    /// A task ran again after its sleep or tick came due: counts and traces how late.
    fn timer_done(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        timer: &'static str,
        deadline_ns: i64,
    ) -> io::Result<()> {
        let TaskKind::Group { group, .. } = self.tasks.get(task).kind else {
            return Ok(());
        };
        let lateness_ns = m.instant_ns().saturating_sub(deadline_ns).max(0) as u64;
        self.stats.groups[group].timer(lateness_ns);
        if self.wants_events {
            let event = TimerEvent {
                t_ns: m.now_ns(),
                task: self.label(task),
                timer,
                deadline_ns,
                lateness_ns,
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// A `block` step: the poll's thread blocks for `ns` without CPU, as in `std::thread::sleep`,
    /// a timed wait that ends as the platform's waits end. A worker's queued tasks wait for it.
    fn block(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId, ns: u64) {
        let thread = match on {
            On::Worker {
                runtime,
                worker,
                budget,
            } => {
                let state = &mut self.runtimes[runtime].workers[worker];
                state.state = WorkerState::Polling { task, budget };
                state.cpu_mark = m.core_time(state.thread);
                state.thread
            }
            On::Thread { runtime, thread } => {
                set(
                    &mut self.owners,
                    thread,
                    ThreadOwner::Coreless { runtime, task },
                );
                thread
            }
        };
        let index = thread.0 as usize;
        if self.blocked.len() <= index {
            self.blocked.resize(index + 1, false);
            self.blocking_since_ns.resize(index + 1, 0);
        }
        self.blocked[index] = true;
        self.blocking_since_ns[index] = m.now_ns();
        let deadline = m.instant_deadline(m.instant_ns().saturating_add(ns as i64));
        m.timed_wake(deadline, Wake::Unblocked { thread: thread.0 });
    }

    /// A thread's `block` step ended: its poll goes on as after a `cpu` step.
    fn unblocked(&mut self, m: &mut Machine<Wake>, thread: ThreadId) -> io::Result<()> {
        self.blocked[thread.0 as usize] = false;
        self.record_block(m, thread, true)?;
        self.thread_finished(m, thread)
    }

    /// Counts and traces the `block` step on `thread`, which `finished` or is cut short by the
    /// end of the run.
    fn record_block(
        &mut self,
        m: &mut Machine<Wake>,
        thread: ThreadId,
        finished: bool,
    ) -> io::Result<()> {
        let since_ns = self.blocking_since_ns[thread.0 as usize];
        let (runtime, worker, task) = match owner_of(&self.owners, thread) {
            ThreadOwner::Worker { runtime, worker } => {
                let WorkerState::Polling { task, .. } =
                    self.runtimes[runtime].workers[worker].state
                else {
                    unreachable!("a worker blocks only inside a poll");
                };
                self.stats.workers[runtime][worker].blocked_ns += m.now_ns() - since_ns;
                (runtime, Some(worker), task)
            }
            ThreadOwner::Coreless { runtime, task } => (runtime, None, task),
            _ => unreachable!("only a poll's thread blocks"),
        };
        if !self.wants_events {
            return Ok(());
        }
        let rt = &self.runtimes[runtime];
        let event = BlockingEvent {
            t_ns: m.now_ns(),
            started_ns: since_ns,
            task: self.label(task),
            section: "block",
            runtime: rt.name.clone(),
            worker: worker.map(|worker| rt.workers[worker].name.clone()),
            finished,
        };
        self.sink.record(&Event::Model(&event))
    }

    /// A `cpu` step: the poll's thread asks the cores for `ns` of CPU.
    fn run_cpu(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId, ns: u64) {
        let thread = match on {
            On::Worker {
                runtime,
                worker,
                budget,
            } => {
                let state = &mut self.runtimes[runtime].workers[worker];
                state.state = WorkerState::Polling { task, budget };
                state.cpu_mark = m.core_time(state.thread);
                state.thread
            }
            On::Thread { runtime, thread } => {
                set(
                    &mut self.owners,
                    thread,
                    ThreadOwner::Coreless { runtime, task },
                );
                thread
            }
        };
        m.run(thread, ns, CpuKind::Busy);
    }

    fn spawn(
        &mut self,
        m: &mut Machine<Wake>,
        on: On,
        task: TaskId,
        child: usize,
    ) -> io::Result<()> {
        let spawned = self.start_instance(m, child);
        self.wake_task(m, spawned, on.worker(), false)?;
        if self.wants_events {
            let queued = self.tasks.get(spawned).runnable.map(|(_, queued)| queued);
            let event = SpawnEvent {
                t_ns: self.now_ns(m),
                task: self.label(task),
                spawned: self.label(spawned),
                queued: self.describe(spawned, queued.unwrap_or(Queued::Inject)),
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// A poll ended: a worker polls its LIFO slot's task within the budget and the cap, or goes
    /// back to its scheduler loop; a coreless thread returns to the blocking pool.
    fn end_poll(&mut self, m: &mut Machine<Wake>, on: On) -> io::Result<()> {
        match on {
            On::Worker {
                runtime,
                worker,
                budget,
            } => {
                let next = self.runtimes[runtime]
                    .scheduler
                    .next_lifo_task(worker, budget > 0);
                match next {
                    Some(task) => self.poll(m, runtime, worker, task, Source::Lifo, budget),
                    None => {
                        self.schedule_worker(m, runtime, worker);
                        Ok(())
                    }
                }
            }
            On::Thread { runtime, thread } => {
                self.release_thread(m, runtime, thread);
                Ok(())
            }
        }
    }

    fn task_done(&mut self, m: &mut Machine<Wake>, task: TaskId, group: usize) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let state = self.tasks.get_mut(task);
        state.finished = true;
        let latency_ns = now_ns - state.started_ns;
        self.stats.groups[group].finish(latency_ns);
        if self.wants_events {
            let event = TaskDoneEvent {
                t_ns: now_ns,
                task: self.label(task),
                latency_ns,
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// An `io` step: check a connection out of the pool and hand the request to its task.
    fn start_io(
        &mut self,
        m: &mut Machine<Wake>,
        on: On,
        task: TaskId,
        pool: usize,
        latency_ns: (u64, u64),
    ) -> io::Result<()> {
        let runtime = on.runtime();
        let now_ns = self.now_ns(m);
        let checkout = self.pools.check_out(pool, runtime);
        let connection = checkout.connection();
        let mut network_ns = self.latency.in_range(latency_ns.0, latency_ns.1);
        if let Checkout::Opened(_) = checkout {
            // The opener's runtime owns the socket and runs its task.
            let conn_task = self
                .tasks
                .add(TaskKind::Connection { connection }, runtime, now_ns);
            self.connections.push(ConnectionSlot {
                task: conn_task,
                state: ConnectionState::Idle,
            });
            network_ns += self.pools.connect_ns(pool);
        }
        if self.pools.connection(connection).owner != runtime {
            self.stats.cross_runtime_io_calls += 1;
        }
        self.requests.push(Request {
            requester: task,
            connection,
            reused: matches!(checkout, Checkout::Reused(_)),
            started_ns: now_ns,
            network_ns,
            sent_ns: now_ns,
            replied_ns: now_ns,
            noticed_ns: now_ns,
        });
        let request = self.requests.len() - 1;
        self.tasks.get_mut(task).request = Some(request);
        let slot = &mut self.connections[connection.0 as usize];
        slot.state = ConnectionState::ToSend { request };
        let conn_task = slot.task;
        // Handing the request over (a channel send) wakes the connection task.
        self.wake_task(m, conn_task, on.worker(), false)
    }

    /// A poll of a connection task: it sends a handed-over request, or reads a noticed reply and
    /// wakes the requester.
    fn run_connection(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId) -> io::Result<()> {
        let TaskKind::Connection { connection } = self.tasks.get(task).kind else {
            unreachable!("only connection tasks are run as connections");
        };
        let now_ns = self.now_ns(m);
        let slot = &mut self.connections[connection.0 as usize];
        match slot.state {
            ConnectionState::ToSend { request } => {
                slot.state = ConnectionState::InFlight { request };
                let request = &mut self.requests[request];
                request.sent_ns = now_ns;
                let at_ns = now_ns + request.network_ns;
                m.wake_at(
                    physical(at_ns),
                    Wake::Reply {
                        connection: connection.0,
                    },
                );
                Ok(())
            }
            ConnectionState::Replied { request } => {
                slot.state = ConnectionState::Idle;
                let requester = self.requests[request].requester;
                if !self.pools.check_in(connection) {
                    // Closed rather than kept idle: its task ends.
                    self.tasks.get_mut(task).finished = true;
                }
                self.wake_task(m, requester, on.worker(), false)
            }
            ConnectionState::Idle | ConnectionState::InFlight { .. } => Ok(()),
        }
    }

    /// A reply reached the socket: the owning runtime's driver has an event, which a parked
    /// driver holder picks up at once and busy workers only at their next driver poll.
    fn reply(&mut self, m: &mut Machine<Wake>, connection: ConnectionId) -> io::Result<()> {
        let slot = &mut self.connections[connection.0 as usize];
        let ConnectionState::InFlight { request } = slot.state else {
            return Ok(());
        };
        slot.state = ConnectionState::Replied { request };
        let conn_task = slot.task;
        self.requests[request].replied_ns = m.now_ns();
        let owner = self.pools.connection(connection).owner;
        let rt = &mut self.runtimes[owner];
        rt.driver.io_ready(conn_task);
        match rt.scheduler.driver_holder() {
            Some(holder) => self.notify(m, owner, holder),
            None => Ok(()),
        }
    }

    /// The requester of `request` runs again: its io step is complete.
    fn io_done(&mut self, m: &mut Machine<Wake>, task: TaskId, request: usize) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let request = self.requests[request];
        let latency_ns = now_ns - request.started_ns;
        let send_wait_ns = request.sent_ns - request.started_ns;
        let driver_wait_ns = request.noticed_ns - request.replied_ns;
        self.stats.max_send_wait_ns = self.stats.max_send_wait_ns.max(send_wait_ns);
        self.stats.max_driver_wait_ns = self.stats.max_driver_wait_ns.max(driver_wait_ns);
        if let TaskKind::Group { group, .. } = self.tasks.get(task).kind {
            self.stats.groups[group].io(latency_ns);
        }
        if self.wants_events {
            let owner = self.pools.connection(request.connection).owner;
            let event = IoEvent {
                t_ns: now_ns,
                task: self.label(task),
                connection: request.connection.0,
                owner: self.runtimes[owner].name.clone(),
                reused: request.reused,
                send_wait_ns,
                network_ns: request.replied_ns - request.sent_ns,
                driver_wait_ns,
                resume_wait_ns: now_ns - request.noticed_ns,
                latency_ns,
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// A thread of `runtime`'s blocking pool: an idle one, or a new one below the limit.
    fn pool_thread(&mut self, m: &mut Machine<Wake>, runtime: usize) -> Option<ThreadId> {
        let rt = &mut self.runtimes[runtime];
        if let Some(thread) = rt.idle_threads.pop() {
            return Some(thread);
        }
        if rt.blocking_started >= rt.blocking_limit {
            return None;
        }
        rt.blocking_started += 1;
        let name = format!("{}-blocking-{}", rt.name, rt.blocking_started);
        let thread = m.add_thread(name);
        set(&mut self.owners, thread, ThreadOwner::Spare);
        Some(thread)
    }

    /// A pool thread is free: it takes the oldest queued job, or idles.
    fn release_thread(&mut self, m: &mut Machine<Wake>, runtime: usize, thread: ThreadId) {
        set(&mut self.owners, thread, ThreadOwner::Spare);
        match self.runtimes[runtime].pool_queue.pop_front() {
            Some(PoolJob::Blocking { task, ns }) => {
                self.run_blocking(m, thread, ThreadOwner::Blocking { runtime, task }, ns);
            }
            Some(PoolJob::Worker { worker }) => self.take_over(m, runtime, worker, thread),
            None => self.runtimes[runtime].idle_threads.push(thread),
        }
    }

    /// `thread` takes over `worker`'s core and starts its scheduler loop.
    fn take_over(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
        thread: ThreadId,
    ) {
        set(
            &mut self.owners,
            thread,
            ThreadOwner::Worker { runtime, worker },
        );
        self.runtimes[runtime].workers[worker].thread = thread;
        self.schedule_worker(m, runtime, worker);
    }

    /// `spawn_blocking`: the work runs on a blocking-pool thread, or waits for one; the task is
    /// woken from outside the runtime when it is done.
    fn spawn_blocking(&mut self, m: &mut Machine<Wake>, runtime: usize, task: TaskId, ns: u64) {
        match self.pool_thread(m, runtime) {
            Some(thread) => {
                self.run_blocking(m, thread, ThreadOwner::Blocking { runtime, task }, ns)
            }
            None => self.runtimes[runtime]
                .pool_queue
                .push_back(PoolJob::Blocking { task, ns }),
        }
    }

    fn run_blocking(
        &mut self,
        m: &mut Machine<Wake>,
        thread: ThreadId,
        owner: ThreadOwner,
        ns: u64,
    ) {
        set(&mut self.owners, thread, owner);
        let now_ns = m.now_ns();
        let index = thread.0 as usize;
        if self.blocking_since_ns.len() <= index {
            self.blocking_since_ns.resize(index + 1, 0);
        }
        self.blocking_since_ns[index] = now_ns;
        // A zero-length section still finishes through the cores, one event later.
        m.run(thread, ns.max(1), CpuKind::Busy);
    }

    /// `block_in_place`: the worker's yielded tasks are woken and its LIFO task moves to the
    /// stealable queue (#6596); its core goes to a blocking-pool thread (queued if the pool is
    /// full), and this thread runs the blocking section, then goes on with the task's poll.
    fn block_in_place(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
        task: TaskId,
        ns: u64,
    ) -> io::Result<()> {
        self.runtimes[runtime].scheduler.begin_park_check(worker);
        self.release_deferred(m, runtime, worker)?;
        self.runtimes[runtime].scheduler.hand_off_lifo(worker);
        if let Some(other) = self.runtimes[runtime].scheduler.end_park_check(worker) {
            self.notify(m, runtime, other)?;
        }
        let old = self.runtimes[runtime].workers[worker].thread;
        match self.pool_thread(m, runtime) {
            Some(thread) => self.take_over(m, runtime, worker, thread),
            None => {
                let rt = &mut self.runtimes[runtime];
                rt.workers[worker].state = WorkerState::AwaitingThread;
                rt.pool_queue.push_back(PoolJob::Worker { worker });
            }
        }
        let owner = ThreadOwner::InPlace {
            runtime,
            worker,
            task,
        };
        self.run_blocking(m, old, owner, ns);
        Ok(())
    }

    /// A `block_in_place` section ended on `thread`. If no thread took the worker's core over
    /// meanwhile, this one takes it back and the poll goes on as a worker's; otherwise it goes on
    /// without a core.
    fn in_place_done(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
        task: TaskId,
        thread: ThreadId,
    ) -> io::Result<()> {
        let rt = &mut self.runtimes[runtime];
        if rt.workers[worker].state == WorkerState::AwaitingThread {
            rt.pool_queue
                .retain(|job| *job != PoolJob::Worker { worker });
            rt.workers[worker].thread = thread;
            set(
                &mut self.owners,
                thread,
                ThreadOwner::Worker { runtime, worker },
            );
            let on = On::Worker {
                runtime,
                worker,
                budget: COOP_BUDGET,
            };
            return self.continue_task(m, on, task);
        }
        self.continue_task(m, On::Thread { runtime, thread }, task)
    }

    fn thread_finished(&mut self, m: &mut Machine<Wake>, thread: ThreadId) -> io::Result<()> {
        match owner_of(&self.owners, thread) {
            ThreadOwner::Worker { runtime, worker } => {
                let state = &mut self.runtimes[runtime].workers[worker];
                let WorkerState::Polling { task, budget } = state.state else {
                    unreachable!("a worker's thread runs only its polls' cpu steps");
                };
                let now = m.core_time(thread);
                let stats = &mut self.stats.workers[runtime][worker];
                stats.busy_ns += now.running_ns - state.cpu_mark.running_ns;
                stats.core_wait_ns += now.waiting_ns - state.cpu_mark.waiting_ns;
                let on = On::Worker {
                    runtime,
                    worker,
                    budget,
                };
                self.continue_task(m, on, task)
            }
            ThreadOwner::Blocking { runtime, task } => {
                self.record_blocking(m, thread, runtime, None, task, true)?;
                self.release_thread(m, runtime, thread);
                self.wake_task(m, task, None, false)
            }
            ThreadOwner::InPlace {
                runtime,
                worker,
                task,
            } => {
                self.record_blocking(m, thread, runtime, Some(worker), task, true)?;
                self.in_place_done(m, runtime, worker, task, thread)
            }
            ThreadOwner::Coreless { runtime, task } => {
                self.continue_task(m, On::Thread { runtime, thread }, task)
            }
            ThreadOwner::Spare => unreachable!("an idle thread has no work to finish"),
        }
    }

    /// Traces the blocking section on `thread`, which `finished` or is cut short by the end of
    /// the run: `block_in_place` if it ran for `worker`, else `spawn_blocking`.
    fn record_blocking(
        &mut self,
        m: &mut Machine<Wake>,
        thread: ThreadId,
        runtime: usize,
        worker: Option<usize>,
        task: TaskId,
        finished: bool,
    ) -> io::Result<()> {
        if !self.wants_events {
            return Ok(());
        }
        let rt = &self.runtimes[runtime];
        let event = BlockingEvent {
            t_ns: self.now_ns(m),
            started_ns: self.blocking_since_ns[thread.0 as usize],
            task: self.label(task),
            section: if worker.is_some() {
                "block_in_place"
            } else {
                "spawn_blocking"
            },
            runtime: rt.name.clone(),
            worker: worker.map(|worker| rt.workers[worker].name.clone()),
            finished,
        };
        self.sink.record(&Event::Model(&event))
    }

    /// Where a queued task waits, in words.
    fn describe(&self, task: TaskId, queued: Queued) -> Arc<str> {
        let rt = &self.runtimes[self.tasks.get(task).runtime];
        match queued {
            Queued::Lifo { worker } => format!("the LIFO slot of {}", rt.workers[worker].name),
            Queued::Local { worker } => format!("the queue of {}", rt.workers[worker].name),
            Queued::Inject => format!("the inject queue of {}", rt.name),
            Queued::Deferred { worker } => {
                format!("the yielded tasks of {}", rt.workers[worker].name)
            }
        }
        .into()
    }

    /// A task's name in traces: `<group>#<instance>`, or `conn<id>`.
    fn label(&self, task: TaskId) -> Arc<str> {
        match self.tasks.get(task).kind {
            TaskKind::Group { group, instance } => {
                format!("{}#{instance}", self.config.groups[group].name).into()
            }
            TaskKind::Connection { connection } => format!("conn{}", connection.0).into(),
        }
    }

    /// Charges what is still open at the end, reports tasks still starving, and summarises.
    fn summary(&mut self, m: &mut Machine<Wake>, report: &MachineReport) -> io::Result<Summary> {
        let end_ns = m.end_ns();
        // Blocking sections still running are traced too, so a plot shows them.
        for index in 0..self.owners.len() {
            let thread = ThreadId(index as u32);
            if self.blocked.get(index).copied().unwrap_or(false) {
                self.record_block(m, thread, false)?;
                continue;
            }
            match owner_of(&self.owners, thread) {
                ThreadOwner::Blocking { runtime, task } => {
                    self.record_blocking(m, thread, runtime, None, task, false)?;
                }
                ThreadOwner::InPlace {
                    runtime,
                    worker,
                    task,
                } => self.record_blocking(m, thread, runtime, Some(worker), task, false)?,
                _ => {}
            }
        }

        for runtime in 0..self.runtimes.len() {
            for worker in 0..self.runtimes[runtime].workers.len() {
                let state = &self.runtimes[runtime].workers[worker];
                let (state, thread, mark, since_ns) = (
                    state.state,
                    state.thread,
                    state.cpu_mark,
                    state.parked_since_ns,
                );
                let stats = self.stats.worker(runtime, worker);
                match state {
                    WorkerState::Polling { .. } => {
                        let now = report.core_time(thread);
                        stats.busy_ns += now.running_ns - mark.running_ns;
                        stats.core_wait_ns += now.waiting_ns - mark.waiting_ns;
                    }
                    WorkerState::Parked { .. } => stats.parked_ns += end_ns - since_ns,
                    WorkerState::Ready | WorkerState::AwaitingThread => {}
                }
            }
        }
        let waiting: Vec<(TaskId, u64, Queued)> = self
            .tasks
            .iter()
            .enumerate()
            .filter_map(|(index, task)| {
                let (since_ns, queued) = task.runnable?;
                Some((TaskId(index as u32), end_ns - since_ns, queued))
            })
            .collect();
        for (task, waited_ns, queued) in waiting {
            self.note_wait(m, task, waited_ns, queued, None)?;
        }
        let names: Vec<Vec<String>> = self
            .runtimes
            .iter()
            .map(|rt| rt.workers.iter().map(|w| w.name.to_string()).collect())
            .collect();
        let stats = std::mem::replace(&mut self.stats, ExecutorStats::new(&[], &[]));
        Ok(stats.into_summary(end_ns, &names, self.pools.opened() as u64))
    }
}
