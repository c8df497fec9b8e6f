//! Runs a hosts scenario: the cluster's steps, handed to the workloads they belong to, traced.

use std::io;

use ticklab_sim::{ClockId, Platform};

use super::bound::{refuse_endless_datagrams, refuse_turmoil_too_big, work_bound};
use super::cluster::{Cluster, HostId, Msg, Step, WakeTag};
use super::edges::{EdgeLines, FaultNumbers, message_name};
use super::events::{HostEvent, HostEventKind};
use super::heartbeat::Heartbeat;
use super::lease::Lease;
use super::memory::peak_footprint;
use super::network::Network;
use super::rpc::Rpc;
use super::spec::{Carrier, HostConfig, HostsConfig};
use super::thaw::{ThawOrder, Thawed};
use super::turmoil_net::TurmoilNet;
use crate::run::{RunError, RunOptions, Watchdog, check_memory, start_event};
use crate::scenario::Scenario;
use crate::trace::{Event, Summary, TraceSink};

/// Host names, for the text of events.
#[derive(Debug)]
pub(crate) struct Names<'a>(&'a [String]);

impl Names<'_> {
    pub(crate) fn of(&self, host: HostId) -> &str {
        &self.0[host]
    }
}

/// Where workloads report: the trace, and the count of broken invariants.
pub(crate) struct Out<'a> {
    sink: &'a mut dyn TraceSink,
    names: Names<'a>,
    wants_events: bool,
    violations: u64,
    error: Option<io::Error>,
}

impl Out<'_> {
    pub(crate) fn wants_events(&self) -> bool {
        self.wants_events
    }

    /// A host's name, as the trace gives it.
    pub(crate) fn name_of(&self, host: HostId) -> &str {
        self.names.of(host)
    }

    /// Traces an event on `host`, whose clock read `clock_ns`.
    pub(crate) fn event(
        &mut self,
        cluster: &Cluster,
        host: HostId,
        what: HostEventKind,
        clock_ns: i64,
        detail: impl FnOnce(&Names<'_>) -> String,
        delay_ns: Option<u64>,
    ) {
        if !self.wants_events || self.error.is_some() {
            return;
        }
        let event = HostEvent {
            t_ns: cluster.now_ns(),
            host: self.names.of(host).to_string(),
            what,
            clock_ns,
            detail: detail(&self.names),
            delay_ns,
        };
        if let Err(error) = self.sink.record(&Event::Model(&event)) {
            self.error = Some(error);
        }
    }

    /// Counts a broken invariant, and traces the first few.
    pub(crate) fn violation(&mut self, t_ns: u64, what: impl FnOnce() -> String) {
        self.violations += 1;
        if self.error.is_none()
            && let Err(error) = crate::invariant::report(self.sink, t_ns, self.violations, what())
        {
            self.error = Some(error);
        }
    }
}

impl std::fmt::Debug for Out<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Out")
            .field("violations", &self.violations)
            .finish()
    }
}

/// The workloads of one run.
#[derive(Debug)]
struct Workloads {
    lease: Option<Lease>,
    heartbeat: Option<Heartbeat>,
    rpc: Option<Rpc>,
}

/// Stops the run if what the cluster and its workloads hold passed the memory bound.
#[cold]
fn check_live_memory(
    cluster: &Cluster,
    workloads: &Workloads,
    watchdog: &Watchdog,
) -> Result<(), RunError> {
    let mut live = cluster.footprint();
    if let Some(rpc) = &workloads.rpc {
        for holding in rpc.footprint().holdings() {
            live.add(holding.what, holding.count, holding.bytes_each);
        }
    }
    watchdog.check_memory(cluster.now_ns(), &live, false)
}

pub(crate) fn run(
    scenario: &Scenario,
    config: &HostsConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let work = work_bound(config, scenario.run_for_ns);
    if work.cost > u128::from(options.max_events) {
        return Err(RunError::TooMuchWork {
            events_bound: work.cost,
            max_events: options.max_events,
            why: work.why,
            fewer_by: "lengthen `every`, `renew_every`, `write_every` or `call_every`, lower \
                       `peers` or `suspect_after`, or declare fewer hosts",
        });
    }
    if let Carrier::Turmoil { tick_ns } = config.carrier {
        refuse_endless_datagrams(config, tick_ns)?;
        refuse_turmoil_too_big(config, tick_ns, scenario.run_for_ns, options.max_events)?;
    }
    let max_memory_bytes = options.max_memory_for(scenario);
    check_memory(
        &peak_footprint(config, scenario.run_for_ns),
        max_memory_bytes,
        "hosts",
        "lower the latencies, `suspect_after` or `timeout`, lengthen `every` or `call_every`, \
         shorten `run_for`, or declare fewer hosts",
    )?;
    let mut watchdog = Watchdog::new(work.steps, "hosts", max_memory_bytes);
    let mut start = start_event(scenario, seed);
    if let Carrier::Turmoil { tick_ns } = config.carrier {
        start.notes.push(turmoil_note(tick_ns));
    }
    sink.record(&Event::Start(&start))?;
    let platforms: Vec<Platform> = config.hosts.iter().map(|host| host.platform).collect();
    let names: Vec<String> = config.hosts.iter().map(|host| host.name.clone()).collect();
    let edge_lines = EdgeLines {
        names: &names,
        numbers: FaultNumbers::new(
            config.hosts.iter().map(|host| host.faults.len()),
            config.network.partitions.len(),
        ),
        run_for_ns: scenario.run_for_ns,
    };
    let network = Network::new(&config.network, seed);
    let carrier = match config.carrier {
        Carrier::Turmoil { tick_ns } => Some(TurmoilNet::new(
            &names,
            &config.network,
            seed,
            tick_ns,
            scenario.run_for_ns,
            options.max_events,
        )),
        Carrier::Events => None,
    };
    let mut cluster = Cluster::new(
        &config.hosts,
        scenario.wall_start_ns,
        scenario.run_for_ns,
        network,
        carrier,
    );
    let mut workloads = Workloads {
        lease: config
            .lease
            .as_ref()
            .map(|lease| Lease::new(lease, &platforms, config.network.longest_latency_ns())),
        heartbeat: config.heartbeat.as_ref().map(|heartbeat| {
            Heartbeat::new(heartbeat, &platforms, config.network.longest_latency_ns())
        }),
        rpc: config
            .rpc
            .as_ref()
            .map(|rpc| Rpc::new(rpc, &platforms, seed)),
    };
    let mut out = Out {
        wants_events: sink.wants_events(),
        sink,
        names: Names(&names),
        violations: 0,
        error: None,
    };
    if out.wants_events {
        for (host, config) in config.hosts.iter().enumerate() {
            out.event(
                &cluster,
                host,
                HostEventKind::Host,
                0,
                |_| describe(config),
                None,
            );
        }
    }
    if let Some(lease) = &mut workloads.lease {
        lease.start(&mut cluster);
        lease.note_leaders(&cluster, &mut out);
    }
    if let Some(heartbeat) = &mut workloads.heartbeat {
        heartbeat.start(&mut cluster);
    }
    if let Some(rpc) = &mut workloads.rpc {
        rpc.start(&mut cluster);
    }
    loop {
        let step = cluster.next_step().map_err(RunError::Simulator)?;
        watchdog.step(cluster.now_ns())?;
        if watchdog.at_checkpoint() || matches!(step, Step::End) {
            check_live_memory(&cluster, &workloads, &watchdog)?;
        }
        match step {
            Step::End => break,
            Step::Wake { host, tag } => {
                dispatch_wake(&mut workloads, host, tag, &mut cluster, &mut out)
            }
            Step::Message { from, to, msg, .. } => {
                dispatch_message(&mut workloads, from, to, msg, &mut cluster, &mut out)
            }
            Step::Lost { from, to, msg } => {
                if out.wants_events {
                    let clock_ns = cluster.read(to, ClockId::Monotonic);
                    out.event(
                        &cluster,
                        to,
                        HostEventKind::Lost,
                        clock_ns,
                        |names| {
                            format!(
                                "{} from {} was dropped on the way",
                                message_name(msg),
                                names.of(from)
                            )
                        },
                        None,
                    );
                }
            }
            Step::HostEdge {
                host,
                edge,
                effect,
                thawed,
            } => {
                edge_lines.host(&cluster, host, &edge, &effect, out.sink)?;
                if let Some(thawed) = thawed {
                    trace_thaw(&cluster, host, thawed, &mut out);
                }
                if let Some(lease) = &mut workloads.lease {
                    lease.on_host_edge(host, effect, &mut cluster, &mut out);
                }
                if let Some(heartbeat) = &mut workloads.heartbeat {
                    heartbeat.on_host_edge(host, effect, &cluster, &mut out);
                }
            }
            Step::Network {
                begins,
                is_partition,
                index,
            } => {
                edge_lines.network(&cluster, begins, is_partition, index, out.sink)?;
                if let Some(lease) = &mut workloads.lease {
                    lease.note_leaders(&cluster, &mut out);
                }
            }
        }
        if let Some(error) = out.error.take() {
            return Err(error.into());
        }
    }
    let end_ns = scenario.run_for_ns;
    let mut values = vec![cluster.messages_sent, cluster.messages_lost, 0];
    if let Some(lease) = &mut workloads.lease {
        values.extend(lease.finish(end_ns, &mut out));
    }
    if let Some(heartbeat) = &mut workloads.heartbeat {
        values.extend(heartbeat.finish(end_ns, &cluster, &mut out));
    }
    if let Some(rpc) = &mut workloads.rpc {
        values.extend(rpc.finish(&cluster, end_ns, &mut out));
    }
    values[2] = out.violations;
    let summary = Summary::new("hosts", end_ns, &config.metrics, &values, Vec::new());
    out.sink.record(&Event::Summary(&summary))?;
    out.sink.finish()?;
    Ok(summary)
}

/// What a host found as it ran again, and the order its runtime handles it in.
fn trace_thaw(cluster: &Cluster, host: HostId, thawed: Thawed, out: &mut Out<'_>) {
    let messages = match thawed.messages {
        1 => "1 message".to_string(),
        count => format!("{count} messages"),
    };
    let timers = match thawed.timers {
        1 => "1 timer".to_string(),
        count => format!("{count} timers"),
    };
    let (reads, runs) = (format!("reads {messages}"), format!("runs {timers}"));
    let what = match (thawed.messages, thawed.timers, thawed.order) {
        (0, 0, _) => return,
        (0, _, _) => runs,
        (_, 0, _) => reads,
        (_, _, ThawOrder::TimersFirst) => format!("{runs}, then {reads}"),
        (_, _, ThawOrder::IoFirst | ThawOrder::Tokio) => format!("{reads}, then {runs}"),
    };
    let clock_ns = cluster.read(host, ClockId::Monotonic);
    out.event(
        cluster,
        host,
        HostEventKind::Thaw,
        clock_ns,
        |_| format!("{what} ({})", thawed.order.name()),
        None,
    );
}

/// How turmoil's tick shapes every latency, for the trace's header.
fn turmoil_note(tick_ns: u64) -> String {
    let tick = ticklab_sim::Compact(tick_ns as i64);
    format!(
        "network turmoil, a step every {tick}: a message sent between two steps goes out at the \
         next, and a latency is rounded up to whole steps of {tick}"
    )
}

/// A host's line as the run starts: what differs between hosts, so a reader knows whose
/// `Instant` stops in a suspend and whose clock runs fast.
fn describe(host: &HostConfig) -> String {
    let platform = host.platform;
    let mut text = format!(
        "{}: Instant reads {}",
        platform.name(),
        platform.instant_clock().name()
    );
    if host.drift.ppb() != 0 {
        let ppm = host.drift.ppb() as f64 / 1_000.0;
        text.push_str(&format!("; crystal {ppm:+} ppm"));
    }
    if host.wall_offset_ns != 0 {
        let side = if host.wall_offset_ns > 0 {
            "ahead"
        } else {
            "behind"
        };
        text.push_str(&format!(
            "; wall clock starts {} {side}",
            ticklab_sim::Compact(host.wall_offset_ns.saturating_abs())
        ));
    }
    if host.thaw_order != ThawOrder::IoFirst {
        text.push_str(&format!("; thaws {}", host.thaw_order.name()));
    }
    match host.faults.len() {
        0 => {}
        1 => text.push_str("; 1 fault"),
        faults => text.push_str(&format!("; {faults} faults")),
    }
    text
}

fn dispatch_wake(
    workloads: &mut Workloads,
    host: HostId,
    tag: WakeTag,
    cluster: &mut Cluster,
    out: &mut Out<'_>,
) {
    match tag {
        WakeTag::Lease(wake) => {
            if let Some(lease) = &mut workloads.lease {
                lease.on_wake(host, wake, cluster, out);
            }
        }
        WakeTag::Heartbeat(wake) => {
            if let Some(heartbeat) = &mut workloads.heartbeat {
                heartbeat.on_wake(host, wake, cluster, out);
            }
        }
        WakeTag::Rpc(wake) => {
            if let Some(rpc) = &mut workloads.rpc {
                rpc.on_wake(host, wake, cluster, out);
            }
        }
    }
}

fn dispatch_message(
    workloads: &mut Workloads,
    from: HostId,
    to: HostId,
    msg: Msg,
    cluster: &mut Cluster,
    out: &mut Out<'_>,
) {
    match msg {
        Msg::Lease(msg) => {
            if let Some(lease) = &mut workloads.lease {
                lease.on_message(from, to, msg, cluster, out);
            }
        }
        Msg::Heartbeat(_) => {
            if let Some(heartbeat) = &mut workloads.heartbeat {
                heartbeat.on_message(from, to, cluster, out);
            }
        }
        Msg::Rpc(msg) => {
            if let Some(rpc) = &mut workloads.rpc {
                rpc.on_message(from, to, msg, cluster, out);
            }
        }
    }
}
