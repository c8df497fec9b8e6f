//! Every host's clocks on one physical timeline, as the host whose code runs now reads them.
//!
//! The run's thread steps one host at a time; while it does, `std::time::Instant`,
//! `SystemTime`, tokio's clock (which reads `Instant`) and libc's clock functions answer from
//! that host's machine, at the physical moment the run stands at. Two hosts read different times
//! at the same moment, as real machines do.

use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;

use ticklab_sim::{ClockId, Drift, FaultEdge, FaultSchedule, Machine};

use crate::tokio::os::answer::{Clock, HostClocks, Sleep, from_clock_base_ns};

thread_local! {
    /// While a host's code holds its thread in `thread::sleep`: the physical moment the sleep
    /// ends, from which what it sends afterwards leaves.
    static HELD_UNTIL_NS: Cell<Option<u64>> = const { Cell::new(None) };
}

/// When what the host whose code runs now sends leaves: after any sleep that held its thread.
pub(crate) fn departs_at_ns() -> Option<u64> {
    HELD_UNTIL_NS.get()
}

/// A host's thread held by a sleep within a step.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    pub(crate) host: usize,
    pub(crate) target: SleepTarget,
    /// The physical moment the sleep ends.
    pub(crate) until_ns: u64,
    /// The host's machine as it is then, through the fault edges the sleep spans, and how many
    /// of its edges that has applied: what its clocks read after the sleep.
    machine: Machine,
    edges_applied: usize,
}

/// What a sleep of the host's thread waits for: its machine's clock reading a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SleepTarget {
    pub(crate) clock: ClockId,
    pub(crate) target_ns: i64,
}

/// One host's clocks: its machine counts in the host's own drifted nanoseconds.
#[derive(Debug)]
pub(crate) struct HostClock {
    pub(crate) name: String,
    pub(crate) machine: Machine,
    pub(crate) drift: Drift,
    /// Every fault edge of the host, in the order the run applies them, and how many it has:
    /// a sleep's end is found through the ones still to come.
    pub(crate) edges: Vec<FaultEdge>,
    pub(crate) edges_applied: usize,
}

/// Every edge of `faults`, in the order the run applies them.
pub(crate) fn edges_of(faults: &[ticklab_sim::Fault]) -> Vec<FaultEdge> {
    let mut schedule = FaultSchedule::new(faults);
    std::iter::from_fn(|| schedule.pop()).collect()
}

/// What a host's clocks read at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reading {
    pub(crate) instant_ns: u64,
    pub(crate) boot_ns: u64,
    pub(crate) wall_ns: i64,
}

#[derive(Debug)]
pub(crate) struct Clockwork {
    pub(crate) now_ns: u64,
    /// The host whose code runs now.
    pub(crate) current: Option<usize>,
    pub(crate) hosts: Vec<HostClock>,
    /// The first thing a host's code did that the simulation cannot see, naming the host.
    pub(crate) failure: Option<String>,
    /// Each host's `Instant` as the run began.
    pub(crate) start_instant_ns: Vec<u64>,
    /// Whether a task's panic is left to tokio (the task ends, the rest go on), not a failure.
    pub(crate) swallow_panics: bool,
    /// Panics left to tokio since the run last looked: (host, what and where).
    pub(crate) swallowed: Vec<(usize, String)>,
    /// The host whose thread a sleep holds in this step: its clocks read from the sleep's end on.
    pub(crate) held: Option<Held>,
    /// Every host runs on this thread.
    thread: ThreadId,
}

impl Clockwork {
    pub(crate) fn new(hosts: Vec<HostClock>) -> Clockwork {
        let mut clockwork = Clockwork {
            now_ns: 0,
            current: None,
            hosts,
            failure: None,
            start_instant_ns: Vec::new(),
            swallow_panics: false,
            swallowed: Vec::new(),
            held: None,
            thread: std::thread::current().id(),
        };
        clockwork.start_instant_ns = (0..clockwork.hosts.len())
            .map(|host| clockwork.reading(host).instant_ns)
            .collect();
        clockwork
    }

    /// The physical moment `host` lives at: now, or the end of a sleep that holds its thread.
    pub(crate) fn host_now_ns(&self, host: usize) -> u64 {
        match &self.held {
            Some(held) if held.host == host => held.until_ns,
            _ => self.now_ns,
        }
    }

    /// `host`'s machine as it is at [`Clockwork::host_now_ns`], and how many of its fault edges
    /// that has applied.
    fn host_machine(&self, host: usize) -> (&Machine, usize) {
        match &self.held {
            Some(held) if held.host == host => (&held.machine, held.edges_applied),
            _ => (&self.hosts[host].machine, self.hosts[host].edges_applied),
        }
    }

    /// Lets go of the thread a sleep held: what the host waited for, if a sleep held it.
    pub(crate) fn release(&mut self) -> Option<Held> {
        HELD_UNTIL_NS.set(None);
        self.held.take()
    }

    /// What `host`'s clocks read now.
    pub(crate) fn reading(&self, host: usize) -> Reading {
        let (machine, _) = self.host_machine(host);
        let local_ns = self.hosts[host].drift.local_ns(self.host_now_ns(host));
        Reading {
            instant_ns: machine.instant_ns(local_ns).max(0) as u64,
            boot_ns: machine.clocks().read(ClockId::Boottime, local_ns).max(0) as u64,
            wall_ns: machine.wall_ns(local_ns),
        }
    }

    /// The physical time at which `host`'s `Instant` reads `instant_ns`, if nothing changes its
    /// clocks; `None` while its clock is stopped short of it (the system is asleep).
    pub(crate) fn phys_when_instant(&self, host: usize, instant_ns: u64) -> Option<u64> {
        let machine = &self.hosts[host].machine;
        let target_ns = machine.instant_to_clock_ns(i64::try_from(instant_ns).ok()?);
        self.phys_when(host, machine.instant_clock(), target_ns)
    }

    /// The physical time at which `host`'s clock `clock` reads `target_ns`, if nothing changes
    /// its clocks; `None` while that clock is stopped short of it.
    pub(crate) fn phys_when(&self, host: usize, clock: ClockId, target_ns: i64) -> Option<u64> {
        let host_clock = &self.hosts[host];
        phys_on(
            &host_clock.machine,
            host_clock.drift,
            self.host_now_ns(host),
            clock,
            target_ns,
        )
    }

    /// When a sleep of `host`'s thread until its clock `clock` reads `target_ns` returns:
    /// once the clock reads it and the process can run, through the fault edges still to come
    /// (a suspend that stops the clock, a wall step, a freeze the end falls in). The host's own
    /// faults are all its clocks and its process answer to, and they are declared up front.
    /// `None` if that never comes.
    pub(crate) fn phys_when_ahead(
        &self,
        host: usize,
        clock: ClockId,
        target_ns: i64,
    ) -> Option<u64> {
        let target = SleepTarget { clock, target_ns };
        self.sleep_end(host, target).map(|held| held.until_ns)
    }

    /// The end of a sleep of `host`'s thread until `target`, with the machine as it is then.
    fn sleep_end(&self, host: usize, target: SleepTarget) -> Option<Held> {
        let drift = self.hosts[host].drift;
        let (machine, mut edges_applied) = self.host_machine(host);
        let mut machine = machine.clone();
        let mut from_ns = self.host_now_ns(host);
        let end_on = |machine: &Machine, from_ns| {
            phys_on(machine, drift, from_ns, target.clock, target.target_ns)
        };
        let mut reached_ns = None;
        for edge in &self.hosts[host].edges[edges_applied..] {
            let edge_ns = edge.at_ns.max(from_ns);
            if reached_ns.is_none() {
                reached_ns = end_on(&machine, from_ns).filter(|&end_ns| end_ns <= edge_ns);
            }
            if reached_ns.is_some() && machine.can_run() {
                break;
            }
            machine.apply(&FaultEdge {
                at_ns: drift.local_ns(edge_ns),
                ..*edge
            });
            edges_applied += 1;
            from_ns = edge_ns;
        }
        let end_ns = match reached_ns {
            Some(end_ns) => end_ns,
            None => end_on(&machine, from_ns)?,
        };
        machine.can_run().then_some(Held {
            host,
            target,
            until_ns: end_ns.max(from_ns),
            machine,
            edges_applied,
        })
    }

    /// What a sleep of `host`'s thread waits for, on its own clocks.
    fn sleep_target(&self, host: usize, sleep: Sleep) -> Result<SleepTarget, String> {
        let (machine, _) = self.host_machine(host);
        let local_ns = self.hosts[host].drift.local_ns(self.host_now_ns(host));
        let target = match sleep {
            // Linux measures a relative sleep on CLOCK_MONOTONIC.
            Sleep::For { ns } => SleepTarget {
                clock: ClockId::Monotonic,
                target_ns: machine
                    .clocks()
                    .read(ClockId::Monotonic, local_ns)
                    .saturating_add(i64::try_from(ns).unwrap_or(i64::MAX)),
            },
            Sleep::Until { clock, ns } => {
                let ns = from_clock_base_ns(clock, ns)
                    .ok_or("slept until a time on a clock the host's machine does not have")?;
                let (clock, target_ns) = match clock {
                    Clock::Instant => (machine.instant_clock(), machine.instant_to_clock_ns(ns)),
                    Clock::Boottime => (ClockId::Boottime, ns),
                    _ => (ClockId::Wall, ns),
                };
                SleepTarget { clock, target_ns }
            }
        };
        Ok(target)
    }

    fn fail(&mut self, why: String) {
        if self.failure.is_none() {
            let host = match self.current {
                Some(host) => format!("the code on host `{}`", self.hosts[host].name),
                None => "the code under test".to_string(),
            };
            self.failure = Some(format!("{host} {why}"));
        }
    }
}

/// The physical time, from `from_ns` on, at which `clock` of a machine with `drift` reads
/// `target_ns`, if nothing changes its clocks.
fn phys_on(
    machine: &Machine,
    drift: Drift,
    from_ns: u64,
    clock: ClockId,
    target_ns: i64,
) -> Option<u64> {
    let local_now_ns = drift.local_ns(from_ns);
    let wait_ns = machine
        .clocks()
        .phys_until(clock, local_now_ns, target_ns)?;
    let local_ns = local_now_ns.saturating_add(wait_ns);
    Some(drift.phys_at_or_after(local_ns).max(from_ns))
}

/// The clockwork, shared with the answers to the OS clock calls.
#[derive(Clone, Debug)]
pub(crate) struct SharedClockwork(pub(crate) Arc<Mutex<Clockwork>>);

impl SharedClockwork {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Clockwork> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl HostClocks for SharedClockwork {
    fn now(&self) -> Result<(u64, u64, i64), String> {
        let clockwork = self.lock();
        if std::thread::current().id() != clockwork.thread {
            return Err("on a thread of its own, which no host's clocks answer".to_string());
        }
        let host = clockwork
            .current
            .ok_or_else(|| "while no host's code ran".to_string())?;
        let reading = clockwork.reading(host);
        Ok((reading.instant_ns, reading.boot_ns, reading.wall_ns))
    }

    fn fail(&self, why: String) {
        self.lock().fail(why);
    }

    /// The host's thread is held until its clock reads the sleep's end: it runs nothing, and
    /// its clocks and what it sends go on from then.
    fn sleep(&self, sleep: Sleep) -> Result<(), String> {
        let mut clockwork = self.lock();
        if std::thread::current().id() != clockwork.thread {
            return Err("on a thread of its own, which no host's clocks answer".to_string());
        }
        let host = clockwork
            .current
            .ok_or_else(|| "while no host's code ran".to_string())?;
        let target = clockwork.sleep_target(host, sleep)?;
        let held = clockwork
            .sleep_end(host, target)
            .ok_or("slept on a clock that stands still for the rest of the run")?;
        HELD_UNTIL_NS.set(Some(held.until_ns));
        clockwork.held = Some(held);
        Ok(())
    }

    fn panicked(&self, why: String) {
        let mut clockwork = self.lock();
        match (clockwork.swallow_panics, clockwork.current) {
            (true, Some(host)) => clockwork.swallowed.push((host, why)),
            _ => clockwork.fail(why),
        }
    }
}
