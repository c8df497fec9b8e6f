//! The end of the run: sections still open are charged and traced, and the summary is made.

use super::*;

impl ExecutorRun<'_> {
    /// Charges what is still open at the end, reports tasks still starving, and summarises.
    pub(super) fn summary(
        &mut self,
        m: &mut Machine<Wake>,
        report: &MachineReport,
        scheduler_metrics: &[u64],
    ) -> io::Result<Summary> {
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

        self.close_worker_times(end_ns, report);
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
        self.report_unfinished(m)?;
        let names: Vec<Vec<String>> = self
            .runtimes
            .iter()
            .map(|rt| rt.workers.iter().map(|w| w.name.to_string()).collect())
            .collect();
        let stats = std::mem::replace(&mut self.stats, ExecutorStats::new(&[], &[]));
        Ok(stats.into_summary(
            end_ns,
            &names,
            self.pools.opened() as u64,
            (&self.config.metrics, scheduler_metrics),
        ))
    }

    /// Adds each worker's time in its present state, up to the end of the run.
    fn close_worker_times(&mut self, end_ns: u64, report: &MachineReport) {
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
                    WorkerState::Ready | WorkerState::Parking | WorkerState::AwaitingThread => {}
                }
            }
        }
    }

    /// The schedulers' own metrics, in the order `config.metrics` lists them: each summed over
    /// the runtimes that run its scheduler.
    pub(super) fn scheduler_metrics(&self) -> Result<Vec<u64>, RunError> {
        self.config.metrics[crate::executor::METRICS.len()..]
            .iter()
            .map(|metric| {
                let mut total = 0;
                for (runtime, config) in self.runtimes.iter().zip(&self.config.runtimes) {
                    if !config
                        .design
                        .metrics
                        .iter()
                        .any(|own| own.name == metric.name)
                    {
                        continue;
                    }
                    total += runtime.scheduler.metric(metric.name).ok_or(
                        RunError::UnreportedMetric {
                            design: config.design.name,
                            metric: metric.name,
                        },
                    )?;
                }
                Ok(total)
            })
            .collect()
    }
}
