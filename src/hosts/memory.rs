//! What a hosts run holds: the cluster's queue (messages in flight, wakes, checks), each host's
//! own state, every call's record, and the timers each RPC client's design keeps.

use super::bound::queue_bound;
use super::cluster::Cluster;
use super::spec::HostsConfig;
use crate::memory::Footprint;

/// What a footprint calls each thing a hosts run holds.
pub(crate) const QUEUED: &str = "queued messages and wakes";
pub(crate) const HOSTS: &str = "hosts";
pub(crate) const CALLS: &str = "call records";
pub(crate) const TIMERS: &str = "timers the clients' designs hold";

/// The most the run can hold, as it is refused by before it starts: the queue at its fullest
/// (the work bound's own estimate), every host, and every call it will make, since each call's
/// record is kept for the summary, with a timer for each call in flight until it times out.
pub(crate) fn peak_footprint(config: &HostsConfig, run_for_ns: u64) -> Footprint {
    let mut footprint = Footprint::new()
        .with(
            QUEUED,
            queue_bound(config, run_for_ns),
            Cluster::BYTES_PER_ITEM,
        )
        .with(HOSTS, config.hosts.len() as u128, Cluster::BYTES_PER_HOST);
    // Each host with a machine: its load's threads, those its cpu-load faults start, and a thread
    // for each workload role it plays.
    let roles = super::bound::Roles::of(config);
    let threads: u128 = config
        .hosts
        .iter()
        .enumerate()
        .filter_map(|(host, spec)| Some((host, spec, spec.machine.as_ref()?)))
        .map(|(host, spec, machine)| {
            let load = machine.load;
            let spells = crate::machine::bound::FaultLoad::of(&spec.faults, machine).threads;
            u128::from(load.busy_threads + load.bursts.map_or(0, |bursts| bursts.threads))
                + u128::from(spells)
                + roles.threads(config, host)
        })
        .sum();
    footprint.add(
        crate::machine::THREADS,
        threads,
        crate::machine::bytes_per_thread(run_for_ns),
    );
    if let Some(rpc) = &config.rpc {
        let clients = rpc.clients.len() as u128;
        let calls = clients * u128::from(run_for_ns / rpc.call_every_ns + 1);
        let in_flight =
            calls.min(clients * u128::from(rpc.timeout_ns.min(run_for_ns) / rpc.call_every_ns + 1));
        footprint.add(CALLS, calls, super::rpc::BYTES_PER_CALL);
        footprint.add(TIMERS, in_flight, rpc.design.bytes_per_timer);
    }
    footprint
}
