//! What must eventually happen to every task: it finishes, or the end of the run reports it as
//! starved or unfinished, saying what it waits for. A task asleep on a timer long past due, with
//! a worker of its runtime parked on the driver that should have fired it, lost its wake-up: a
//! broken invariant.

use super::*;
use crate::executor::UnfinishedEvent;
use ticklab_models::executor::TIMER_RESOLUTION_NS;

/// Unfinished tasks traced one by one, oldest first; the metric counts them all.
const TRACED_UNFINISHED: usize = 20;

impl ExecutorRun<'_> {
    /// Traces the oldest unfinished tasks and checks that none lost a timer's wake-up.
    pub(super) fn report_unfinished(&mut self, m: &mut Machine<Wake>) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let instant_ns = m.instant_ns();
        let timing = m.timing();
        // A due timer reaches its task at the driver's next tick, once a parked worker's timed
        // wait for it ends.
        let allowance_ns = TIMER_RESOLUTION_NS as u64 + timing.resolution_ns + timing.slack_ns;
        // A process asleep or frozen at the end could not fire anything, and one that has just
        // come back has had only that long.
        let ran_for_ns = m
            .running_since_ns()
            .map_or(0, |since_ns| m.now_ns().saturating_sub(since_ns));
        let mut unfinished: Vec<TaskId> = (0..self.tasks.len() as u32)
            .map(TaskId)
            .filter(|&task| {
                let task = self.tasks.get(task);
                !task.finished && matches!(task.kind, TaskKind::Group { .. })
            })
            .collect();
        unfinished.sort_by_key(|&task| (self.tasks.get(task).started_ns, task.0));
        for (rank, task) in unfinished.into_iter().enumerate() {
            let state = self.tasks.get(task);
            let overdue_ns = state
                .sleep_deadline_ns
                .filter(|_| state.runnable.is_none())
                .map(|deadline_ns| {
                    instant_ns
                        .saturating_sub(deadline_ns)
                        .min(i64::try_from(ran_for_ns).unwrap_or(i64::MAX))
                });
            let parked = self.runtimes[state.runtime]
                .workers
                .iter()
                .find(|worker| matches!(worker.state, WorkerState::Parked { on_driver: true }))
                .map(|worker| worker.name.clone());
            if let (Some(overdue_ns), Some(worker)) = (overdue_ns, &parked)
                && overdue_ns > allowance_ns as i64
            {
                self.stats.invariant_violations += 1;
                let what = format!(
                    "{} never woke from a sleep due {} ago, though {worker} is parked on the driver",
                    self.label(task),
                    ticklab_sim::Approx(overdue_ns as u64)
                );
                crate::invariant::report(self.sink, now_ns, self.stats.invariant_violations, what)?;
            }
            if self.wants_events && rank < TRACED_UNFINISHED {
                let waits = self.what_it_waits_for(task, instant_ns);
                let event = UnfinishedEvent {
                    t_ns: now_ns,
                    task: self.label(task),
                    age_ns: now_ns - self.tasks.get(task).started_ns,
                    waits,
                };
                self.sink.record(&Event::Model(&event))?;
            }
        }
        Ok(())
    }

    /// What an unfinished task is doing as the run ends, in words.
    fn what_it_waits_for(&self, task: TaskId, instant_ns: i64) -> String {
        let state = self.tasks.get(task);
        if let Some((since_ns, queued)) = state.runnable {
            return format!(
                "runnable since {} in {}",
                ticklab_sim::Secs(since_ns),
                self.describe(task, queued)
            );
        }
        if let Some(deadline_ns) = state.sleep_deadline_ns {
            return if deadline_ns <= instant_ns {
                format!(
                    "asleep on a timer due {} ago",
                    ticklab_sim::Approx((instant_ns - deadline_ns) as u64)
                )
            } else {
                format!(
                    "asleep on a timer due in {}",
                    ticklab_sim::Approx((deadline_ns - instant_ns) as u64)
                )
            };
        }
        if state.request.is_some() {
            return "waiting for an io reply".to_string();
        }
        "running, or blocked in its step".to_string()
    }
}
