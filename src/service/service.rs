//! A service declared in code: its hosts, each with its own code, platform, clocks and faults,
//! and the network between them.

use std::future::Future;
use std::time::Duration;

use ticklab_sim::{Fault, Platform};

use super::host::{Result, Software};
use super::run::{ServiceError, ServiceRun, run};

/// Whether a host's code serves (the run goes on after it returns) or is a client (the run ends
/// once every client has returned), as turmoil's hosts and clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Server,
    Client,
}

/// One host as declared.
pub(crate) struct HostSpec {
    pub(crate) name: String,
    pub(crate) role: Role,
    pub(crate) platform: Platform,
    pub(crate) drift_ppb: i64,
    pub(crate) wall_offset_ns: i64,
    pub(crate) faults: Vec<Fault>,
    pub(crate) software: Software,
}

impl std::fmt::Debug for HostSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostSpec")
            .field("name", &self.name)
            .field("role", &self.role)
            .field("platform", &self.platform)
            .field("drift_ppb", &self.drift_ppb)
            .field("faults", &self.faults)
            .finish()
    }
}

/// A partition between two hosts, in physical time.
#[derive(Clone, Debug)]
pub(crate) struct PartitionSpec {
    pub(crate) between: (String, String),
    pub(crate) at_ns: u64,
    pub(crate) duration_ns: u64,
}

/// Several hosts, each running its own async code, on one physical timeline. See [the
/// module](super).
#[derive(Debug)]
pub struct Service {
    pub(crate) run_for_ns: u64,
    pub(crate) latency_ns: u64,
    pub(crate) wall_start_ns: i64,
    pub(crate) hosts: Vec<HostSpec>,
    pub(crate) partitions: Vec<PartitionSpec>,
    /// Why the declaration cannot run, found as it was made.
    pub(crate) invalid: Vec<String>,
}

/// The wall clock at the start unless set: 2024-01-01T00:00:00Z.
const WALL_START_NS: i64 = 1_704_067_200_000_000_000;

fn ns(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

impl Default for Service {
    fn default() -> Self {
        Service::new()
    }
}

impl Service {
    /// A service with no hosts yet, that runs for a minute, on a network whose links take 1 ms.
    pub fn new() -> Service {
        Service {
            run_for_ns: 60_000_000_000,
            latency_ns: 1_000_000,
            wall_start_ns: WALL_START_NS,
            hosts: Vec::new(),
            partitions: Vec::new(),
            invalid: Vec::new(),
        }
    }

    /// The physical length of the run: it ends then, or once every client has returned.
    pub fn run_for(&mut self, run_for: Duration) -> &mut Self {
        self.run_for_ns = ns(run_for);
        self
    }

    /// How long every link takes to carry a segment.
    pub fn latency(&mut self, latency: Duration) -> &mut Self {
        self.latency_ns = ns(latency);
        self
    }

    /// Every host's wall clock at the start, before its own offset, in ns since the Unix epoch.
    pub fn wall_start_unix_ns(&mut self, wall_start_ns: i64) -> &mut Self {
        self.wall_start_ns = wall_start_ns;
        self
    }

    /// A host named `name` that runs `software` from the start: a server, whose return does not
    /// end the run. It is `Fn`, as turmoil's, and is called once.
    pub fn host<F, Fut>(&mut self, name: &str, software: F) -> HostSettings<'_>
    where
        F: Fn() -> Fut + 'static,
        Fut: Future<Output = Result> + 'static,
    {
        let software: Software = Box::new(move || Box::pin(software()));
        self.add(name, Role::Server, software)
    }

    /// A host named `name` that runs `client`: the run ends once every client has returned, and
    /// fails if one returns an error.
    pub fn client<Fut>(&mut self, name: &str, client: Fut) -> HostSettings<'_>
    where
        Fut: Future<Output = Result> + 'static,
    {
        let software: Software = Box::new(move || Box::pin(client));
        self.add(name, Role::Client, software)
    }

    fn add(&mut self, name: &str, role: Role, software: Software) -> HostSettings<'_> {
        if self.hosts.iter().any(|host| host.name == name) {
            self.invalid
                .push(format!("two hosts are named `{name}`; each needs a name of its own"));
        }
        self.hosts.push(HostSpec {
            name: name.to_string(),
            role,
            platform: Platform::Linux,
            drift_ppb: 0,
            wall_offset_ns: 0,
            faults: Vec::new(),
            software,
        });
        let index = self.hosts.len() - 1;
        HostSettings {
            service: self,
            index,
        }
    }

    /// The network between `a` and `b` is cut from `at` for `duration`, both ways.
    pub fn partition(&mut self, a: &str, b: &str, at: Duration, duration: Duration) -> &mut Self {
        self.partitions.push(PartitionSpec {
            between: (a.to_string(), b.to_string()),
            at_ns: ns(at),
            duration_ns: ns(duration),
        });
        self
    }

    /// Runs every host's code until the run's time ends, or every client has returned.
    ///
    /// # Errors
    ///
    /// If the declaration is invalid, a client returns an error or had not returned when time
    /// ran out, a host's code panics, or it does what the simulation cannot see (starts a
    /// thread, sleeps the thread, reads a clock the machine does not have); the error names the
    /// host.
    ///
    /// # Panics
    ///
    /// Inside a tokio runtime, and where the OS clocks cannot be brought inside the simulation
    /// (anything but Linux with glibc and the `os-clocks` feature).
    pub fn run(self) -> std::result::Result<ServiceRun, ServiceError> {
        run(self)
    }
}

/// A host's platform, clocks and faults, set as it is declared.
#[derive(Debug)]
pub struct HostSettings<'a> {
    service: &'a mut Service,
    index: usize,
}

impl HostSettings<'_> {
    fn spec(&mut self) -> &mut HostSpec {
        &mut self.service.hosts[self.index]
    }

    fn fault(mut self, fault: Fault) -> Self {
        self.spec().faults.push(fault);
        self
    }

    /// The platform, which decides which clock `Instant` reads (Linux unless set).
    pub fn platform(mut self, platform: Platform) -> Self {
        self.spec().platform = platform;
        self
    }

    /// The host's crystal runs `ppm` parts per million fast (or slow, if negative): every clock
    /// it has counts that much fast.
    pub fn drift_ppm(mut self, ppm: f64) -> Self {
        let ppb = (ppm * 1_000.0).round();
        if !ppb.is_finite() || ppb.abs() > ticklab_sim::MAX_DRIFT_PPB as f64 {
            let name = self.spec().name.clone();
            self.service.invalid.push(format!(
                "host `{name}`: a drift of {ppm} ppm is beyond the {} ppm any crystal could be off",
                ticklab_sim::MAX_DRIFT_PPB / 1_000
            ));
            return self;
        }
        self.spec().drift_ppb = ppb as i64;
        self
    }

    /// The host's wall clock starts `offset` ahead of the others'.
    pub fn wall_ahead(mut self, offset: Duration) -> Self {
        self.spec().wall_offset_ns = i64::try_from(offset.as_nanos()).unwrap_or(i64::MAX);
        self
    }

    /// The host's wall clock starts `offset` behind the others'.
    pub fn wall_behind(mut self, offset: Duration) -> Self {
        self.spec().wall_offset_ns = -i64::try_from(offset.as_nanos()).unwrap_or(i64::MAX);
        self
    }

    /// The host's system sleeps from `at` for `duration`: nothing runs on it, its monotonic
    /// clock stops where its platform's does, and datagrams to it are lost.
    pub fn system_suspend(self, at: Duration, duration: Duration) -> Self {
        self.fault(Fault::SystemSuspend {
            at_ns: ns(at),
            duration_ns: ns(duration),
        })
    }

    /// The host's process is frozen from `at` for `duration` (a GC pause, SIGSTOP, a debugger):
    /// it runs nothing and sends nothing, its clocks go on, and its kernel queues what arrives.
    pub fn process_suspend(self, at: Duration, duration: Duration) -> Self {
        self.fault(Fault::ProcessSuspend {
            at_ns: ns(at),
            duration_ns: ns(duration),
        })
    }

    /// The host's wall clock jumps forward by `by` at `at`.
    pub fn wall_step_forward(self, at: Duration, by: Duration) -> Self {
        self.fault(Fault::WallStep {
            at_ns: ns(at),
            by_ns: i64::try_from(by.as_nanos()).unwrap_or(i64::MAX),
        })
    }

    /// The host's wall clock jumps back by `by` at `at`.
    pub fn wall_step_back(self, at: Duration, by: Duration) -> Self {
        self.fault(Fault::WallStep {
            at_ns: ns(at),
            by_ns: -i64::try_from(by.as_nanos()).unwrap_or(i64::MAX),
        })
    }

    /// The host's wall clock runs `rate` fast (or slow, if negative) from `at` for `duration`:
    /// NTP slews at up to 0.0005.
    pub fn wall_slew(self, at: Duration, duration: Duration, rate: f64) -> Self {
        self.fault(Fault::WallSlew {
            at_ns: ns(at),
            duration_ns: ns(duration),
            rate_ppb: (rate * 1e9).round() as i64,
        })
    }
}
