//! The trace lines of what happens to hosts and links: a host's fault edges, with the host
//! named, and partitions and spikes beginning and ending.

use std::io;

use ticklab_sim::{ClockId, Edge, EdgeEffect, FaultEdge};

use super::cluster::{Cluster, HostId, Msg};
use crate::trace::{Event, FaultEvent, ResumeEvent, TraceSink, Wall};

pub(crate) fn message_name(msg: Msg) -> &'static str {
    match msg {
        Msg::Lease(super::lease::LeaseMsg::Ask { .. }) => "a lease ask",
        Msg::Lease(super::lease::LeaseMsg::Granted { .. }) => "a lease grant",
        Msg::Lease(super::lease::LeaseMsg::Write { .. }) => "a write",
        Msg::Heartbeat(_) => "a heartbeat",
        Msg::Rpc(super::rpc::RpcMsg::Call { .. }) => "a call",
        Msg::Rpc(super::rpc::RpcMsg::Reply { .. }) => "a reply",
    }
}

/// Traces a host's fault edge, as a one-machine run traces its own, with the host named.
pub(crate) fn record_host_edge(
    cluster: &Cluster,
    names: &[String],
    host: HostId,
    edge: &FaultEdge,
    effect: &EdgeEffect,
    sink: &mut dyn TraceSink,
) -> io::Result<()> {
    if !sink.wants_events() {
        return Ok(());
    }
    let instant_ns = cluster.instant_ns(host);
    let wall = Wall(cluster.read(host, ClockId::Wall));
    let fault = FaultEvent {
        t_ns: cluster.now_ns(),
        fault: edge.fault_index,
        kind: edge.fault.kind().name(),
        what: format!("{}: {}", names[host], edge.fault),
        instant_ns,
        wall,
    };
    match edge.edge {
        Edge::Begin => sink.record(&Event::FaultBegin(&fault))?,
        Edge::End => sink.record(&Event::FaultEnd(&fault))?,
        Edge::Point => sink.record(&Event::WallStep(&fault))?,
    }
    if let Some(stopped_ns) = effect.resumed_after_ns {
        sink.record(&Event::Resume(&ResumeEvent {
            t_ns: cluster.now_ns(),
            stopped_ns,
            instant_ns,
            wall,
        }))?;
    }
    Ok(())
}

pub(crate) fn record_network_edge(
    cluster: &Cluster,
    names: &[String],
    begins: bool,
    is_partition: bool,
    index: usize,
    run_for_ns: u64,
    sink: &mut dyn TraceSink,
) -> io::Result<()> {
    if !sink.wants_events() {
        return Ok(());
    }
    let window = cluster.network.window(is_partition, index);
    let other = window
        .pair
        .b
        .map_or("every other host", |b| names[b].as_str());
    let between = format!("{} and {other}", names[window.pair.a]);
    let lasts = if window.end_ns >= run_for_ns {
        " until the end".to_string()
    } else {
        format!(
            " for {}",
            ticklab_sim::Compact((window.end_ns - window.at_ns) as i64)
        )
    };
    let what = match (is_partition, begins) {
        (true, true) => format!("partition between {between}{lasts}"),
        (true, false) => format!("partition between {between} repaired"),
        (false, true) => format!(
            "latency between {between} rises to {}-{}{lasts}",
            ticklab_sim::Compact(window.latency_ns.0 as i64),
            ticklab_sim::Compact(window.latency_ns.1 as i64)
        ),
        (false, false) => format!("latency between {between} back to normal"),
    };
    let fault = FaultEvent {
        t_ns: cluster.now_ns(),
        fault: index,
        kind: if is_partition {
            "partition"
        } else {
            "latency-spike"
        },
        what,
        instant_ns: cluster.now_ns() as i64,
        wall: Wall(cluster.read(window.pair.a, ClockId::Wall)),
    };
    if begins {
        sink.record(&Event::FaultBegin(&fault))
    } else {
        sink.record(&Event::FaultEnd(&fault))
    }
}
