//! The `[model.lease]` table.

use toml::Spanned;

use super::super::spec::{HostClock, HostNames, positive_ns};
use super::super::workload::HostId;
use crate::hosts::keys::workloads::LeaseSpec;
use crate::scenario::error::ScenarioError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseConfig {
    pub length_ns: u64,
    pub renew_every_ns: u64,
    /// The clock every host measures the lease on.
    pub clock: HostClock,
    /// The drift the holder allows for, in parts per billion: it gives the lease up this much early.
    pub drift_bound_ppb: u64,
    pub fencing: bool,
    pub coordinator: HostId,
    pub storage: HostId,
    pub candidates: Vec<HostId>,
    /// How often the leader writes; `None`: it does not write.
    pub write_every_ns: Option<u64>,
    pub write_takes_ns: u64,
    /// CPU each ask, grant, renewal and write takes its thread, on a host with a `[machine]`.
    pub cpu_ns: u64,
}

pub(crate) fn validate(
    names: &HostNames<'_>,
    spec: &Spanned<LeaseSpec>,
) -> Result<LeaseConfig, ScenarioError> {
    let lease = spec.get_ref();
    let length_ns = positive_ns(
        names,
        &lease.length,
        "length",
        "how long a grant lasts, such as \"10s\"",
    )?;
    let renew_every_ns = positive_ns(
        names,
        &lease.renew_every,
        "renew_every",
        "how often candidates ask for the lease, such as \"3s\"",
    )?;
    if renew_every_ns >= length_ns {
        return Err(names
            .error(
                lease.renew_every.span(),
                "`renew_every` must be shorter than `length`",
            )
            .with_hint(
                "a holder renews well before its lease runs out: a third of `length` is usual",
            ));
    }
    let drift_bound_ppb = drift_bound_ppb(names, lease)?;
    let coordinator = names.resolve(&lease.coordinator)?;
    let storage = match &lease.storage {
        None => coordinator,
        Some(storage) => names.resolve(storage)?,
    };
    let candidates = candidates(names, spec, coordinator, storage)?;
    let write_every_ns = match &lease.write_every {
        None => None,
        Some(every) => Some(positive_ns(
            names,
            every,
            "write_every",
            "how often the leader writes, such as \"100ms\"",
        )?),
    };
    Ok(LeaseConfig {
        length_ns,
        renew_every_ns,
        clock: lease.clock.map_or(HostClock::Instant, |clock| clock.0),
        drift_bound_ppb,
        fencing: lease.fencing,
        coordinator,
        storage,
        candidates,
        write_every_ns,
        write_takes_ns: lease.write_takes.map_or(0, |takes| takes.0),
        cpu_ns: names.cpu_ns(&lease.cpu, "[model.lease]")?,
    })
}

/// `drift_bound_ppm`, in parts per billion: the drift the holder allows for.
fn drift_bound_ppb(names: &HostNames<'_>, lease: &LeaseSpec) -> Result<u64, ScenarioError> {
    match &lease.drift_bound_ppm {
        None => Ok(0),
        Some(ppm) if (0.0..100_000.0).contains(ppm.get_ref()) => {
            Ok((ppm.get_ref() * 1_000.0).round() as u64)
        }
        Some(ppm) => Err(names
            .error(
                ppm.span(),
                "`drift_bound_ppm` must be at least 0 and below 100000",
            )
            .with_hint(
                "the clock drift the protocol allows for, in parts per million, such as 200",
            )),
    }
}

/// The hosts that compete for the lease: those listed, or every host but the coordinator and
/// storage.
fn candidates(
    names: &HostNames<'_>,
    spec: &Spanned<LeaseSpec>,
    coordinator: HostId,
    storage: HostId,
) -> Result<Vec<HostId>, ScenarioError> {
    let lease = spec.get_ref();
    let candidates = match &lease.candidates {
        None => (0..names.len())
            .filter(|&host| host != coordinator && host != storage)
            .collect(),
        Some(list) => {
            let mut candidates = Vec::new();
            for name in list.get_ref() {
                let host = names.resolve(name)?;
                if host == coordinator || host == storage || candidates.contains(&host) {
                    return Err(names
                        .error(name.span(), "candidates are listed once, and are neither the coordinator nor storage")
                        .with_hint("list the hosts that compete for the lease"));
                }
                candidates.push(host);
            }
            candidates
        }
    };
    if candidates.is_empty() {
        return Err(names
            .error(spec.span(), "the lease has no candidates")
            .with_hint(
                "declare a host besides the coordinator and storage, or list `candidates`",
            ));
    }
    Ok(candidates)
}
