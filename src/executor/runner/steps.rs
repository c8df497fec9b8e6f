//! The step interpreter: a task's steps run in order until one suspends it, and the steps that
//! take time on its thread (`cpu`, `tick`, `block`).

use super::*;

/// What a poll does after a step.
enum After {
    /// Runs the task's next step.
    Next,
    /// Ends: the task suspended.
    EndPoll,
    /// Waits: the step takes time on the poll's thread, and the poll goes on when it is done.
    Running,
}

impl ExecutorRun<'_> {
    /// Runs `task`'s steps until it suspends, finishes, or starts a step that takes time on its
    /// thread.
    pub(super) fn continue_task(
        &mut self,
        m: &mut Machine<Wake>,
        on: On,
        task: TaskId,
    ) -> io::Result<()> {
        let TaskKind::Group { group, .. } = self.tasks.get(task).kind else {
            self.run_connection(m, on, task)?;
            return self.end_poll(m, on);
        };
        if self.tasks.get(task).cpu_left_ns > 0 {
            return self.resume_cpu(m, on, task);
        }
        loop {
            let Some(step) = self.next_step(task, group) else {
                self.task_done(m, task, group)?;
                return self.end_poll(m, on);
            };
            match self.run_step(m, on, task, step)? {
                After::Next => {}
                After::EndPoll => return self.end_poll(m, on),
                After::Running => return Ok(()),
            }
        }
    }

    /// The step after the one `task` ran last, its steps starting over while repeats are left.
    fn next_step(&mut self, task: TaskId, group: usize) -> Option<Step> {
        let group = &self.config.groups[group];
        let state = self.tasks.get_mut(task);
        if state.step == group.steps.len() && state.round + 1 < group.repeat {
            state.step = 0;
            state.round += 1;
        }
        let step = *group.steps.get(state.step)?;
        state.step += 1;
        Some(step)
    }

    /// Runs one step of `task`'s poll on `on`, and says what the poll does next.
    fn run_step(
        &mut self,
        m: &mut Machine<Wake>,
        on: On,
        task: TaskId,
        step: Step,
    ) -> io::Result<After> {
        let runtime = on.runtime();
        Ok(match step {
            Step::Cpu { ns: 0 } => After::Next,
            Step::Cpu { ns } => {
                self.tasks.get_mut(task).cpu_left_ns = ns;
                self.run_cpu_slice(m, on, task);
                After::Running
            }
            Step::Yield => {
                self.yield_now(m, on, task)?;
                After::EndPoll
            }
            Step::Sleep { ns } => {
                self.sleep(m, runtime, task, ns);
                After::EndPoll
            }
            Step::Tick {
                period_ns,
                missed_tick,
            } => match self.tick(m, runtime, task, period_ns, missed_tick)? {
                true => After::Next,
                false => After::EndPoll,
            },
            Step::Block { ns } => {
                self.block(m, on, task, ns);
                After::Running
            }
            Step::Io {
                pool,
                latency_ns,
                timeout_ns,
            } => {
                self.start_io(m, on, task, pool, latency_ns, timeout_ns)?;
                After::EndPoll
            }
            Step::Spawn { group: child } => {
                self.spawn(m, on, task, child)?;
                After::Next
            }
            Step::SpawnBlocking { ns } => {
                self.spawn_blocking(m, runtime, task, ns);
                After::EndPoll
            }
            Step::BlockInPlace { ns } => match on {
                On::Worker { worker, .. } => {
                    self.block_in_place(m, runtime, worker, task, ns)?;
                    After::Running
                }
                // Already off the workers: the section just runs.
                On::Thread { .. } => {
                    self.run_cpu(m, on, task, ns.max(1));
                    After::Running
                }
            },
        })
    }

    /// `tokio::task::yield_now`: the wake is deferred to the worker's next park or driver check.
    fn yield_now(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId) -> io::Result<()> {
        match on {
            On::Worker {
                runtime, worker, ..
            } if self.runtimes[runtime].scheduler.defers_yields() => {
                let now_ns = self.now_ns(m);
                self.tasks.get_mut(task).runnable = Some((now_ns, Queued::Deferred { worker }));
                self.runtimes[runtime].workers[worker].deferred.push(task);
                Ok(())
            }
            // A design that does not defer schedules it again at once, as yielded.
            On::Worker {
                runtime, worker, ..
            } => self.wake_task(m, task, Some((runtime, worker)), true),
            // Without a core, the deferred wake comes when the poll ends, from outside the
            // runtime.
            On::Thread { .. } => self.wake_task(m, task, None, false),
        }
    }

    /// `tokio::time::sleep`: a timer in the runtime's driver.
    fn sleep(&mut self, m: &mut Machine<Wake>, runtime: usize, task: TaskId, ns: u64) {
        let deadline_ns = m.instant_ns().saturating_add(ns as i64);
        self.tasks.get_mut(task).sleep_deadline_ns = Some(deadline_ns);
        self.runtimes[runtime].driver.sleep_until(deadline_ns, task);
        // A new earliest timer shortens the parked driver holder's block.
        self.arm_driver_timeout(m, runtime);
    }

    /// Runs what is left of `task`'s `cpu` step, up to the end of its scheduler's time slice.
    fn run_cpu_slice(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId) {
        let left_ns = self.tasks.get(task).cpu_left_ns;
        let slice_left_ns = match on {
            On::Worker {
                runtime, worker, ..
            } => self.runtimes[runtime]
                .scheduler
                .time_slice_ns()
                .map(|slice_ns| {
                    let ran_ns =
                        m.now_ns() - self.runtimes[runtime].workers[worker].tick_started_ns;
                    slice_ns.saturating_sub(ran_ns).max(1)
                }),
            On::Thread { .. } => None,
        };
        let chunk_ns = slice_left_ns.map_or(left_ns, |slice_left_ns| left_ns.min(slice_left_ns));
        let state = self.tasks.get_mut(task);
        state.cpu_left_ns = left_ns - chunk_ns;
        state.cpu_cut = chunk_ns < left_ns;
        self.run_cpu(m, on, task, chunk_ns);
    }

    /// `task` has a `cpu` step left: at the end of a slice that cut it, the task is preempted,
    /// scheduled again as a yield; at its next poll, the rest runs.
    fn resume_cpu(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId) -> io::Result<()> {
        let state = self.tasks.get_mut(task);
        if !std::mem::take(&mut state.cpu_cut) {
            self.run_cpu_slice(m, on, task);
            return Ok(());
        }
        self.wake_task(m, task, on.worker(), true)?;
        if self.wants_events
            && let On::Worker {
                runtime, worker, ..
            } = on
        {
            let rt = &self.runtimes[runtime];
            let queued = self.tasks.get(task).runnable.map(|(_, queued)| queued);
            let event = crate::executor::PreemptEvent {
                t_ns: m.now_ns(),
                worker: rt.workers[worker].name.clone(),
                task: self.label(task),
                ran_ns: m.now_ns() - rt.workers[worker].tick_started_ns,
                left_ns: self.tasks.get(task).cpu_left_ns,
                queued: self.describe(task, queued.unwrap_or(Queued::Inject)),
            };
            self.sink.record(&Event::Model(&event))?;
        }
        self.end_poll(m, on)
    }

    /// A `cpu` step: the poll's thread asks the cores for `ns` of CPU.
    pub(super) fn run_cpu(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId, ns: u64) {
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

    /// A `tick` step: `interval.tick().await` on the task's interval, made now if this is its
    /// first tick. Returns whether the tick was ready; if not, the task sleeps in the driver
    /// until the interval's deadline and runs the step again when woken.
    pub(super) fn tick(
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
    pub(super) fn timer_done(
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
    pub(super) fn block(&mut self, m: &mut Machine<Wake>, on: On, task: TaskId, ns: u64) {
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
    pub(super) fn unblocked(&mut self, m: &mut Machine<Wake>, thread: ThreadId) -> io::Result<()> {
        self.blocked[thread.0 as usize] = false;
        self.record_block(m, thread, true)?;
        self.thread_finished(m, thread)
    }

    /// Counts and traces the `block` step on `thread`, which `finished` or is cut short by the
    /// end of the run.
    pub(super) fn record_block(
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
}
