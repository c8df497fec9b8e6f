//! How much work a hosts run may do, decided before it starts: an upper bound on its events,
//! and the runs turmoil could not carry within `--max-events`.

use super::spec::HostsConfig;
use super::turmoil_net::step_cost;
use crate::machine::bound::{self, ModelCpu};
use crate::runner::error::RunError;

/// What a hosts run may cost, worked out before it starts.
#[derive(Debug)]
pub(crate) struct HostsWork {
    /// Items the cluster may take off its queue: every message, wake and fault edge. The
    /// watchdog holds the run to these.
    pub(crate) steps: u128,
    /// Those steps weighed by what each costs, in events of the timer model: what
    /// `--max-events` limits (see [`work_bound`]).
    pub(crate) cost: u128,
    pub(crate) why: String,
}

/// An upper bound on the run's steps, and on their cost in events of `--max-events`.
///
/// `--max-events` is meant to buy about the same CPU time on every kind, and a timer run's event
/// costs about 0.022 µs (`brpc-3383-after-fix` at full scale: 200,000,600 events bounded, 4.4 s
/// of user time). A hosts step costs more, and more the more the cluster keeps in its queue,
/// since every step files or takes a wake or a message there and a larger queue misses the
/// cache more. Measured with `/usr/bin/time -f %U` on release builds of `ticklab run
/// --summary-only`, on a shared 2-core machine (so approximate: a third either way), heartbeats
/// every second on the events network with `suspect_after = "5s"`, per step of this bound
/// (three per heartbeat and one per send):
///
/// | hosts × peers, run | queue (bound) | µs per bounded step | in timer events | weighed as |
/// |---|---|---|---|---|
/// | 100 × 4, 2,000 s | 1,400 | 0.035 | 1.6 | 3 |
/// | 1,000 × 4, 200 s | 14,000 | 0.042 | 1.9 | 3 |
/// | 10,000 × 4, 60 s | 140,000 | 0.083 | 3.8 | 9 |
/// | 1,000 × 64, 20 s | 132,000 | 0.078 | 3.5 | 9 |
/// | 10,000 × 64, 20 s | 1,320,000 | 0.28 | 12.9 | 19 |
///
/// and per step of the other workloads: a lease with asks every 3 ms and writes every 1 ms for
/// 1,000 s, 0.018 µs (0.8 timer events); 10 clients calling every 1 ms for 300 s, 0.057 µs to
/// 0.100 µs by timer design (2.6 to 4.5); 100 clients calling every 1 ms for 20 s, 0.081 µs
/// (3.7). So a step counts as `3 × log2(queue / 20,000)` timer events, and never less than its
/// workload's own: 1 for a lease, 3 for a heartbeat, 5 for a call. The 10,000-host hour of
/// heartbeats to 3 peers, bounded at 360,100,000 steps weighed 7, costs 2.5 G events, which the
/// default limit of 250 M refuses; `scenarios/hosts/full-scale/` raises it in its file. The
/// estimate errs high where checks never come due.
pub(crate) fn work_bound(config: &HostsConfig, run_for_ns: u64) -> HostsWork {
    let periods = |every_ns: u64| u128::from(run_for_ns / every_ns + 1);
    let faults: u128 = config
        .hosts
        .iter()
        .map(|host| 2 * host.faults.len() as u128)
        .sum();
    let queue = queue_bound(config, run_for_ns);
    let size_weight = size_weight(queue);
    let weigh = |base: u128| base.max(size_weight);
    let mut heaviest = weigh(1);
    let edges =
        faults + 2 * (config.network.partitions.len() + config.network.spikes.len()) as u128;
    // Faults re-file a host's wakes; a host holds a handful per workload and peer.
    let mut steps = edges + faults * 64;
    let mut cost = steps * weigh(1);
    let mut why = Vec::new();
    if let Some(lease) = &config.lease {
        let asks = periods(lease.renew_every_ns) * lease.candidates.len() as u128;
        let writes = lease
            .write_every_ns
            .map_or(0, |every_ns| periods(every_ns) * 3);
        let lease_steps = asks * 4 + writes * 3;
        steps += lease_steps;
        cost += lease_steps * weigh(LEASE_STEP_COST);
        heaviest = heaviest.max(weigh(LEASE_STEP_COST));
        why.push(format!("{asks} lease asks"));
    }
    if let Some(heartbeat) = &config.heartbeat {
        let beats = periods(heartbeat.every_ns) * (heartbeat.hosts.len() * heartbeat.peers) as u128;
        let beat_steps = beats * 3 + periods(heartbeat.every_ns) * heartbeat.hosts.len() as u128;
        steps += beat_steps;
        cost += beat_steps * weigh(HEARTBEAT_STEP_COST);
        heaviest = heaviest.max(weigh(HEARTBEAT_STEP_COST));
        why.push(format!("{beats} heartbeats"));
    }
    if let Some(rpc) = &config.rpc {
        let calls = periods(rpc.call_every_ns) * rpc.clients.len() as u128;
        steps += calls * 8;
        cost += calls * 8 * weigh(CALL_STEP_COST);
        heaviest = heaviest.max(weigh(CALL_STEP_COST));
        why.push(format!("{calls} calls"));
    }
    // The hosts' CPUs: slice ends and load bursts, and a slice end for each piece of work.
    let cpu = cpu_steps(config, run_for_ns);
    if cpu > 0 {
        steps += cpu;
        cost += cpu * weigh(1);
        why.push(format!(
            "{cpu} slice ends and load bursts on the hosts' cores"
        ));
    }
    let why = format!(
        "{}; {steps} steps, each weighed as up to {heaviest} timer events for a queue of up to \
         {queue} wakes and messages",
        why.join(", ")
    );
    HostsWork { steps, cost, why }
}

/// The steps the hosts' CPUs may take, each host priced by its own machine
/// ([`machine::bound::cpu_steps`]): the pieces of work a host does are those of the workloads it
/// takes part in, each up to the heaviest piece any workload gives. Nothing for a host without a
/// machine.
fn cpu_steps(config: &HostsConfig, run_for_ns: u64) -> u128 {
    let piece_ns = heaviest_piece_ns(config);
    let roles = Roles::of(config);
    let mut steps = 0u128;
    for (host, spec) in config.hosts.iter().enumerate() {
        let Some(machine) = &spec.machine else {
            continue;
        };
        let model = ModelCpu::uniform(
            roles.pieces(config, run_for_ns, host),
            piece_ns,
            roles.threads(config, host),
            machine.time_slice_ns,
        );
        steps += bound::cpu_steps(machine, &spec.faults, run_for_ns, model);
    }
    steps
}

/// Which workloads each host takes part in, by host.
pub(crate) struct Roles {
    heartbeat: Vec<bool>,
    lease_candidate: Vec<bool>,
    rpc_client: Vec<bool>,
}

impl Roles {
    pub(crate) fn of(config: &HostsConfig) -> Self {
        let mark = |members: &[usize]| {
            let mut marks = vec![false; config.hosts.len()];
            for &host in members {
                marks[host] = true;
            }
            marks
        };
        let empty: &[usize] = &[];
        Roles {
            heartbeat: mark(config.heartbeat.as_ref().map_or(empty, |h| &h.hosts)),
            lease_candidate: mark(config.lease.as_ref().map_or(empty, |l| &l.candidates)),
            rpc_client: mark(config.rpc.as_ref().map_or(empty, |r| &r.clients)),
        }
    }

    /// The pieces of work `host` does at most: every wake and message of the workloads it takes
    /// part in that lands on it. A heartbeat round, its sends, and the beats it hears and checks
    /// from the `peers` hosts before it on the ring; a lease candidate's asks and writes, and
    /// everything at its lock service and storage; an RPC client's calls, and every call at its
    /// server.
    fn pieces(&self, config: &HostsConfig, run_for_ns: u64, host: usize) -> u128 {
        let periods = |every_ns: u64| u128::from(run_for_ns / every_ns.max(1) + 1);
        let mut pieces = 0u128;
        if let Some(heartbeat) = &config.heartbeat
            && self.heartbeat[host]
        {
            pieces += periods(heartbeat.every_ns) * (1 + 3 * heartbeat.peers as u128);
        }
        if let Some(lease) = &config.lease {
            let asks = periods(lease.renew_every_ns);
            let writes = lease
                .write_every_ns
                .map_or(0, |every_ns| periods(every_ns) * 3);
            if self.lease_candidate[host] {
                pieces += asks * 4 + writes;
            }
            if lease.coordinator == host {
                pieces += asks * 4 * lease.candidates.len() as u128;
            }
            if lease.storage == host {
                pieces += writes;
            }
        }
        if let Some(rpc) = &config.rpc {
            let calls = periods(rpc.call_every_ns) * 8;
            if self.rpc_client[host] {
                pieces += calls;
            }
            if rpc.server == host {
                pieces += calls * rpc.clients.len() as u128;
            }
        }
        pieces
    }

    /// The most threads `host`'s workloads run: one per role it plays, and for an RPC client,
    /// up to [`TIMER_THREADS`] of its timer design's own besides.
    pub(crate) fn threads(&self, config: &HostsConfig, host: usize) -> u128 {
        let lease = config.lease.as_ref();
        let roles = [
            self.heartbeat[host],
            self.lease_candidate[host],
            lease.is_some_and(|lease| lease.coordinator == host),
            lease.is_some_and(|lease| lease.storage == host),
            self.rpc_client[host],
            config.rpc.as_ref().is_some_and(|rpc| rpc.server == host),
        ];
        let roles = roles.into_iter().filter(|plays| *plays).count() as u128;
        let timers = if self.rpc_client[host] {
            TIMER_THREADS
        } else {
            0
        };
        roles + timers
    }
}

/// The timer threads an RPC client's design is counted as running: more than the built-in
/// designs run, so a client's threads are always taken to contend for its cores.
const TIMER_THREADS: u128 = 8;

/// The most CPU one piece of workload work takes: a heartbeat round sends to every peer.
fn heaviest_piece_ns(config: &HostsConfig) -> u64 {
    let heartbeat = config.heartbeat.as_ref().map_or(0, |heartbeat| {
        heartbeat.cpu_ns.saturating_mul(heartbeat.peers as u64)
    });
    let lease = config.lease.as_ref().map_or(0, |lease| lease.cpu_ns);
    let rpc = config.rpc.as_ref().map_or(0, |rpc| rpc.cpu_ns);
    heartbeat.max(lease).max(rpc)
}

/// What a step of each workload costs at the least, in timer events (measured: [`work_bound`]).
const LEASE_STEP_COST: u128 = 1;
const HEARTBEAT_STEP_COST: u128 = 3;
const CALL_STEP_COST: u128 = 5;

/// What a step costs, in timer events, with `queue` items in the cluster's queue: 3 for every
/// doubling past 20,000 (measured: [`work_bound`]).
fn size_weight(queue: u128) -> u128 {
    let doublings = (queue.max(1) as f64 / 20_000.0).log2();
    (3.0 * doublings).ceil().max(1.0) as u128
}

/// The most items the cluster's queue may hold at once: messages in flight over the longest
/// latency, each watch's one pending check (a heartbeat leaves it armed, and it arms itself again
/// when it finds the peer heard from), calls' messages, and a few wakes per host; none stays
/// longer than the run.
pub(crate) fn queue_bound(config: &HostsConfig, run_for_ns: u64) -> u128 {
    let network = &config.network;
    let longest_ns = network.longest_latency_ns();
    // Items sent every `every_ns` by `senders`, each queued for `lasts_ns`.
    let queued = |senders: u128, every_ns: u64, lasts_ns: u64| {
        senders * u128::from(lasts_ns.min(run_for_ns) / every_ns + 1)
    };
    let mut queue = 4 * config.hosts.len() as u128;
    // A host's CPU keeps a slice end per core and a wake per load thread, and its workload
    // threads one each.
    for machine in config.hosts.iter().filter_map(|host| host.machine.as_ref()) {
        let load = machine.load;
        let threads = load.busy_threads + load.bursts.map_or(0, |bursts| bursts.threads);
        queue += (machine.cores.unwrap_or(0) + threads as usize + 8) as u128;
    }
    if let Some(lease) = &config.lease {
        queue += 8 * lease.candidates.len() as u128;
    }
    if let Some(heartbeat) = &config.heartbeat {
        let watches = (heartbeat.hosts.len() * heartbeat.peers) as u128;
        queue += watches + queued(watches, heartbeat.every_ns, longest_ns);
    }
    if let Some(rpc) = &config.rpc {
        queue += queued(2 * rpc.clients.len() as u128, rpc.call_every_ns, longest_ns);
    }
    queue
}

/// Most turmoil steps one datagram may keep the run stepping for.
const MAX_TICKS_PER_DATAGRAM: u64 = 1_000_000;

/// turmoil steps every tick while a datagram is in flight: one that takes an hour at a 1 µs tick
/// would take billions of steps. Refused before the run, with what to change.
pub(crate) fn refuse_endless_datagrams(config: &HostsConfig, tick_ns: u64) -> Result<(), RunError> {
    let network = &config.network;
    let longest_ns = network.longest_latency_ns();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn heartbeats(hosts: u32, peers: u32, run_for: &str) -> (HostsConfig, u64) {
        let text = format!(
            "about = \"a\"\nplatform = \"linux\"\nrun_for = \"{run_for}\"\n[model]\nkind = \
             \"hosts\"\nnetwork = \"events\"\n[[model.host]]\nname = \"node\"\ncount = \
             {hosts}\n[model.heartbeat]\nevery = \"1s\"\nsuspect_after = \"5s\"\npeers = {peers}\n"
        );
        let scenario = crate::loader::parse("a.toml", &text).unwrap();
        let config = scenario.model.config::<HostsConfig>().unwrap().clone();
        (config, scenario.run_for_ns)
    }

    #[test]
    fn a_big_heartbeat_cluster_costs_what_its_queue_makes_each_step_cost() {
        let default_limit = crate::runner::options::RunOptions::default().max_events;
        // A minute of CPU: under the limit counted a step an event, far over it weighed.
        let (config, run_for_ns) = heartbeats(10_000, 64, "2m");
        let work = work_bound(&config, run_for_ns);
        assert_eq!(work.steps, 233_530_000);
        assert!(work.steps < u128::from(default_limit));
        assert_eq!(work.cost, 19 * work.steps, "{work:?}");
        // Under a second of CPU, within it.
        let (config, run_for_ns) = heartbeats(1_000, 64, "20s");
        let work = work_bound(&config, run_for_ns);
        assert!(work.cost < u128::from(default_limit), "{work:?}");
        assert_eq!(work.cost, 9 * work.steps, "{work:?}");
        // The 10,000-host hour to 3 peers: over the default, so its file raises the limit.
        let (config, run_for_ns) = heartbeats(10_000, 3, "1h");
        let work = work_bound(&config, run_for_ns);
        assert_eq!(work.cost, 7 * work.steps, "{work:?}");
        assert!(work.cost > u128::from(default_limit));
        // A small one counts its workload's own cost per step.
        let (config, run_for_ns) = heartbeats(10, 3, "1m");
        let work = work_bound(&config, run_for_ns);
        assert_eq!(work.cost, work.steps * HEARTBEAT_STEP_COST);
    }

    #[test]
    fn each_host_is_priced_by_its_own_machine() {
        let text = |machine: &str, cpu: &str| {
            format!(
                "about = \"a\"\nplatform = \"linux\"\nrun_for = \"1h\"\n[model]\nkind = \
                 \"hosts\"\nnetwork = \"events\"\n[[model.host]]\nname = \"node\"\ncount = \
                 3\n[[model.host]]\nname = \"busy\"\n{machine}\n[model.heartbeat]\nevery = \
                 \"1s\"\nsuspect_after = \"5s\"\n{cpu}"
            )
        };
        let bound = |machine: &str, cpu: &str| {
            let scenario = crate::loader::parse("a.toml", &text(machine, cpu)).unwrap();
            let config = scenario.model.config::<HostsConfig>().unwrap().clone();
            work_bound(&config, scenario.run_for_ns).steps
        };
        let plain = bound("", "");
        // One host's pieces: each of 3,601 rounds, three sends, and the three peers' beats it
        // hears and checks: 3,601 × (1 + 3 × 3).
        let pieces = 3_601 * 10;
        // An idle machine: one slice end per piece, the busy host's alone.
        assert_eq!(bound("[model.host.machine]\ncores = 2", ""), plain + pieces);
        // Six busy threads on one core sliced every microsecond: a slice end each, all hour,
        // and each piece waits a slice and runs one: (0 + 2) × 1 + 1 steps.
        let busy = bound(
            "[model.host.machine]\ncores = 1\nbusy_threads = 6\ntime_slice = \"1us\"",
            "",
        );
        assert_eq!(busy, plain + 3_600_000_001 + 3 * pieces);
        // Heartbeats of 300 ms of CPU a peer, 900 ms a round, on one 3 ms core: the heartbeat
        // thread alone runs each piece in one stretch.
        let heavy_cpu = "cpu = \"300ms\"\n";
        let lone = bound(
            "[model.host.machine]\ncores = 1\ntime_slice = \"3ms\"",
            heavy_cpu,
        );
        assert_eq!(lone, plain + pieces);
        // One busy thread beside it: a piece waits a slice and is sliced 300 times while it runs.
        let shared = bound(
            "[model.host.machine]\ncores = 1\nbusy_threads = 1\ntime_slice = \"3ms\"",
            heavy_cpu,
        );
        assert_eq!(shared, plain + pieces * (302 + 1));
        // Six threads of cpu-load for 10 of the 60 minutes on one core sliced every microsecond:
        // a slice end each while they last, and each piece of the run may wait and run beside
        // them.
        let spell = bound(
            "[model.host.machine]\ncores = 1\ntime_slice = \"1us\"\n[[model.host.fault]]\nkind \
             = \"cpu-load\"\nat = \"1m\"\nduration = \"10m\"\nthreads = 6",
            "",
        );
        // Its two edges count as every fault's do: 2, and 64 refiled wakes each.
        assert_eq!(spell, plain + 2 + 2 * 64 + 600_000_001 + 3 * pieces);
        // One busy thread on two cores never makes the heartbeat wait.
        let beside = bound(
            "[model.host.machine]\ncores = 2\nbusy_threads = 1",
            heavy_cpu,
        );
        assert_eq!(beside, plain + pieces);
    }

    #[test]
    fn a_thousand_hosts_pay_only_for_the_one_with_a_machine() {
        let text = |machine: &str| {
            format!(
                "about = \"a\"\nplatform = \"linux\"\nrun_for = \"1h\"\n[model]\nkind = \
                 \"hosts\"\nnetwork = \"events\"\n[[model.host]]\nname = \"node\"\ncount = \
                 999\n[[model.host]]\nname = \"busy\"\n{machine}\n[model.heartbeat]\nevery = \
                 \"1s\"\nsuspect_after = \"5s\"\n"
            )
        };
        let bound = |machine: &str| {
            let scenario = crate::loader::parse("a.toml", &text(machine)).unwrap();
            let config = scenario.model.config::<HostsConfig>().unwrap().clone();
            work_bound(&config, scenario.run_for_ns).steps
        };
        let plain = bound("");
        let one = bound("[model.host.machine]\ncores = 2\nbusy_threads = 1");
        assert_eq!(one - plain, 3_601 * 10);
        assert!(one < plain + plain / 100, "{one} against {plain}");
    }
}
