//! Workers: arrivals and wakes onto the run queues, notifying, parking and unparking, and the
//! driver polls that notice timers and replies.

use super::*;

impl ExecutorRun<'_> {
    pub(super) fn arrival(&mut self, m: &mut Machine<Wake>, group: usize) -> io::Result<()> {
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

    pub(super) fn start_instance(&mut self, m: &mut Machine<Wake>, group: usize) -> TaskId {
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
    pub(super) fn wake_task(
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
            (Placement::Pinned { worker }, _) => Queued::Local { worker },
            _ => Queued::Inject,
        };
        self.tasks.get_mut(task).runnable = Some((now_ns, queued));
        match notify {
            Some(worker) => self.notify(m, runtime, worker),
            None => Ok(()),
        }
    }

    /// Wakes a parked worker of `runtime` so it looks for work.
    pub(super) fn notify(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
    ) -> io::Result<()> {
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
    pub(super) fn schedule_worker(&mut self, m: &mut Machine<Wake>, runtime: usize, worker: usize) {
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
    pub(super) fn unpark(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
    ) -> io::Result<()> {
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
    pub(super) fn poll_driver(
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
    pub(super) fn find_work(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
    ) -> io::Result<()> {
        let instant_ns = m.instant_ns();
        if self.runtimes[runtime].scheduler.tick(worker, instant_ns) {
            self.park_check(m, runtime, worker, "maintenance")?;
        }
        let workers = self.runtimes[runtime].workers.len() as u64;
        let start = self.steal_start.in_range(0, workers - 1) as usize;
        match self.runtimes[runtime].scheduler.next_task(worker, start) {
            Some((task, source)) => {
                self.runtimes[runtime].workers[worker].tick_started_ns = self.now_ns(m);
                if let Some(other) = self.runtimes[runtime].scheduler.found(worker) {
                    self.notify(m, runtime, other)?;
                }
                self.poll(m, runtime, worker, task, source, COOP_BUDGET)
            }
            None if !self.runtimes[runtime].workers[worker].deferred.is_empty() => {
                self.park_check(m, runtime, worker, "yield")?;
                self.schedule_worker(m, runtime, worker);
                Ok(())
            }
            None => {
                self.schedule_worker(m, runtime, worker);
                self.runtimes[runtime].workers[worker].state = WorkerState::Parking;
                Ok(())
            }
        }
    }

    /// A park with a zero timeout, as tokio's maintenance and its yield path do: the driver is
    /// polled if no other worker holds it, the yielded tasks are woken, and other workers are
    /// notified once at the end if this one now has more than it can run alone.
    pub(super) fn park_check(
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
    pub(super) fn release_deferred(
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

    pub(super) fn park(
        &mut self,
        m: &mut Machine<Wake>,
        runtime: usize,
        worker: usize,
    ) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let on_driver = match self.runtimes[runtime].scheduler.park(worker) {
            Park::OnDriver => true,
            Park::Asleep => false,
            Park::WorkPending => {
                self.schedule_worker(m, runtime, worker);
                return Ok(());
            }
        };
        {
            let state = &mut self.runtimes[runtime].workers[worker];
            state.state = WorkerState::Parked { on_driver };
            state.parked_since_ns = now_ns;
            self.stats.worker(runtime, worker).parks += 1;
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
    pub(super) fn arm_driver_timeout(&mut self, m: &mut Machine<Wake>, runtime: usize) {
        let rt = &mut self.runtimes[runtime];
        let (Some(holder), Some(deadline_ns)) = (
            rt.scheduler.driver_holder(),
            rt.driver.next_wake_ns(m.instant_ns()),
        ) else {
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
}
