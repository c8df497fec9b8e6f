//! A service declared in code: its hosts, each with its own code, platform, clocks and faults,
//! and the network between them.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use ticklab_sim::{Drift, Fault, Platform};

use super::host::{Result, Software};
use super::host_settings::HostSettings;
use super::outcome::{ServiceError, ServiceRun};
use super::run::run;
use crate::hosts::HostsConfig;
use crate::hosts::network::{NetworkConfig, Pair, Window};
use crate::hosts::thaw::ThawOrder;
use crate::scenario::error::ScenarioError;

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
    pub(crate) thaw_order: ThawOrder,
    /// Its code; `None` for a host a file declared and no code was given.
    pub(crate) software: Option<Software>,
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

/// A partition or latency spike between two hosts named in code, in physical time.
#[derive(Clone, Debug)]
pub(crate) struct NamedWindow {
    pub(crate) between: (String, String),
    pub(crate) at_ns: u64,
    pub(crate) duration_ns: u64,
    pub(crate) latency_ns: (u64, u64),
}

/// Several hosts, each running its own async code, on one physical timeline. See [the
/// module](super).
#[derive(Debug)]
pub struct Service {
    pub(crate) run_for_ns: u64,
    pub(crate) seed: u64,
    pub(crate) wall_start_ns: i64,
    pub(crate) hosts: Vec<HostSpec>,
    /// The network a file declared, or the latency set in code, with the file's partitions and
    /// spikes between its hosts.
    pub(crate) network: NetworkConfig,
    /// Partitions and spikes declared in code, by host name.
    pub(crate) partitions: Vec<NamedWindow>,
    pub(crate) spikes: Vec<NamedWindow>,
    /// The chance that a link loses a copy of a segment, in parts per million.
    pub(crate) loss_ppm: u64,
    /// Most host steps the run may take.
    pub(crate) max_steps: u64,
    /// Most the run may hold, as its footprint counts it.
    pub(crate) max_memory_bytes: u64,
    /// A task's panic is left to tokio rather than failing the run.
    pub(crate) swallow_panics: bool,
    /// Real time a host's code may run without waiting before a warning.
    pub(crate) warn_after_real_ns: u64,
    /// Real time a host's code may hold the thread before the process is stopped.
    pub(crate) stop_after_real_ns: u64,
    /// The file the hosts came from: code then runs on hosts it declares.
    pub(crate) source: Option<String>,
    /// Why the declaration cannot run, found as it was made.
    pub(crate) invalid: Vec<String>,
}

/// The wall clock at the start unless set: a scenario file's own default.
fn default_wall_start_ns() -> i64 {
    let start: jiff::Timestamp = crate::scenario::DEFAULT_WALL_START
        .parse()
        .expect("the default wall start is RFC 3339");
    i64::try_from(start.as_nanosecond()).expect("2026 fits in i64 ns")
}

pub(crate) fn ns(duration: Duration) -> u64 {
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
            seed: 0,
            wall_start_ns: default_wall_start_ns(),
            hosts: Vec::new(),
            network: NetworkConfig {
                latency_ns: (1_000_000, 1_000_000),
                links: Vec::new(),
                partitions: Vec::new(),
                spikes: Vec::new(),
            },
            partitions: Vec::new(),
            spikes: Vec::new(),
            loss_ppm: 0,
            max_steps: crate::run::DEFAULT_MAX_EVENTS,
            max_memory_bytes: crate::memory::DEFAULT_MAX_MEMORY_BYTES,
            swallow_panics: false,
            warn_after_real_ns: 50_000_000,
            stop_after_real_ns: 60_000_000_000,
            source: None,
            invalid: Vec::new(),
        }
    }

    /// Keeps tokio's own way with a task that panics on any host: the task ends and the rest
    /// go on, and the trace says which host's task panicked, where and with what. By default
    /// such a panic fails the run, naming the host. A client whose own code panics never
    /// returns, so the run still fails when its time runs out.
    pub fn swallowing_task_panics(&mut self) -> &mut Self {
        self.swallow_panics = true;
        self
    }

    /// Bounds what the run may hold (1 GiB unless set): its hosts' runtimes, their sockets and
    /// what waits in them unread, segments on their way, notes and trace, counted every 1,024
    /// host steps and after any step that sends or notes a sixteenth of the bound. A run past it fails, naming what filled it; a service whose hosts alone would
    /// pass it is refused before it runs. [`ServiceRun::footprint`] says what a run held.
    ///
    /// [`ServiceRun::footprint`]: super::ServiceRun::footprint
    pub fn max_memory(&mut self, max_memory_bytes: u64) -> &mut Self {
        self.max_memory_bytes = max_memory_bytes;
        self
    }

    /// Bounds the run's work: it fails once it has stepped its hosts' runtimes this many
    /// times (250 million unless set), rather than run for hours.
    pub fn max_events(&mut self, max_events: u64) -> &mut Self {
        self.max_steps = max_events;
        self
    }

    /// Stops the process, naming the host, once a host's code has held the thread for `real` of
    /// real time without waiting (a minute unless set): blocked for good in a std mutex or a
    /// read, where no error can reach it, it would hang the test.
    pub fn stop_when_stuck_for(&mut self, real: Duration) -> &mut Self {
        self.stop_after_real_ns = ns(real);
        self
    }

    /// Warns when a host's code runs for longer than `real` of real time without waiting (50 ms
    /// unless set): something blocked it that simulated time cannot see. The warnings go to
    /// stderr and [`ServiceRun::warnings`], and never change the run.
    pub fn warn_when_blocked_for(&mut self, real: Duration) -> &mut Self {
        self.warn_after_real_ns = ns(real);
        self
    }

    /// The hosts, network, faults and length of a `kind = "hosts"` scenario file, with no code
    /// on any host yet: [`host`](Service::host) and [`client`](Service::client) give each host
    /// its code by the name the file gives it. The file's `[model]` workloads are checked, then
    /// set aside: the same file runs ticklab's built-in protocol and yours under the same faults.
    pub fn load(path: impl AsRef<Path>) -> std::result::Result<Service, ScenarioError> {
        let path = path.as_ref();
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| {
            ScenarioError::whole_file(&source, format!("cannot read the scenario: {error}"))
                .with_hint("a path relative to the test runs from the crate's folder")
        })?;
        Service::parse(&source, &text)
    }

    /// The same as [`Service::load`], from text; `source` names it in errors.
    pub fn parse(source: &str, text: &str) -> std::result::Result<Service, ScenarioError> {
        let scenario = crate::loader::parse(source, text)?;
        let Some(config) = scenario.model.config::<HostsConfig>() else {
            return Err(ScenarioError::whole_file(
                source,
                "a service runs on the hosts of a `kind = \"hosts\"` scenario",
            )
            .with_hint(
                "declare the hosts under [model] with kind = \"hosts\" and [[model.host]]",
            ));
        };
        if let Some(host) = config.hosts.iter().find(|host| host.machine.is_some()) {
            return Err(ScenarioError::whole_file(
                source,
                format!(
                    "host `{}` has a [machine]: a service's code costs no simulated CPU time yet",
                    host.name
                ),
            )
            .with_hint("remove the [machine] tables; the book's limits say what to do instead"));
        }
        let conditions = &scenario.setting.conditions;
        let mut service = Service::new();
        service.run_for_ns = conditions.run_for_ns;
        service.seed = conditions.seed;
        service.wall_start_ns = conditions.wall_start_ns;
        if let Some(max_memory_bytes) = scenario.setting.max_memory_bytes {
            service.max_memory_bytes = max_memory_bytes;
        }
        if let Some(max_events) = scenario.setting.max_events {
            service.max_steps = max_events;
        }
        service.network = config.network.clone();
        service.source = Some(source.to_string());
        service.hosts = config
            .hosts
            .iter()
            .map(|host| HostSpec {
                name: host.name.clone(),
                role: Role::Server,
                platform: host.platform,
                drift_ppb: host.drift.ppb(),
                wall_offset_ns: host.wall_offset_ns,
                faults: host.faults.clone(),
                thaw_order: host.thaw_order,
                software: None,
            })
            .collect();
        Ok(service)
    }

    /// The physical length of the run: it ends then, or once every client has returned.
    pub fn run_for(&mut self, run_for: Duration) -> &mut Self {
        self.run_for_ns = ns(run_for);
        self
    }

    /// How long every link takes to carry a segment.
    pub fn latency(&mut self, latency: Duration) -> &mut Self {
        self.network.latency_ns = (ns(latency), ns(latency));
        self
    }

    /// Each segment takes from `shortest` to `longest`, drawn from the run's seed; a connection
    /// keeps its order all the same.
    pub fn latency_between(&mut self, shortest: Duration, longest: Duration) -> &mut Self {
        if shortest > longest {
            self.invalid.push(format!(
                "the shortest latency, {shortest:?}, is longer than the longest, {longest:?}"
            ));
        }
        self.network.latency_ns = (ns(shortest), ns(longest));
        self
    }

    /// Every link between two hosts loses each copy of a segment with chance `rate` (0 to under
    /// 1), drawn from the run's seed. A datagram is lost for good. A TCP segment is sent again by
    /// its sender's kernel, as Linux does: after 200 ms (`TCP_RTO_MIN`), then each wait twice the
    /// last, so it arrives that much late; its connection keeps its order.
    pub fn loss(&mut self, rate: f64) -> &mut Self {
        if !(0.0..1.0).contains(&rate) {
            self.invalid.push(format!(
                "a loss rate of {rate} is not a chance from 0 to under 1"
            ));
            return self;
        }
        self.loss_ppm = (rate * 1e6).round() as u64;
        self
    }

    /// The seed the network's latencies are drawn from.
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
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
        let declared = self.hosts.iter().position(|host| host.name == name);
        let index = match (declared, &self.source) {
            (Some(index), Some(_)) if self.hosts[index].software.is_none() => index,
            (Some(index), _) => {
                self.invalid.push(format!(
                    "host `{name}` was given code twice; each host runs one"
                ));
                index
            }
            (None, Some(source)) => {
                let names: Vec<&str> = self.hosts.iter().map(|host| host.name.as_str()).collect();
                self.invalid.push(format!(
                    "{source} declares no host `{name}`; its hosts are {}",
                    names.join(", ")
                ));
                self.push_host(name)
            }
            (None, None) => self.push_host(name),
        };
        let host = &mut self.hosts[index];
        host.role = role;
        host.software = Some(software);
        HostSettings {
            service: self,
            index,
        }
    }

    fn push_host(&mut self, name: &str) -> usize {
        self.hosts.push(HostSpec {
            name: name.to_string(),
            role: Role::Server,
            platform: Platform::Linux,
            drift_ppb: Drift::NONE.ppb(),
            wall_offset_ns: 0,
            faults: Vec::new(),
            thaw_order: ThawOrder::IoFirst,
            software: None,
        });
        self.hosts.len() - 1
    }

    /// The network between `a` and `b` is cut from `at` for `duration`, both ways.
    pub fn partition(&mut self, a: &str, b: &str, at: Duration, duration: Duration) -> &mut Self {
        self.partitions.push(NamedWindow {
            between: (a.to_string(), b.to_string()),
            at_ns: ns(at),
            duration_ns: ns(duration),
            latency_ns: (0, 0),
        });
        self
    }

    /// The link between `a` and `b` takes `latency` from `at` for `duration`, both ways.
    pub fn latency_spike(
        &mut self,
        (a, b): (&str, &str),
        at: Duration,
        duration: Duration,
        latency: Duration,
    ) -> &mut Self {
        self.spikes.push(NamedWindow {
            between: (a.to_string(), b.to_string()),
            at_ns: ns(at),
            duration_ns: ns(duration),
            latency_ns: (ns(latency), ns(latency)),
        });
        self
    }

    /// The network with the partitions and spikes declared in code added to the file's.
    pub(crate) fn resolved_network(&self) -> std::result::Result<NetworkConfig, String> {
        let index = |name: &str| {
            self.hosts
                .iter()
                .position(|host| host.name == name)
                .ok_or_else(|| format!("a partition or spike names `{name}`, which is no host"))
        };
        let window = |named: &NamedWindow| {
            Ok::<_, String>(Window {
                pair: Pair {
                    a: index(&named.between.0)?,
                    b: Some(index(&named.between.1)?),
                },
                at_ns: named.at_ns,
                end_ns: named.at_ns.saturating_add(named.duration_ns),
                latency_ns: named.latency_ns,
            })
        };
        let mut network = self.network.clone();
        for named in &self.partitions {
            network.partitions.push(window(named)?);
        }
        for named in &self.spikes {
            network.spikes.push(window(named)?);
        }
        Ok(network)
    }

    /// Runs every host's code until the run's time ends, or every client has returned.
    ///
    /// # Errors
    ///
    /// If the declaration is invalid, a client returns an error or had not returned when time
    /// ran out, a host's code panics, or it does what the simulation cannot see (starts a
    /// thread, reads a clock the machine does not have); the error names the
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
