//! A host's lines in the trace: what it is as the run starts, and what it found as it thawed.

use ticklab_sim::ClockId;

use super::cluster::{Cluster, HostId};
use super::event_kind::HostEventKind;
use super::out::Out;
use super::spec::HostConfig;
use super::thaw::{ThawOrder, Thawed};

/// What a host found as it ran again, and the order its runtime handles it in; `timers` names
/// each timer by what it is for: `1 heartbeat send, 3 suspicion checks`.
pub(super) fn trace_thaw(
    cluster: &Cluster,
    host: HostId,
    thawed: &Thawed,
    timers: &str,
    out: &mut Out<'_>,
) {
    let messages = match thawed.messages {
        1 => "1 message".to_string(),
        count => format!("{count} messages"),
    };
    let (reads, runs) = (format!("reads {messages}"), format!("runs {timers}"));
    let what = match (thawed.messages, thawed.timers.len(), thawed.order) {
        (0, 0, _) => return,
        (0, _, _) => runs,
        (_, 0, _) => reads,
        (_, _, ThawOrder::TimersFirst) => format!("{runs}, then {reads}"),
        (_, _, ThawOrder::IoFirst | ThawOrder::Tokio) => format!("{reads}, then {runs}"),
    };
    let clock_ns = cluster.read(host, ClockId::Monotonic);
    out.event(
        cluster.now_ns(),
        host,
        HostEventKind::Thaw,
        clock_ns,
        |_| format!("{what} ({})", thawed.order.name()),
        None,
    );
}

/// How turmoil's tick shapes every latency, for the trace's header.
pub(super) fn turmoil_note(tick_ns: u64) -> String {
    let tick = ticklab_sim::Compact(tick_ns as i64);
    format!(
        "network turmoil, a step every {tick}: a message sent between two steps goes out at the \
         next, and a latency is rounded up to whole steps of {tick}"
    )
}

/// A host's line as the run starts: what differs between hosts, so a reader knows whose
/// `Instant` stops in a suspend and whose clock runs fast.
pub(super) fn describe(host: &HostConfig) -> String {
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
    if let Some(machine) = &host.machine {
        text.push_str(&format!("; {}", machine_text(machine)));
    }
    match host.faults.len() {
        0 => {}
        1 => text.push_str("; 1 fault"),
        faults => text.push_str(&format!("; {faults} faults")),
    }
    text
}

/// A host's machine in a few words: its cores, the load on them, and how its timed waits end.
fn machine_text(machine: &crate::machine::MachineConfig) -> String {
    let mut parts = vec![match machine.cores {
        None => "a core per thread".to_string(),
        Some(1) => "1 core".to_string(),
        Some(cores) => format!("{cores} cores"),
    }];
    match machine.load.busy_threads {
        0 => {}
        1 => parts.push("1 busy thread".to_string()),
        busy => parts.push(format!("{busy} busy threads")),
    }
    if let Some(bursts) = machine.load.bursts {
        parts.push(format!(
            "load {}% in bursts of {}",
            f64::from(bursts.share_ppm) / 1e4,
            ticklab_sim::Compact(bursts.mean_burst_ns as i64)
        ));
    }
    let timing = machine.timing;
    if timing.resolution_ns > 1 {
        parts.push(format!(
            "timer tick {}",
            ticklab_sim::Compact(timing.resolution_ns as i64)
        ));
    }
    if timing.slack_ns > 0 {
        parts.push(format!(
            "timer slack {}",
            ticklab_sim::Compact(timing.slack_ns as i64)
        ));
    }
    parts.join(", ")
}
