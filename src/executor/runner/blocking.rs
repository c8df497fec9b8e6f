//! The blocking pool: `spawn_blocking`, `block_in_place` and its core handed over, and what a
//! thread does when its CPU work is done.

use super::*;

impl ExecutorRun<'_> {
    /// A thread of `runtime`'s blocking pool: an idle one, or a new one below the limit.
    pub(super) fn pool_thread(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
    ) -> Option<ThreadId> {
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
    pub(super) fn release_thread(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        thread: ThreadId,
    ) {
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
    pub(super) fn take_over(
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
    pub(super) fn spawn_blocking(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        task: TaskId,
        ns: u64,
    ) {
        match self.pool_thread(m, runtime) {
            Some(thread) => {
                self.run_blocking(m, thread, ThreadOwner::Blocking { runtime, task }, ns)
            }
            None => self.runtimes[runtime]
                .pool_queue
                .push_back(PoolJob::Blocking { task, ns }),
        }
    }

    pub(super) fn run_blocking(
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
    pub(super) fn block_in_place(
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
    pub(super) fn in_place_done(
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

    pub(super) fn thread_finished(
        &mut self,
        m: &mut Machine<Wake>,
        thread: ThreadId,
    ) -> io::Result<()> {
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
    pub(super) fn record_blocking(
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
}
