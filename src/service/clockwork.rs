//! Every host's clocks on one physical timeline, as the host whose code runs now reads them.
//!
//! The run's thread steps one host at a time; while it does, `std::time::Instant`,
//! `SystemTime`, tokio's clock (which reads `Instant`) and libc's clock functions answer from
//! that host's machine, at the physical moment the run stands at. Two hosts read different times
//! at the same moment, as real machines do.

use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;

use ticklab_sim::{ClockId, Drift, Machine};

use crate::tokio::os::answer::HostClocks;

/// One host's clocks: its machine counts in the host's own drifted nanoseconds.
#[derive(Debug)]
pub(crate) struct HostClock {
    pub(crate) name: String,
    pub(crate) machine: Machine,
    pub(crate) drift: Drift,
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
            thread: std::thread::current().id(),
        };
        clockwork.start_instant_ns = (0..clockwork.hosts.len())
            .map(|host| clockwork.reading(host).instant_ns)
            .collect();
        clockwork
    }

    /// What `host`'s clocks read now.
    pub(crate) fn reading(&self, host: usize) -> Reading {
        let clock = &self.hosts[host];
        let local_ns = clock.drift.local_ns(self.now_ns);
        Reading {
            instant_ns: clock.machine.instant_ns(local_ns).max(0) as u64,
            boot_ns: clock
                .machine
                .clocks()
                .read(ClockId::Boottime, local_ns)
                .max(0) as u64,
            wall_ns: clock.machine.wall_ns(local_ns),
        }
    }

    /// The physical time at which `host`'s `Instant` reads `instant_ns`, if nothing changes its
    /// clocks; `None` while its clock is stopped short of it (the system is asleep).
    pub(crate) fn phys_when_instant(&self, host: usize, instant_ns: u64) -> Option<u64> {
        let clock = &self.hosts[host];
        let machine = &clock.machine;
        let local_now_ns = clock.drift.local_ns(self.now_ns);
        let target_ns = machine.instant_to_clock_ns(i64::try_from(instant_ns).ok()?);
        let wait_ns =
            machine
                .clocks()
                .phys_until(machine.instant_clock(), local_now_ns, target_ns)?;
        let local_ns = local_now_ns.saturating_add(wait_ns);
        Some(clock.drift.phys_at_or_after(local_ns).max(self.now_ns))
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

    fn panicked(&self, why: String) {
        let mut clockwork = self.lock();
        match (clockwork.swallow_panics, clockwork.current) {
            (true, Some(host)) => clockwork.swallowed.push((host, why)),
            _ => clockwork.fail(why),
        }
    }
}
