//! Polls: a worker takes a task, how long it waited, the work-conserving check, spawns, and
//! the end of a poll.

use super::*;

impl ExecutorRun<'_> {
    /// `worker` polls `task`, found at `source`.
    pub(super) fn poll(
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
        // What it waited for, traced after the poll that resumes it.
        if let Some(deadline_ns) = self.tasks.get_mut(task).sleep_deadline_ns.take() {
            self.timer_done(m, task, "sleep", deadline_ns)?;
        }
        if let Some(request) = self.tasks.get_mut(task).request.take() {
            self.resume_from_io(m, task, request)?;
        }
        let on = On::Worker {
            runtime,
            worker,
            budget: budget.saturating_sub(1),
        };
        self.continue_task(m, on, task)
    }

    /// Counts a runnable wait, and reports it if it passed the starvation threshold.
    pub(super) fn note_wait(
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
    pub(super) fn check_work_conserving(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        waited_ns: u64,
        queued: Queued,
    ) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let since_ns = now_ns - waited_ns;
        let rt = &self.runtimes[self.tasks.get(task).runtime];
        // A design that keeps tasks on their worker is held to that worker alone.
        let own = match (rt.promise, queued) {
            (SchedulerPromise::WorkConserving, _) | (_, Queued::Inject) => None,
            (
                SchedulerPromise::OwnWorker,
                Queued::Lifo { worker } | Queued::Local { worker } | Queued::Deferred { worker },
            ) => Some(worker),
        };
        let idle = rt
            .workers
            .iter()
            .enumerate()
            .filter(|(index, _)| own.is_none_or(|own| own == *index))
            .map(|(_, worker)| worker)
            .find(|worker| {
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

    pub(super) fn spawn(
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
    pub(super) fn end_poll(&mut self, m: &mut Machine<Wake>, on: On) -> io::Result<()> {
        match on {
            On::Worker {
                runtime,
                worker,
                budget,
            } => {
                let tick_ran_ns =
                    self.now_ns(m) - self.runtimes[runtime].workers[worker].tick_started_ns;
                let next = self.runtimes[runtime].scheduler.next_lifo_task(
                    worker,
                    budget > 0,
                    tick_ran_ns,
                );
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

    pub(super) fn task_done(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        group: usize,
    ) -> io::Result<()> {
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

    /// Where a queued task waits, in words.
    pub(super) fn describe(&self, task: TaskId, queued: Queued) -> Arc<str> {
        let rt = &self.runtimes[self.tasks.get(task).runtime];
        match queued {
            Queued::Lifo { worker } => format!(
                "the {} of {}",
                rt.scheduler.slot_name(),
                rt.workers[worker].name
            ),
            Queued::Local { worker } => format!("the queue of {}", rt.workers[worker].name),
            Queued::Inject => format!("the inject queue of {}", rt.name),
            Queued::Deferred { worker } => {
                format!("the yielded tasks of {}", rt.workers[worker].name)
            }
        }
        .into()
    }

    /// A task's name in traces: `<group>#<instance>`, or `conn<id>`.
    pub(super) fn label(&self, task: TaskId) -> Arc<str> {
        match self.tasks.get(task).kind {
            TaskKind::Group { group, instance } => {
                format!("{}#{instance}", self.config.groups[group].name).into()
            }
            TaskKind::Connection { connection } => format!("conn{}", connection.0).into(),
        }
    }
}
