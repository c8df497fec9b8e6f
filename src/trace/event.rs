//! The events of a trace. Every event has a physical time, `t_ns`; the JSON form adds
//! `"event": "<kind>"`.

use std::fmt;
use std::sync::Arc;

use jiff::Timestamp;
use serde::{Serialize, Serializer};

use super::Summary;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event<'a> {
    Start(&'a StartEvent),
    Tick(TickEvent),
    Call(CallEvent),
    Response(ResponseEvent),
    Fire(FireEvent),
    TimerRound(RoundEvent),
    Poll(PollEvent),
    Spawn(SpawnEvent),
    TaskDone(TaskDoneEvent),
    Io(IoEvent),
    Park(ParkEvent),
    DriverPoll(DriverPollEvent),
    Blocking(BlockingEvent),
    Starvation(StarvationEvent),
    LockWait(LockWaitEvent),
    LockWindow(LockWindowEvent),
    IdleWake(IdleWakeEvent),
    Invariant(InvariantEvent),
    FaultBegin(FaultEvent),
    FaultEnd(FaultEvent),
    WallStep(FaultEvent),
    Resume(ResumeEvent),
    Summary(&'a Summary),
}

/// What the run is: the trace's header.
#[derive(Clone, Debug, Serialize)]
pub struct StartEvent {
    pub t_ns: u64,
    pub about: String,
    pub source: String,
    pub model: &'static str,
    pub platform: &'static str,
    pub instant_clock: &'static str,
    /// The OS primitive the platform's `Instant` reads, when the scenario does not override it.
    pub instant_source: Option<&'static str>,
    pub seed: u64,
    pub run_for_ns: u64,
    pub wall: Wall,
    /// The cost profile system calls are charged from, for models that use one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

/// An interval yielded a tick.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct TickEvent {
    pub t_ns: u64,
    pub interval: u32,
    /// 1 for an interval's first tick, then counting up, like a program's own log counter.
    pub seq: u64,
    /// `Instant::now()` when the tick was handled.
    pub instant_ns: i64,
    /// The instant the tick was scheduled for, which `tick()` returns.
    pub deadline_ns: i64,
    pub wall: Wall,
}

/// A client started a call and armed its timeout.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CallEvent {
    pub t_ns: u64,
    pub client: u32,
    pub call: u32,
    /// The timer's id, or 0 if no slot was free.
    pub timer: u64,
    /// The timer thread that owns it.
    pub thread: u32,
    /// Whether arming it took the lock all schedulers share.
    pub global_lock: bool,
    /// Whether it woke the timer thread.
    pub woke: bool,
}

/// A call's response arrived and cancelled its timer, or found it already fired.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ResponseEvent {
    pub t_ns: u64,
    pub call: u32,
    /// `cancelled`, `running` or `not-found`, as `unschedule` said.
    pub outcome: &'static str,
}

/// A call's timeout fired.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FireEvent {
    pub t_ns: u64,
    pub call: u32,
    pub thread: u32,
    /// Physical time past the call's real timeout; negative for a timer that fired early.
    pub lateness_ns: i64,
}

/// A timer thread woke, ran what was due, and went back to sleep.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RoundEvent {
    pub t_ns: u64,
    pub thread: u32,
    pub fired: u32,
    /// The deadline it sleeps until, on the design's clock; absent if it sleeps until signalled.
    pub sleep_until_ns: Option<i64>,
    /// The design's clock: `wall` (readings are ns since 1970) or `monotonic`.
    pub clock: &'static str,
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
    /// `spawn_blocking` or `block_in_place`.
    pub section: &'static str,
    pub runtime: Arc<str>,
    /// For `block_in_place`, the worker whose thread ran it.
    pub worker: Option<Arc<str>>,
    /// False for a section still running when the run ended.
    pub finished: bool,
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

/// A thread got the process-wide lock.
#[derive(Clone, Debug, Serialize)]
pub struct LockWaitEvent {
    pub t_ns: u64,
    pub thread: Arc<str>,
    /// `write` for a spawn, `read` for a reader.
    pub access: &'static str,
    pub waited_ns: u64,
    /// How long it will hold the lock, on a core: the system call's cost.
    pub hold_ns: u64,
    pub memory_mib: u64,
}

/// The lock waits of one window of the run.
#[derive(Clone, Debug, Serialize)]
pub struct LockWindowEvent {
    pub t_ns: u64,
    pub from_ns: u64,
    pub acquisitions: u64,
    pub p50_wait_ns: u64,
    pub p99_wait_ns: u64,
    pub max_wait_ns: u64,
    /// Mapped memory at the window's end.
    pub memory_mib: u64,
}

/// An idle loop noticed events and handles them.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct IdleWakeEvent {
    pub t_ns: u64,
    pub strategy: &'static str,
    pub events: u64,
    /// From the first of them arriving to now.
    pub latency_ns: u64,
    /// Idle calls the loop made since it last handled events.
    pub idle_calls: u64,
}

/// A model broke one of its invariants.
#[derive(Clone, Debug, Serialize)]
pub struct InvariantEvent {
    pub t_ns: u64,
    pub what: String,
}

/// A fault began, ended, or (for a wall step) happened.
#[derive(Clone, Debug, Serialize)]
pub struct FaultEvent {
    pub t_ns: u64,
    /// Position of the fault in the scenario file, counting from 0.
    pub fault: usize,
    pub kind: &'static str,
    pub what: String,
    pub instant_ns: i64,
    pub wall: Wall,
}

/// The process can run again after a suspend.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ResumeEvent {
    pub t_ns: u64,
    /// How long it could not run.
    pub stopped_ns: u64,
    pub instant_ns: i64,
    pub wall: Wall,
}

impl Event<'_> {
    /// Routine events repeat by the thousand (ticks, calls, fires); text traces may elide them.
    /// The rest (start, faults, resumes, summary) are always printed.
    pub fn routine(&self) -> Option<Event<'static>> {
        match self {
            Event::Tick(event) => Some(Event::Tick(*event)),
            Event::Call(event) => Some(Event::Call(*event)),
            Event::Response(event) => Some(Event::Response(*event)),
            Event::Fire(event) => Some(Event::Fire(*event)),
            Event::TimerRound(event) => Some(Event::TimerRound(*event)),
            Event::Poll(event) => Some(Event::Poll(event.clone())),
            Event::Spawn(event) => Some(Event::Spawn(event.clone())),
            Event::TaskDone(event) => Some(Event::TaskDone(event.clone())),
            Event::Io(event) => Some(Event::Io(event.clone())),
            Event::Park(event) => Some(Event::Park(event.clone())),
            Event::DriverPoll(event) => Some(Event::DriverPoll(event.clone())),
            Event::Blocking(event) => Some(Event::Blocking(event.clone())),
            Event::LockWait(event) => Some(Event::LockWait(event.clone())),
            Event::IdleWake(event) => Some(Event::IdleWake(*event)),
            Event::Starvation(_)
            | Event::Invariant(_)
            | Event::LockWindow(_)
            | Event::Start(_)
            | Event::FaultBegin(_)
            | Event::FaultEnd(_)
            | Event::WallStep(_)
            | Event::Resume(_) => None,
            Event::Summary(_) => None,
        }
    }

    /// How long the event came after it was due or wanted, for routine events that have such a
    /// delay: a tick's or fire's lateness, a poll's or lock's wait, a task's or wake's latency.
    /// Elision keeps the events whose delay stands out.
    pub fn delay_ns(&self) -> Option<u64> {
        match self {
            Event::Tick(tick) => {
                Some(tick.instant_ns.saturating_sub(tick.deadline_ns).max(0) as u64)
            }
            Event::Fire(fire) => Some(fire.lateness_ns.max(0) as u64),
            Event::Poll(poll) => Some(poll.waited_ns),
            Event::TaskDone(done) => Some(done.latency_ns),
            Event::Io(io) => Some(io.latency_ns),
            Event::LockWait(wait) => Some(wait.waited_ns),
            Event::IdleWake(wake) => Some(wake.latency_ns),
            _ => None,
        }
    }

    /// What an event's delay is compared with: events of its kind and of the same part (a task
    /// group, a lock access, an idle strategy), so one group's slow tasks are not outliers
    /// beside another's quick ones.
    pub fn delay_class(&self) -> &str {
        let group = |task: &'_ str| -> usize { task.find('#').unwrap_or(task.len()) };
        match self {
            Event::Poll(poll) => &poll.task[..group(&poll.task)],
            Event::TaskDone(done) => &done.task[..group(&done.task)],
            Event::Io(io) => &io.task[..group(&io.task)],
            Event::LockWait(wait) => wait.access,
            Event::IdleWake(wake) => wake.strategy,
            _ => "",
        }
    }

    pub fn t_ns(&self) -> u64 {
        match self {
            Event::Start(start) => start.t_ns,
            Event::Tick(tick) => tick.t_ns,
            Event::Call(call) => call.t_ns,
            Event::Response(response) => response.t_ns,
            Event::Fire(fire) => fire.t_ns,
            Event::TimerRound(round) => round.t_ns,
            Event::Poll(poll) => poll.t_ns,
            Event::Spawn(spawn) => spawn.t_ns,
            Event::TaskDone(done) => done.t_ns,
            Event::Io(io) => io.t_ns,
            Event::Park(park) => park.t_ns,
            Event::DriverPoll(poll) => poll.t_ns,
            Event::Blocking(blocking) => blocking.t_ns,
            Event::Starvation(starvation) => starvation.t_ns,
            Event::LockWait(wait) => wait.t_ns,
            Event::LockWindow(window) => window.t_ns,
            Event::IdleWake(wake) => wake.t_ns,
            Event::Invariant(invariant) => invariant.t_ns,
            Event::FaultBegin(fault) | Event::FaultEnd(fault) | Event::WallStep(fault) => {
                fault.t_ns
            }
            Event::Resume(resume) => resume.t_ns,
            Event::Summary(summary) => summary.t_ns,
        }
    }
}

/// A wall-clock reading, ns since the Unix epoch; shown as RFC 3339 with nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wall(pub i64);

impl fmt::Display for Wall {
    /// Traces print a wall reading per event and most share their second with the one before, so
    /// the date and time of day are formatted once per second and reused.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        thread_local! {
            static LAST_SECOND: std::cell::RefCell<(i64, String)> = const { std::cell::RefCell::new((i64::MIN, String::new())) };
        }
        let second = self.0.div_euclid(1_000_000_000);
        let nanos = self.0.rem_euclid(1_000_000_000);
        LAST_SECOND.with_borrow_mut(|(cached_second, prefix)| {
            if *cached_second != second {
                let Ok(timestamp) = Timestamp::from_second(second) else {
                    return write!(f, "{}ns", self.0);
                };
                // Whole seconds print as `2020-03-12T14:08:19Z`; the `Z` goes after the fraction.
                *prefix = format!("{timestamp:.0}").trim_end_matches('Z').to_string();
                *cached_second = second;
            }
            write!(f, "{prefix}.{nanos:09}Z")
        })
    }
}

impl Serialize for Wall {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_readings_print_as_rfc3339_with_nanoseconds_either_side_of_1970() {
        for (ns, text) in [
            (1_584_022_098_000_000_001, "2020-03-12T14:08:18.000000001Z"),
            (1_584_022_098_999_999_999, "2020-03-12T14:08:18.999999999Z"),
            (1_584_022_099_000_000_000, "2020-03-12T14:08:19.000000000Z"),
            (-1, "1969-12-31T23:59:59.999999999Z"),
        ] {
            assert_eq!(Wall(ns).to_string(), text);
            let reference = Timestamp::from_nanosecond(i128::from(ns)).unwrap();
            assert_eq!(Wall(ns).to_string(), format!("{reference:.9}"));
        }
    }
}

/// Signed nanoseconds as seconds with nine fraction digits, for `Instant` readings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedSecs(pub i64);

impl fmt::Display for SignedSecs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        write!(f, "{sign}{}", ticklab_sim::Secs(self.0.unsigned_abs()))
    }
}
