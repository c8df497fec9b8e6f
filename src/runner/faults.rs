//! What runners share about faults: tracing an edge, and bounding how much the faults can
//! re-time or advance a clock.

use std::io;

use ticklab_sim::{ClockId, Edge, EdgeEffect, Fault, FaultEdge, World};

use crate::scenario::setting::Setting;
use crate::trace::{Event, FaultEvent, ResumeEvent, TraceSink, Wall};

/// Traces a fault edge, and the resume it may have caused.
pub(crate) fn record_fault<P: Copy, S: TraceSink + ?Sized>(
    world: &World<P>,
    edge: &FaultEdge,
    effect: &EdgeEffect,
    sink: &mut S,
) -> io::Result<()> {
    if !sink.wants_events() {
        return Ok(());
    }
    let fault = FaultEvent {
        t_ns: world.now_ns(),
        fault: edge.fault_index,
        kind: edge.fault.kind().name(),
        what: edge.fault.to_string(),
        host: None,
        instant_ns: world.instant_ns(),
        wall: Wall(world.wall_ns()),
    };
    record_edge(edge.edge, &fault, effect.resumed_after_ns, sink)
}

/// Traces one fault edge as `fault` describes it, then the resume it caused, if it ended a stop
/// of `resumed_after_ns`: at the same moment, on the same host and clocks.
pub(crate) fn record_edge<S: TraceSink + ?Sized>(
    edge: Edge,
    fault: &FaultEvent,
    resumed_after_ns: Option<u64>,
    sink: &mut S,
) -> io::Result<()> {
    match edge {
        Edge::Begin => sink.record(&Event::FaultBegin(fault))?,
        Edge::End => sink.record(&Event::FaultEnd(fault))?,
        Edge::Point => sink.record(&Event::WallStep(fault))?,
    }
    if let Some(stopped_ns) = resumed_after_ns {
        sink.record(&Event::Resume(&ResumeEvent {
            t_ns: fault.t_ns,
            host: fault.host.clone(),
            stopped_ns,
            instant_ns: fault.instant_ns,
            wall: fault.wall,
        }))?;
    }
    Ok(())
}

/// How many fault edges can make the world re-time every pending wake: each suspend's end (the
/// process may run again) and, when `Instant` reads the wall clock, every step and slew edge.
pub(crate) fn retiming_edges(scenario: &Setting) -> u128 {
    let on_wall = scenario.instant_clock == ClockId::Wall;
    scenario
        .faults
        .iter()
        .map(|fault| match fault {
            Fault::SystemSuspend { .. } | Fault::ProcessSuspend { .. } => 1,
            Fault::WallStep { .. } if on_wall => 1,
            Fault::WallSlew { .. } if on_wall => 2,
            _ => 0,
        })
        .sum()
}

/// The most a clock can advance over the run: physical time, plus every forward wall step and
/// the extra of every fast slew if the clock is the wall. Bounds how many periods can elapse.
pub(crate) fn clock_advance_bound_ns(scenario: &Setting, clock: ClockId) -> u128 {
    let mut bound = u128::from(scenario.run_for_ns);
    if clock == ClockId::Wall {
        for fault in &scenario.faults {
            match *fault {
                Fault::WallStep { by_ns, .. } if by_ns > 0 => bound += by_ns as u128,
                Fault::WallSlew {
                    at_ns,
                    duration_ns,
                    rate_ppb,
                } if rate_ppb > 0 => {
                    let inside_ns = duration_ns.min(scenario.run_for_ns - at_ns);
                    bound += u128::from(inside_ns) * rate_ppb as u128 / 1_000_000_000 + 1;
                }
                _ => {}
            }
        }
    }
    bound
}
