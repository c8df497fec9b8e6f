//! The `[model]` table of a hosts scenario: the hosts with their clocks and faults, the network
//! between them, and the workloads that run on them.

pub(in crate::hosts) mod host;

use serde::Deserialize;
use ticklab_sim::{ClockId, Drift, Fault, Platform};
use toml::Spanned;

use self::host::{HostDefaults, validate_hosts};

use super::heartbeat::HeartbeatConfig;
use super::lease::LeaseConfig;
use super::network::{NetworkConfig, validate_network};
use super::rpc::RpcConfig;
use super::thaw::ThawOrder;
use crate::expect::Metric;
use crate::hosts::keys::HostsSpec;
use crate::machine::keys::MachineSpec;
use crate::machine::{MachineConfig, ModelMachineKeys};
use crate::model::Head;
use crate::scenario::error::ScenarioError;
use crate::scenario::explain::nearest;
use crate::scenario::located::Located;
use crate::scenario::values::{DurationNs, Name};

/// Most hosts one scenario may declare.
pub const MAX_HOSTS: usize = 10_000;

/// A host as validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostConfig {
    pub name: String,
    pub platform: Platform,
    pub drift: Drift,
    /// Added to the scenario's `wall_start`: where this host's wall clock starts.
    pub wall_offset_ns: i64,
    /// In physical time; they stop or move this host's clocks alone.
    pub faults: Vec<Fault>,
    /// What the host handles first when it runs again: the messages it buffered, or its timers.
    pub thaw_order: ThawOrder,
    /// Its cores, outside load, timer resolution and slack: the cluster's `[machine]` with its
    /// own `[model.host.machine]` over it, key by key. None when neither is written: the host
    /// then has no CPU model, and its work costs no time.
    pub machine: Option<MachineConfig>,
}

/// A validated hosts table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostsConfig {
    pub hosts: Vec<HostConfig>,
    pub network: NetworkConfig,
    pub carrier: Carrier,
    pub lease: Option<LeaseConfig>,
    pub heartbeat: Option<HeartbeatConfig>,
    pub rpc: Option<RpcConfig>,
    /// The metrics of the workloads present, which `[expect]` may bound.
    pub metrics: Vec<Metric>,
}

/// Host names as the file gave them, to resolve the names workloads and links use.
pub(crate) struct HostNames<'a> {
    file: &'a Located<'a>,
    names: Vec<String>,
    /// Whether some host has a `[machine]`, and so threads a workload's `cpu` costs time on.
    any_machine: bool,
}

impl HostNames<'_> {
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// The host called `name`, or an error at it with the nearest name.
    pub(crate) fn resolve(&self, name: &Spanned<String>) -> Result<usize, ScenarioError> {
        let wanted = name.get_ref();
        if let Some(index) = self.names.iter().position(|known| known == wanted) {
            return Ok(index);
        }
        let listed: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let hint = match nearest(wanted, &listed) {
            Some(best) => format!("did you mean `{best}`?"),
            None if listed.len() <= 12 => format!("hosts: {}", listed.join(", ")),
            None => format!("declare it with [[model.host]] name = \"{wanted}\""),
        };
        Err(self
            .file
            .error(name.span(), format!("no host is called `{wanted}`"))
            .with_hint(hint))
    }

    /// A workload's `cpu`: what each piece of its work costs its thread, on a host with a
    /// `[machine]`. Refused where no host has one, since nothing would run it.
    pub(crate) fn cpu_ns(
        &self,
        cpu: &Option<Spanned<DurationNs>>,
        table: &str,
    ) -> Result<u64, ScenarioError> {
        let Some(cpu) = cpu else {
            return Ok(0);
        };
        if !self.any_machine {
            return Err(self
                .error(
                    cpu.span(),
                    format!("`cpu` in {table} needs a host with a machine"),
                )
                .with_hint(
                    "`cpu` is what each piece of the workload's work costs its thread on a host's \
                     cores; give the hosts a [machine], or one host a [model.host.machine], such \
                     as cores = 2",
                ));
        }
        Ok(cpu.get_ref().0)
    }

    pub(crate) fn file(&self) -> &Located<'_> {
        self.file
    }

    pub(crate) fn error(
        &self,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
    ) -> ScenarioError {
        self.file.error(span, message)
    }
}

pub(crate) fn validate(
    file: &Located<'_>,
    spec: &HostsSpec,
    head: &Head<'_>,
) -> Result<HostsConfig, ScenarioError> {
    let defaults = scenario_defaults(file, spec)?;
    let hosts = validate_hosts(file, &spec.host, &defaults, head)?;
    let names = HostNames {
        file,
        names: hosts.iter().map(|host| host.name.clone()).collect(),
        any_machine: hosts.iter().any(|host| host.machine.is_some()),
    };
    let carrier = validate_carrier(file, spec)?;
    let network = validate_network(&names, spec, head.run_for_ns, carrier)?;
    let lease = spec
        .lease
        .as_ref()
        .map(|lease| super::lease::validate(&names, lease))
        .transpose()?;
    let heartbeat = spec
        .heartbeat
        .as_ref()
        .map(|heartbeat| super::heartbeat::validate(&names, heartbeat))
        .transpose()?;
    let rpc = spec
        .rpc
        .as_ref()
        .map(|rpc| super::rpc::validate(&names, rpc, head))
        .transpose()?;
    if lease.is_none() && heartbeat.is_none() && rpc.is_none() {
        return Err(file
            .error(0..0, "a hosts scenario needs a workload")
            .with_hint("add [model.lease], [model.heartbeat] or [model.rpc]"));
    }
    let mut metrics = super::NETWORK_METRICS.to_vec();
    if lease.is_some() {
        metrics.extend_from_slice(super::LEASE_METRICS);
    }
    if heartbeat.is_some() {
        metrics.extend_from_slice(super::HEARTBEAT_METRICS);
    }
    if rpc.is_some() {
        metrics.extend_from_slice(super::RPC_METRICS);
    }
    Ok(HostsConfig {
        hosts,
        network,
        carrier,
        lease,
        heartbeat,
        rpc,
        metrics,
    })
}

/// `network` and `tick`: what carries the messages, and turmoil's step.
fn validate_carrier(file: &Located<'_>, spec: &HostsSpec) -> Result<Carrier, ScenarioError> {
    match (
        spec.network.map_or(Carrier::TURMOIL, |carrier| carrier.0),
        &spec.tick,
    ) {
        (Carrier::Events, Some(tick)) => Err(file
            .error(
                tick.span(),
                "`tick` is turmoil's step, and this network is `events`",
            )
            .with_hint("remove `tick`, or set network = \"turmoil\"")),
        (Carrier::Turmoil { .. }, Some(tick)) => {
            let tick_ns = tick.get_ref().0;
            // turmoil's hosts run on tokio, whose timers count whole milliseconds: a shorter
            // step would move turmoil's network a millisecond while its clock moved less.
            let whole_ms = tick_ns % 1_000_000 == 0;
            if !whole_ms || !(1_000_000..=1_000_000_000).contains(&tick_ns) {
                return Err(file
                    .error(
                        tick.span(),
                        "`tick` must be whole milliseconds, from 1ms to 1s",
                    )
                    .with_hint(
                        "turmoil's step, the resolution of every latency; its hosts run tokio, \
                         whose timers count whole milliseconds: \"1ms\" is turmoil's own default",
                    ));
            }
            if spec.latency.is_none() && tick_ns > super::network::DEFAULT_LATENCY_NS.0 {
                return Err(file
                    .error(
                        tick.span(),
                        "the default latency, 1ms-5ms, is shorter than this tick",
                    )
                    .with_hint(format!(
                        "turmoil moves a message a whole tick at least: set `latency` to {} or \
                         more, or use network = \"events\", which takes any latency",
                        ticklab_sim::Compact(tick_ns as i64)
                    )));
            }
            Ok(Carrier::Turmoil { tick_ns })
        }
        (carrier, None) => Ok(carrier),
    }
}

/// What every host takes unless its own table says otherwise: the scenario's `platform`, the
/// `[model]`'s `thaw_order` and the top-level `[machine]`. A host's faults go with the host, so
/// top-level `[[fault]]` tables are refused rather than applied to some machine.
fn scenario_defaults(file: &Located<'_>, spec: &HostsSpec) -> Result<HostDefaults, ScenarioError> {
    #[derive(Deserialize)]
    struct Top {
        platform: Name<Platform>,
        #[serde(default)]
        fault: Vec<Spanned<toml::Value>>,
        machine: Option<MachineSpec>,
    }
    let top: Top = file.parse()?;
    if let Some(fault) = top.fault.first() {
        return Err(file
            .error(fault.span(), "a hosts scenario has no machine-wide faults")
            .with_hint(
                "each host has its own: put the table under its host as [[model.host.fault]], \
                 right after that host's [[model.host]]",
            ));
    }
    if let Some(machine) = &top.machine {
        // The cluster's table must hold on its own, as the scenario loader checks it after this:
        // checked here first, an error in it is reported once, before any host's.
        crate::machine::spec::validate(
            file,
            Some(machine),
            top.platform.0,
            ModelMachineKeys::default(),
        )?;
    }
    Ok(HostDefaults {
        platform: top.platform.0,
        thaw_order: spec.thaw_order.map_or(ThawOrder::IoFirst, |order| order.0),
        machine: top.machine,
    })
}

/// What carries the messages between hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// turmoil's simulated UDP, stepped every `tick_ns` while a datagram is in flight, with its
    /// latency model: the shortest plus an exponential share of the range, in whole ms.
    Turmoil { tick_ns: u64 },
    /// ticklab's own event queue: each message one event, its latency drawn uniformly from the
    /// range. Costs nothing per host or link, so it scales to thousands of hosts.
    Events,
}

impl Carrier {
    pub const TURMOIL: Carrier = Carrier::Turmoil { tick_ns: 1_000_000 };

    pub fn name(self) -> &'static str {
        match self {
            Carrier::Turmoil { .. } => "turmoil",
            Carrier::Events => "events",
        }
    }
}

impl crate::scenario::values::Named for Carrier {
    const ALL: &'static [Self] = &[Carrier::TURMOIL, Carrier::Events];
    const NAMES: &'static [&'static str] = &["turmoil", "events"];
}

/// The clock a workload measures time on: one of the host's three, or its `Instant`'s
/// (`"instant"`, the default), which the host's platform decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostClock {
    Instant,
    Clock(ClockId),
}

impl crate::scenario::values::Named for HostClock {
    const ALL: &'static [Self] = &[
        HostClock::Instant,
        HostClock::Clock(ClockId::Monotonic),
        HostClock::Clock(ClockId::Boottime),
        HostClock::Clock(ClockId::Wall),
    ];
    const NAMES: &'static [&'static str] = &["instant", "monotonic", "boottime", "wall"];
}

impl HostClock {
    /// The clock it is on a host of `platform`.
    pub fn on(self, platform: Platform) -> ClockId {
        match self {
            HostClock::Instant => platform.instant_clock(),
            HostClock::Clock(clock) => clock,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HostClock::Instant => "instant",
            HostClock::Clock(clock) => clock.name(),
        }
    }
}

/// A positive duration key of a workload table, or an error at it.
pub(crate) fn positive_ns(
    names: &HostNames<'_>,
    value: &Spanned<crate::scenario::values::DurationNs>,
    key: &str,
    hint: &str,
) -> Result<u64, ScenarioError> {
    match value.get_ref().0 {
        0 => Err(names
            .error(value.span(), format!("`{key}` must be more than zero"))
            .with_hint(hint.to_string())),
        ns => Ok(ns),
    }
}
