//! How much work a hosts run may do, decided before it starts: an upper bound on its events,
//! and the runs turmoil could not carry within `--max-events`.

use super::spec::HostsConfig;
use super::turmoil_net::step_cost;
use crate::run::RunError;

/// An upper bound on the run's steps: every message, wake and fault edge it could take.
pub(crate) fn work_bound(config: &HostsConfig, run_for_ns: u64) -> (u128, String) {
    let periods = |every_ns: u64| u128::from(run_for_ns / every_ns + 1);
    let faults: u128 = config
        .hosts
        .iter()
        .map(|host| 2 * host.faults.len() as u128)
        .sum();
    let mut bound =
        faults + 2 * (config.network.partitions.len() + config.network.spikes.len()) as u128;
    let mut why = Vec::new();
    if let Some(lease) = &config.lease {
        let asks = periods(lease.renew_every_ns) * lease.candidates.len() as u128;
        let writes = lease
            .write_every_ns
            .map_or(0, |every_ns| periods(every_ns) * 3);
        bound += asks * 4 + writes * 3;
        why.push(format!("{asks} lease asks"));
    }
    if let Some(heartbeat) = &config.heartbeat {
        let beats = periods(heartbeat.every_ns) * (heartbeat.hosts.len() * heartbeat.peers) as u128;
        bound += beats * 3 + periods(heartbeat.every_ns) * heartbeat.hosts.len() as u128;
        why.push(format!("{beats} heartbeats"));
    }
    if let Some(rpc) = &config.rpc {
        let calls = periods(rpc.call_every_ns) * rpc.clients.len() as u128;
        bound += calls * 8;
        why.push(format!("{calls} calls"));
    }
    // Faults re-file a host's wakes; a host holds a handful per workload and peer.
    bound += faults * 64;
    (bound, why.join(", "))
}

/// Most turmoil steps one datagram may keep the run stepping for.
const MAX_TICKS_PER_DATAGRAM: u64 = 1_000_000;

/// turmoil steps every tick while a datagram is in flight: one that takes an hour at a 1 µs tick
/// would take billions of steps. Refused before the run, with what to change.
pub(crate) fn refuse_endless_datagrams(config: &HostsConfig, tick_ns: u64) -> Result<(), RunError> {
    let network = &config.network;
    let longest_ns = network
        .links
        .iter()
        .map(|(_, range)| range.1)
        .chain(network.spikes.iter().map(|spike| spike.latency_ns.1))
        .fold(network.latency_ns.1, u64::max);
    let ticks = longest_ns / tick_ns;
    if ticks <= MAX_TICKS_PER_DATAGRAM {
        return Ok(());
    }
    Err(RunError::Simulator(format!(
        "a datagram could keep turmoil stepping for {ticks} ticks of {}, more than \
         {MAX_TICKS_PER_DATAGRAM}: turmoil steps every tick while one is in flight\n  hint: raise \
         `tick`, lower the longest latency, or use network = \"events\"",
        ticklab_sim::Compact(tick_ns as i64)
    )))
}

/// The fewest steps turmoil must take: every burst of sends keeps it stepping until the first
/// datagram arrives, at least the shortest latency's ticks, and the most frequent workload sends
/// a burst every period. Sends may coincide, so this is a floor, never an estimate.
fn fewest_turmoil_steps(config: &HostsConfig, tick_ns: u64, run_for_ns: u64) -> u64 {
    let periods = [
        config.lease.as_ref().map(|lease| lease.renew_every_ns),
        config.lease.as_ref().and_then(|lease| lease.write_every_ns),
        config
            .heartbeat
            .as_ref()
            .map(|heartbeat| heartbeat.every_ns),
        config.rpc.as_ref().map(|rpc| rpc.call_every_ns),
    ];
    let Some(shortest_ns) = periods.into_iter().flatten().min() else {
        return 0;
    };
    let bursts = run_for_ns / shortest_ns + 1;
    let ticks_per_burst = config.network.latency_ns.0.div_ceil(tick_ns).max(1);
    bursts
        .saturating_mul(ticks_per_burst)
        .min(run_for_ns / tick_ns + 1)
}

/// turmoil's steps cost as the cube of the hosts ([`step_cost`]). A run whose fewest steps are
/// already more work than `--max-events` allows is refused before turmoil is built, rather than
/// stopped after minutes of stepping; the rest stop once their steps add up to the limit.
pub(crate) fn refuse_turmoil_too_big(
    config: &HostsConfig,
    tick_ns: u64,
    run_for_ns: u64,
    max_events: u64,
) -> Result<(), RunError> {
    let hosts = config.hosts.len();
    let cost = step_cost(hosts);
    let steps = fewest_turmoil_steps(config, tick_ns, run_for_ns).max(1);
    if u128::from(cost) * u128::from(steps) <= u128::from(max_events) {
        return Ok(());
    }
    Err(RunError::Simulator(format!(
        "{hosts} hosts on turmoil: this run takes at least {steps} of turmoil's steps, and each, \
         which visits every host and scans its links, counts as {cost} events: more than the \
         limit of {max_events}\n  hint: use network = \"events\", which costs nothing per host \
         or link, shorten `run_for`, or raise the limit with --max-events"
    )))
}
