//! The `[[model.host]]` tables: each host's name, platform, crystal, wall offset, faults, thaw
//! order and machine parts, or a group of `count` alike hosts.

use std::collections::BTreeSet;

use ticklab_sim::{Drift, MAX_DRIFT_PPB, Platform};
use toml::Spanned;

use super::{HostConfig, MAX_HOSTS};
use crate::hosts::keys::HostSpec;
use crate::hosts::thaw::ThawOrder;
use crate::machine::keys::MachineSpec;
use crate::machine::{MachineConfig, ModelMachineKeys};
use crate::scenario::error::ScenarioError;
use crate::scenario::faults::{WallClock, check_wall_clock, validate_faults};
use crate::scenario::located::Located;

/// Ten years: a host's wall clock may start that far from the scenario's `wall_start`.
const MAX_WALL_OFFSET_NS: i64 = 10 * 365 * 86_400 * 1_000_000_000;

/// What a host takes from the scenario unless its own table says otherwise.
pub(in crate::hosts) struct HostDefaults {
    pub(in crate::hosts) platform: Platform,
    pub(in crate::hosts) thaw_order: ThawOrder,
    /// The top-level `[machine]`: every host's machine parts.
    pub(in crate::hosts) machine: Option<MachineSpec>,
}

pub(in crate::hosts) fn validate_hosts(
    file: &Located<'_>,
    specs: &[Spanned<HostSpec>],
    defaults: &HostDefaults,
    head: &crate::model::Head<'_>,
) -> Result<Vec<HostConfig>, ScenarioError> {
    let mut hosts: Vec<HostConfig> = Vec::new();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for spec in specs {
        let host = spec.get_ref();
        // A group is validated once, and its members are copies under their own names.
        let (made, count) = validate_host(file, host, defaults, head.run_for_ns)?;
        check_wall_clock_of(file, spec, &made, head)?;
        let names: Vec<String> = match count {
            None => vec![made.name.clone()],
            Some(count) => (1..=count)
                .map(|index| format!("{}-{index}", made.name))
                .collect(),
        };
        for name in names {
            if taken.contains(&name) {
                return Err(file
                    .error(host.name.span(), format!("two hosts are called `{name}`"))
                    .with_hint("give every host a name of its own"));
            }
            if hosts.len() == MAX_HOSTS {
                return Err(file
                    .error(spec.span(), format!("more than {MAX_HOSTS} hosts"))
                    .with_hint("declare fewer hosts, or smaller `count`s"));
            }
            taken.insert(name.clone());
            hosts.push(HostConfig {
                name,
                ..made.clone()
            });
        }
    }
    if hosts.len() < 2 {
        let span = specs.first().map_or(0..0, |spec| spec.span());
        return Err(file
            .error(span, "a hosts scenario needs at least two hosts")
            .with_hint(
                "declare each with a [[model.host]] table and its `name`, or give one a `count`",
            ));
    }
    Ok(hosts)
}

/// One `[[model.host]]` table as validated, under the name it gives, and its `count` if any.
fn validate_host(
    file: &Located<'_>,
    host: &HostSpec,
    defaults: &HostDefaults,
    run_for_ns: u64,
) -> Result<(HostConfig, Option<usize>), ScenarioError> {
    let name = host.name.get_ref();
    let valid_name = !name.is_empty()
        && name != "*"
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_name {
        return Err(file
            .error(host.name.span(), format!("`{name}` is not a host name"))
            .with_hint("names are letters, digits, `-` and `_`, such as \"leader-1\""));
    }
    let count = match &host.count {
        None => None,
        Some(count) => Some(crate::scenario::numbers::whole(
            file,
            count,
            "count",
            1..=MAX_HOSTS as i64,
            "`count` makes that many alike hosts, named `<name>-1`, `<name>-2`, ...",
        )? as usize),
    };
    let wall_offset_ns = match &host.wall_offset {
        None => 0,
        Some(offset) if offset.get_ref().0.abs() <= MAX_WALL_OFFSET_NS => offset.get_ref().0,
        Some(offset) => {
            return Err(file
                .error(offset.span(), "`wall_offset` must be within ±10 years")
                .with_hint(
                    "how far this host's wall clock starts from `wall_start`, such as \"-2s\"",
                ));
        }
    };
    let platform = host
        .platform
        .map_or(defaults.platform, |platform| platform.0);
    let made = HostConfig {
        name: name.clone(),
        platform,
        drift: drift(file, host.drift_ppm.as_ref())?,
        wall_offset_ns,
        faults: validate_faults(file, &host.fault, run_for_ns)?,
        thaw_order: host.thaw_order.map_or(defaults.thaw_order, |order| order.0),
        machine: host_machine(
            file,
            defaults.machine.as_ref(),
            host.machine.as_ref(),
            platform,
        )?,
    };
    crate::scenario::faults::check_cpu_load_has_cores(
        file,
        &host.fault,
        made.machine.as_ref().and_then(|machine| machine.cores),
        "this host's `[model.host.machine]`, or in `[model.machine]` for every host",
    )?;
    Ok((made, count))
}

/// The host's wall clock (the scenario's `wall_start`, its own offset, its crystal and its wall
/// steps and slews) must stay within the years 1678 to 2261 for the whole run: a step that could
/// take it out is refused where it is written, rather than saturate the clock mid-run.
fn check_wall_clock_of(
    file: &Located<'_>,
    spec: &Spanned<HostSpec>,
    made: &HostConfig,
    head: &crate::model::Head<'_>,
) -> Result<(), ScenarioError> {
    let host = spec.get_ref();
    let fast_ppb = made.drift.ppb().max(0);
    let clock = WallClock {
        whose: format!("host `{}`'s wall clock", made.name),
        start_ns: i128::from(head.wall_start_ns) + i128::from(made.wall_offset_ns),
        run_for_ns: head.run_for_ns,
        gain_ns: i128::from(head.run_for_ns) * i128::from(fast_ppb) / 1_000_000_000 + 1,
        span: host
            .wall_offset
            .as_ref()
            .map_or_else(|| host.name.span(), Spanned::span),
        hint: "a host's wall clock must stay between the years 1678 and 2261, from `wall_start` \
               and its `wall_offset` through every wall step; use smaller steps, a shorter run \
               or an earlier wall_start",
    };
    check_wall_clock(file, &host.fault, &made.faults, &clock)
}

/// `drift_ppm`, as the host's crystal error.
fn drift(file: &Located<'_>, ppm: Option<&Spanned<f64>>) -> Result<Drift, ScenarioError> {
    let Some(ppm) = ppm else {
        return Ok(Drift::NONE);
    };
    let max_ppm = MAX_DRIFT_PPB as f64 / 1_000.0;
    let value = *ppm.get_ref();
    if !(-max_ppm..=max_ppm).contains(&value) {
        return Err(file
            .error(ppm.span(), format!("`drift_ppm` must be within ±{max_ppm}"))
            .with_hint(
                "a crystal's error in parts per million: real ones are within ±100; positive \
                 runs fast",
            ));
    }
    Ok(Drift::new((value * 1_000.0).round() as i64))
}

/// The host's machine: the cluster's `[machine]` with the host's own table over it, key by key,
/// checked by `[machine]`'s own rules on the host's platform, whose timer resolution and slack
/// are the defaults. None when neither table is written: the host then has no CPU model.
fn host_machine(
    file: &Located<'_>,
    cluster: Option<&MachineSpec>,
    own: Option<&MachineSpec>,
    platform: Platform,
) -> Result<Option<MachineConfig>, ScenarioError> {
    let merged = match (cluster, own) {
        (None, None) => return Ok(None),
        (Some(cluster), Some(own)) => cluster.overridden_by(own),
        (Some(table), None) | (None, Some(table)) => table.clone(),
    };
    let config =
        crate::machine::spec::validate(file, Some(&merged), platform, ModelMachineKeys::default())?;
    Ok(Some(config))
}
