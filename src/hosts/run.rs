//! Runs a hosts scenario: refuses one whose work or memory would be unbounded, builds the
//! cluster and its workloads, and hands both to the drive loop every scenario runs on.

use std::rc::Rc;

use super::binding::HostsRun;
use super::bound::{refuse_endless_datagrams, refuse_turmoil_too_big, work_bound};
use super::cluster::Cluster;
use super::dispatch::{Listed, numbered};
use super::edges::{EdgeLines, FaultNumbers};
use super::event_kind::HostEventKind;
use super::heartbeat::Heartbeat;
use super::host_lines::{describe, turmoil_note};
use super::lease::Lease;
use super::memory::peak_footprint;
use super::network::Network;
use super::out::Out;
use super::rpc::Rpc;
use super::spec::{Carrier, HostsConfig};
use super::turmoil_net::TurmoilNet;
use crate::machine::drive;
use crate::runner::error::RunError;
use crate::runner::options::RunOptions;
use crate::runner::start::{Plan, begin};
use crate::scenario::setting::Setting;
use crate::trace::{Summary, TraceSink};

pub(crate) fn run(
    scenario: &Setting,
    config: &HostsConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let plan = refuse_unbounded(scenario, config, options)?;
    let notes = match config.carrier {
        Carrier::Turmoil { tick_ns } => vec![turmoil_note(tick_ns)],
        _ => Vec::new(),
    };
    let mut started =
        begin::<crate::hosts::HostsModel>(scenario, config, seed, options, plan, notes, sink)?;
    let names: Rc<[String]> = config.hosts.iter().map(|host| host.name.clone()).collect();
    let mut cluster = build_cluster(scenario, config, seed, options, Rc::clone(&names));
    let mut run = HostsRun {
        workloads: Listed::default(),
        out: Out::new(sink, names),
        metrics: config.metrics.clone(),
        end_ns: scenario.run_for_ns,
    };
    start_workloads(config, seed, &mut cluster, &mut run);
    drive(cluster, run, &mut started.watchdog)
}

/// Refuses a run whose work would pass the bounds, before anything runs; returns its plan, whose
/// footprint the shared startup checks.
fn refuse_unbounded(
    scenario: &Setting,
    config: &HostsConfig,
    options: &RunOptions,
) -> Result<Plan, RunError> {
    let work = work_bound(config, scenario.run_for_ns);
    if work.cost > u128::from(options.max_events) {
        return Err(RunError::TooMuchWork {
            events_bound: work.cost,
            max_events: options.max_events,
            why: work.why,
            fewer_by: "lengthen `every`, `renew_every`, `write_every` or `call_every`, lower \
                       `peers`, shorten `run_for`, declare fewer hosts, or give busy hosts' \
                       machines a longer `time_slice`, fewer `cores` or longer `load_burst`s",
        });
    }
    if let Carrier::Turmoil { tick_ns } = config.carrier {
        refuse_endless_datagrams(config, tick_ns)?;
        refuse_turmoil_too_big(config, tick_ns, scenario.run_for_ns, options.max_events)?;
    }
    Ok(Plan {
        steps: work.steps,
        peak: peak_footprint(config, scenario.run_for_ns),
        design: "hosts".to_string(),
        fewer_by: "lower the latencies, `suspect_after` or `timeout`, lengthen `every` or \
                   `call_every`, shorten `run_for`, give the hosts' machines fewer \
                   `busy_threads`, or declare fewer hosts",
    })
}

/// The hosts, their network and what carries their messages, on one timeline.
fn build_cluster(
    scenario: &Setting,
    config: &HostsConfig,
    seed: u64,
    options: &RunOptions,
    names: Rc<[String]>,
) -> Cluster {
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
    let lines = EdgeLines {
        names,
        numbers: FaultNumbers::new(
            config.hosts.iter().map(|host| host.faults.len()),
            config.network.partitions.len(),
        ),
        run_for_ns: scenario.run_for_ns,
    };
    Cluster::new(
        &config.hosts,
        (scenario.wall_start_ns, scenario.run_for_ns, seed),
        network,
        carrier,
        lines,
    )
}

/// Traces each host's line, then starts every workload the scenario has.
fn start_workloads(config: &HostsConfig, seed: u64, cluster: &mut Cluster, run: &mut HostsRun) {
    let platforms: Vec<_> = config.hosts.iter().map(|host| host.platform).collect();
    let longest_ns = config.network.longest_latency_ns();
    if run.out.wants_events() {
        for (host, host_config) in config.hosts.iter().enumerate() {
            let line = describe(host_config);
            run.out.event(
                cluster.now_ns(),
                host,
                HostEventKind::Host,
                0,
                |_| line,
                None,
            );
        }
    }
    // The one list of workloads: a workload's number is its place here, and it runs in this
    // order at every step they share (the start, a fault edge, the end).
    let mut listed = Listed::default();
    if let Some(lease) = &config.lease {
        listed.push(|id| numbered(id, Lease::new(lease, &platforms, longest_ns)));
    }
    if let Some(heartbeat) = &config.heartbeat {
        listed.push(|id| numbered(id, Heartbeat::new(heartbeat, &platforms, longest_ns)));
    }
    if let Some(rpc) = &config.rpc {
        listed.push(|id| numbered(id, Rpc::new(rpc, &platforms, seed)));
    }
    for workload in &mut listed.0 {
        workload.start(cluster, &mut run.out);
    }
    run.workloads = listed;
}
