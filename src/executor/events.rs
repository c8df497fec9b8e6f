//! The executor's events: polls, spawns, finished tasks, io, parks, driver polls, blocking
//! sections, starvation reports and the tasks unfinished at the end.

use std::sync::Arc;

use serde::Serialize;
use ticklab_sim::{Approx, Secs};

use crate::trace::ModelEvent;

/// The task group a task label belongs to, for comparing delays: `flush#12` is in `flush`.
fn group_of(task: &str) -> &str {
    task.split_once('#').map_or(task, |(group, _)| group)
}

/// A worker polled a task.
#[derive(Clone, Debug, Serialize)]
pub struct PollEvent {
    pub t_ns: u64,
    /// The worker, as `<runtime>-<index>`.
    pub worker: Arc<str>,
    /// The task, as `<group>#<instance>` or `conn<id>` for a connection task.
    pub task: Arc<str>,
    /// Where the worker found it: `lifo`, `local`, `inject` or `stolen`.
    pub source: &'static str,
    /// For a stolen task, the worker it came from.
    pub victim: Option<Arc<str>>,
    /// Time between its wake and this poll.
    pub waited_ns: u64,
}

/// A task spawned another.
#[derive(Clone, Debug, Serialize)]
pub struct SpawnEvent {
    pub t_ns: u64,
    pub task: Arc<str>,
    pub spawned: Arc<str>,
    /// Where the new task was queued, such as `the LIFO slot of rt-0`.
    pub queued: Arc<str>,
}

/// A task ran its last step.
#[derive(Clone, Debug, Serialize)]
pub struct TaskDoneEvent {
    pub t_ns: u64,
    pub task: Arc<str>,
    /// From its arrival or spawn.
    pub latency_ns: u64,
}

/// An io step completed: its task runs again. The phases add up to `latency_ns`.
#[derive(Clone, Debug, Serialize)]
pub struct IoEvent {
    pub t_ns: u64,
    pub task: Arc<str>,
    pub connection: u32,
    /// The runtime whose driver and workers serve the connection.
    pub owner: Arc<str>,
    /// Whether the connection came idle from the pool rather than newly opened.
    pub reused: bool,
    /// Until the connection task was polled and sent the request.
    pub send_wait_ns: u64,
    /// The request's latency on the network, plus the connect time of a new connection.
    pub network_ns: u64,
    /// From the reply's arrival until a worker of the owner polled its driver.
    pub driver_wait_ns: u64,
    /// From then until the requesting task was polled again.
    pub resume_wait_ns: u64,
    pub latency_ns: u64,
}

/// An io step's timeout fired before its reply was read: the task goes on without it.
#[derive(Clone, Debug, Serialize)]
pub struct IoTimeoutEvent {
    pub t_ns: u64,
    pub task: Arc<str>,
    pub connection: u32,
    /// From the step's start until the task ran again.
    pub latency_ns: u64,
    /// Where the request was: `not sent`, `in flight`, or `replied, not yet read`.
    pub request: &'static str,
}

/// A worker found nothing to do and parked.
#[derive(Clone, Debug, Serialize)]
pub struct ParkEvent {
    pub t_ns: u64,
    pub worker: Arc<str>,
    /// Whether it blocks in the driver (it took it) or sleeps until notified.
    pub on_driver: bool,
}

/// A worker polled its runtime's driver and it woke tasks.
#[derive(Clone, Debug, Serialize)]
pub struct DriverPollEvent {
    pub t_ns: u64,
    pub worker: Arc<str>,
    pub woke: u32,
    /// `park` when the worker was parking or parked on the driver, `maintenance` for the poll
    /// every `event_interval` ticks, `yield` for the zero-timeout park before yielded tasks
    /// are put back in the queue.
    pub when: &'static str,
}

/// A blocking section finished: a `spawn_blocking` closure on a blocking-pool thread, or a
/// `block_in_place` section on the thread that left its worker.
#[derive(Clone, Debug, Serialize)]
pub struct BlockingEvent {
    pub t_ns: u64,
    /// When the section started running (it may have waited for a core since).
    pub started_ns: u64,
    pub task: Arc<str>,
    /// `spawn_blocking`, `block_in_place`, or `block` (the worker's own thread blocked in place,
    /// its core's tasks held).
    pub section: &'static str,
    pub runtime: Arc<str>,
    /// For `block_in_place`, the worker whose thread ran it.
    pub worker: Option<Arc<str>>,
    /// False for a section still running when the run ended.
    pub finished: bool,
}

/// A task's timer came due and the task ran again: a `sleep` ended or a `tick` returned.
#[derive(Clone, Debug, Serialize)]
pub struct TimerEvent {
    pub t_ns: u64,
    pub task: Arc<str>,
    /// `sleep` or `tick`.
    pub timer: &'static str,
    /// The deadline on the `Instant` clock, ns since the start of the run.
    pub deadline_ns: i64,
    /// `Instant` when the task ran again, minus the deadline.
    pub lateness_ns: u64,
}

/// A task that had not finished when the run ended, and what it waited for then.
#[derive(Clone, Debug, Serialize)]
pub struct UnfinishedEvent {
    pub t_ns: u64,
    pub task: Arc<str>,
    /// Since it arrived or was spawned.
    pub age_ns: u64,
    pub waits: String,
}

impl ModelEvent for UnfinishedEvent {
    crate::model_event_basics!("unfinished");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} UNFINISHED {} after {}: {}",
            Secs(self.t_ns),
            self.task,
            Approx(self.age_ns),
            self.waits
        )
    }

    fn routine(&self) -> bool {
        false
    }

    fn plural(&self) -> &'static str {
        "unfinished tasks"
    }
}

/// A runnable task waited longer than the scenario's `starvation_threshold`.
#[derive(Clone, Debug, Serialize)]
pub struct StarvationEvent {
    pub t_ns: u64,
    pub task: Arc<str>,
    pub waited_ns: u64,
    /// Where it was queued when woken, such as `the LIFO slot of cpu-0`.
    pub queued: Arc<str>,
    /// The worker that finally polled it; absent if it was still waiting when the run ended.
    pub polled_by: Option<Arc<str>>,
}

impl ModelEvent for PollEvent {
    crate::model_event_basics!("poll");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let from = match &self.victim {
            Some(victim) => format!("stolen from {victim}"),
            None => format!("from {}", self.source),
        };
        writeln!(
            out,
            "{:>17} poll      {} runs {} {from}, waited {}",
            Secs(self.t_ns),
            self.worker,
            self.task,
            Approx(self.waited_ns)
        )
    }

    fn plural(&self) -> &'static str {
        "polls"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.waited_ns)
    }

    fn delay_class(&self) -> &str {
        group_of(&self.task)
    }
}

impl ModelEvent for SpawnEvent {
    crate::model_event_basics!("spawn");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} spawn     {} spawns {} into {}",
            Secs(self.t_ns),
            self.task,
            self.spawned,
            self.queued
        )
    }

    fn plural(&self) -> &'static str {
        "spawns"
    }
}

impl ModelEvent for TaskDoneEvent {
    crate::model_event_basics!("task-done");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} done      {} after {}",
            Secs(self.t_ns),
            self.task,
            Approx(self.latency_ns)
        )
    }

    fn plural(&self) -> &'static str {
        "finished tasks"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.latency_ns)
    }

    fn delay_class(&self) -> &str {
        group_of(&self.task)
    }
}

impl ModelEvent for IoEvent {
    crate::model_event_basics!("io");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} io        {} took {} on {} conn{} of {}: send wait {}, network {}, driver wait {}, resume wait {}",
            Secs(self.t_ns),
            self.task,
            Approx(self.latency_ns),
            if self.reused { "reused" } else { "new" },
            self.connection,
            self.owner,
            Approx(self.send_wait_ns),
            Approx(self.network_ns),
            Approx(self.driver_wait_ns),
            Approx(self.resume_wait_ns)
        )
    }

    fn plural(&self) -> &'static str {
        "io calls"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.latency_ns)
    }

    fn delay_class(&self) -> &str {
        group_of(&self.task)
    }
}

impl ModelEvent for IoTimeoutEvent {
    crate::model_event_basics!("io-timeout");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} timeout   {} gave up its io on conn{} after {}, the request {}",
            Secs(self.t_ns),
            self.task,
            self.connection,
            Approx(self.latency_ns),
            self.request
        )
    }

    fn plural(&self) -> &'static str {
        "io timeouts"
    }

    /// A request given up is never folded away.
    fn routine(&self) -> bool {
        false
    }
}

impl ModelEvent for ParkEvent {
    crate::model_event_basics!("park");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} park      {} {}",
            Secs(self.t_ns),
            self.worker,
            if self.on_driver {
                "on the driver"
            } else {
                "asleep"
            }
        )
    }

    fn plural(&self) -> &'static str {
        "parks"
    }
}

impl ModelEvent for DriverPollEvent {
    crate::model_event_basics!("driver-poll");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} driver    {} woke {} ({})",
            Secs(self.t_ns),
            self.worker,
            self.woke,
            self.when
        )
    }

    fn plural(&self) -> &'static str {
        "driver polls"
    }
}

impl ModelEvent for BlockingEvent {
    crate::model_event_basics!("blocking");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let t = Secs(self.t_ns);
        let took = Approx(self.t_ns - self.started_ns);
        let verb = if self.finished { "ran" } else { "was still in" };
        match (self.section, &self.worker) {
            ("block", Some(worker)) => writeln!(
                out,
                "{t:>17} blocking  {} {} for {took}, holding {worker} and its queued tasks",
                self.task,
                if self.finished {
                    "blocked"
                } else {
                    "was still blocked"
                }
            ),
            ("block", None) => writeln!(
                out,
                "{t:>17} blocking  {} {} for {took} on a thread without a core",
                self.task,
                if self.finished {
                    "blocked"
                } else {
                    "was still blocked"
                }
            ),
            (_, Some(worker)) => writeln!(
                out,
                "{t:>17} blocking  {} {verb} block_in_place for {took} on the thread of {worker}",
                self.task
            ),
            (_, None) => writeln!(
                out,
                "{t:>17} blocking  {} {verb} spawn_blocking for {took} on a blocking thread of {}",
                self.task, self.runtime
            ),
        }
    }

    fn plural(&self) -> &'static str {
        "blocking sections"
    }
}

impl ModelEvent for TimerEvent {
    crate::model_event_basics!("timer");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} timer     {} {} due at Instant {} ran {} late",
            Secs(self.t_ns),
            self.task,
            self.timer,
            Secs(self.deadline_ns.max(0) as u64),
            Approx(self.lateness_ns)
        )
    }

    fn plural(&self) -> &'static str {
        "timers"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.lateness_ns)
    }

    fn delay_class(&self) -> &str {
        group_of(&self.task)
    }
}

impl ModelEvent for StarvationEvent {
    crate::model_event_basics!("starvation");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let t = Secs(self.t_ns);
        match &self.polled_by {
            Some(worker) => writeln!(
                out,
                "{t:>17} STARVED   {} waited {} in {} before {worker} polled it",
                self.task,
                Approx(self.waited_ns),
                self.queued
            ),
            None => writeln!(
                out,
                "{t:>17} STARVED   {} still waiting after {} in {}",
                self.task,
                Approx(self.waited_ns),
                self.queued
            ),
        }
    }

    fn routine(&self) -> bool {
        false
    }

    fn plural(&self) -> &'static str {
        "starvation reports"
    }
}
