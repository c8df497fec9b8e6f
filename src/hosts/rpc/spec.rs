//! The `[model.rpc]` table: who calls whom, how often, with which timer design and deadline.

use toml::Spanned;

use super::super::spec::{HostClock, HostNames, positive_ns};
use super::super::workload::HostId;
use crate::hosts::keys::workloads::RpcSpec;
use crate::model::Head;
use crate::registry::designs::TimerDesignEntry;
use crate::scenario::error::ScenarioError;
use crate::scenario::values::DurationOrRange;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcConfig {
    pub clients: Vec<HostId>,
    pub server: HostId,
    pub design: TimerDesignEntry,
    pub clock: HostClock,
    pub call_every_ns: u64,
    pub timeout_ns: u64,
    pub serve_ns: (u64, u64),
    /// CPU each call, reply and timer round takes its thread, on a host with a `[machine]`.
    pub cpu_ns: u64,
}

const DEFAULT_SERVE_NS: (u64, u64) = (500_000, 2_000_000);

pub(crate) fn validate(
    names: &HostNames<'_>,
    spec: &Spanned<RpcSpec>,
    head: &Head<'_>,
) -> Result<RpcConfig, ScenarioError> {
    let rpc = spec.get_ref();
    let server = names.resolve(&rpc.server)?;
    let mut clients = Vec::new();
    for name in rpc.clients.get_ref() {
        let client = names.resolve(name)?;
        if client == server || clients.contains(&client) {
            return Err(names
                .error(
                    name.span(),
                    "clients are listed once and are not the server",
                )
                .with_hint("list the hosts that make calls"));
        }
        clients.push(client);
    }
    if clients.is_empty() {
        return Err(names
            .error(rpc.clients.span(), "`clients` is empty")
            .with_hint("list the hosts that call the server, such as [\"laptop\"]"));
    }
    let design = crate::timer::spec::design(names.file(), head.registry, &rpc.design)?;
    let call_every_ns = positive_ns(
        names,
        &rpc.call_every,
        "call_every",
        "how often each client calls, such as \"100ms\"",
    )?;
    let timeout_ns = positive_ns(
        names,
        &rpc.timeout,
        "timeout",
        "each call's deadline, such as \"1s\"",
    )?;
    let serve_ns = match &rpc.serve_time {
        None => DEFAULT_SERVE_NS,
        Some(serve) => match *serve.get_ref() {
            DurationOrRange::Fixed(ns) => (ns.0, ns.0),
            DurationOrRange::Range(low, high) if low.0 <= high.0 => (low.0, high.0),
            DurationOrRange::Range(..) => {
                return Err(names
                    .error(
                        serve.span(),
                        "a range goes from its shortest to its longest",
                    )
                    .with_hint("such as [\"1ms\", \"5ms\"]"));
            }
        },
    };
    Ok(RpcConfig {
        clients,
        server,
        design,
        clock: rpc.clock.map_or(HostClock::Instant, |clock| clock.0),
        call_every_ns,
        timeout_ns,
        serve_ns,
        cpu_ns: names.cpu_ns(&rpc.cpu, "[model.rpc]")?,
    })
}
