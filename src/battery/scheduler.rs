//! The shuttle battery for a scheduler design: real threads, on shuttle's scheduler, drive the
//! design as an executor's workers and a thread outside it would.
//!
//! The design sits behind one mutex, taken for each call, so that shuttle explores every order
//! of the calls, and in particular the one a lost wake needs: a worker's search finds nothing,
//! its lock is let go, a task is scheduled from outside and notifies nobody, and the worker
//! parks. Each worker:
//! - ticks, running the design's driver check when it is due;
//! - takes its next task and runs it, then the tasks the design chains after it;
//! - a task it runs spawns a child on it, or yields once when the design schedules yields;
//! - found nothing, it parks, and waits for a notification.
//!
//! The checks: every task runs, and runs once per time it was scheduled. A wake lost leaves
//! every worker waiting with a task queued, which shuttle reports as a deadlock.

use shuttle::sync::{Arc, Condvar, Mutex};
use ticklab_models::executor::{BuildScheduler, Park, SchedulerDesign, TaskId};
use ticklab_models::sync::ShuttlePrimitives;

use super::explore::{Strategy, explore_part};

/// What shuttle says of threads that all wait: a lost wake.
pub const DEADLOCK: &str = "deadlock! blocked tasks";

const WORKERS: usize = 2;
/// Tasks the outside thread schedules; the first `SPAWNERS` of them spawn one child each.
const OUTSIDE_TASKS: u32 = 3;
const SPAWNERS: u32 = 2;
const SHUTTLE_ITERATIONS: usize = 500;

struct Harness<D> {
    design: Mutex<D>,
    /// Each worker's notification, and what it waits on.
    notified: Vec<(Mutex<bool>, Condvar)>,
    /// Times each task has run.
    runs: Mutex<Vec<u32>>,
    yields: bool,
    done: Mutex<bool>,
}

impl<D: SchedulerDesign> Harness<D> {
    fn notify(&self, worker: Option<usize>) {
        if let Some(worker) = worker {
            let (flag, wake) = &self.notified[worker];
            *flag.lock().unwrap() = true;
            wake.notify_one();
        }
    }

    fn schedule(&self, task: TaskId, from: Option<usize>, yielded: bool) {
        let (_, notify) = self.design.lock().unwrap().schedule(task, from, yielded);
        self.notify(notify);
    }

    /// Runs `task` on `worker`: a spawner spawns its child the first time, and with a design that
    /// schedules yields at once, an outside task yields once.
    fn run(&self, worker: usize, task: TaskId) {
        let first_run = {
            let mut runs = self.runs.lock().unwrap();
            runs[task.0 as usize] += 1;
            runs[task.0 as usize] == 1
        };
        if first_run && task.0 < SPAWNERS {
            self.schedule(TaskId(OUTSIDE_TASKS + task.0), Some(worker), false);
        }
        if first_run && self.yields && task.0 < OUTSIDE_TASKS {
            self.schedule(task, Some(worker), true);
        }
        if self.all_ran() {
            *self.done.lock().unwrap() = true;
            for worker in 0..self.notified.len() {
                self.notify(Some(worker));
            }
        }
    }

    fn expected_runs(&self, task: usize) -> u32 {
        if self.yields && (task as u32) < OUTSIDE_TASKS {
            2
        } else {
            1
        }
    }

    fn all_ran(&self) -> bool {
        let runs = self.runs.lock().unwrap();
        runs.iter()
            .enumerate()
            .all(|(task, &count)| count >= self.expected_runs(task))
    }

    fn worker(&self, worker: usize) {
        while !*self.done.lock().unwrap() {
            let found = {
                let mut design = self.design.lock().unwrap();
                if design.tick(worker, 0) {
                    design.begin_park_check(worker);
                    let other = design.end_park_check(worker);
                    drop(design);
                    self.notify(other);
                    design = self.design.lock().unwrap();
                }
                let task = design.next_task(worker, (worker + 1) % WORKERS);
                task.map(|(task, _)| (task, design.found(worker)))
            };
            match found {
                Some((task, other)) => {
                    self.notify(other);
                    self.run(worker, task);
                    while let Some(next) = self.next_chained(worker) {
                        self.run(worker, next);
                    }
                }
                // The lock is let go between the search and the park: wakes may come here.
                None => self.park(worker),
            }
        }
    }

    fn next_chained(&self, worker: usize) -> Option<TaskId> {
        self.design.lock().unwrap().next_lifo_task(worker, true, 0)
    }

    fn park(&self, worker: usize) {
        if self.design.lock().unwrap().park(worker) == Park::WorkPending {
            return;
        }
        let (flag, wake) = &self.notified[worker];
        let mut notified = flag.lock().unwrap();
        while !*notified {
            notified = wake.wait(notified).unwrap();
        }
        *notified = false;
        drop(notified);
        self.design.lock().unwrap().unpark(worker);
    }
}

/// One schedule of the battery on design `B`.
fn check<B: BuildScheduler>() {
    let config = B::defaults(WORKERS);
    let design = B::build::<ShuttlePrimitives>(&config);
    let yields = !design.defers_yields();
    let tasks = (OUTSIDE_TASKS + SPAWNERS) as usize;
    let harness = Arc::new(Harness {
        design: Mutex::new(design),
        notified: (0..WORKERS)
            .map(|_| (Mutex::new(false), Condvar::new()))
            .collect(),
        runs: Mutex::new(vec![0; tasks]),
        yields,
        done: Mutex::new(false),
    });
    let workers: Vec<_> = (0..config.workers.min(WORKERS))
        .map(|worker| {
            let harness = Arc::clone(&harness);
            shuttle::thread::spawn(move || harness.worker(worker))
        })
        .collect();
    let outside = Arc::clone(&harness);
    let injector = shuttle::thread::spawn(move || {
        for task in 0..OUTSIDE_TASKS {
            outside.schedule(TaskId(task), None, false);
        }
    });
    injector.join().unwrap();
    for worker in workers {
        worker.join().unwrap();
    }
    let runs = harness.runs.lock().unwrap();
    for (task, &count) in runs.iter().enumerate() {
        assert_eq!(
            count,
            harness.expected_runs(task),
            "task {task} ran {count} times on {}",
            B::NAME
        );
    }
}

/// Runs the scheduler battery under shuttle's random and PCT schedulers on design `B`. Panics,
/// naming the design, on the first schedule that loses a wake or runs a task the wrong number of
/// times, and prints a line that replays it.
pub fn shuttle<B: BuildScheduler>() {
    let (test, command) = super::explore::this_test();
    for strategy in [Strategy::Random, Strategy::Pct] {
        eprintln!("battery: shuttle ({strategy:?}), scheduler {}", B::NAME);
        let part = format!("scheduler {} ({strategy:?})", B::NAME);
        let outcome = std::panic::catch_unwind(|| {
            explore_part(
                &test,
                Some(&part),
                &command,
                strategy,
                SHUTTLE_ITERATIONS,
                check::<B>,
            )
        });
        if let Err(failure) = outcome {
            let why = super::explore::panic_text(&*failure);
            panic!("the shuttle scheduler battery failed on {}: {why}", B::NAME);
        }
    }
}
