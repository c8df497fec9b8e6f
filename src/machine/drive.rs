//! The drive loop of one machine: it owns the machine, steps the world, and calls the model
//! through its [`Binding`]. Every single-machine kind runs through it, so the machine's parts work
//! the same for all; hosts, many machines on one timeline, run their own loop over their cluster
//! (`hosts/runner.rs`).

use ticklab_sim::{EdgeEffect, FaultEdge, Step, ThreadId};

use super::{Machine, MachineReport, Owner, Wake, load};
use crate::memory::Footprint;
use crate::run::{RunError, Watchdog, record_fault};
use crate::trace::{Event, Summary, TraceSink};

/// A model bound to a machine: the drive loop calls it, never the other way round.
pub trait Binding {
    /// What the model's own wakes carry.
    type Wake: Copy;

    /// A wake the model asked for came due.
    fn on_wake(
        &mut self,
        wake: Self::Wake,
        machine: &mut Machine<Self::Wake>,
    ) -> Result<(), RunError>;

    /// One of the model's threads has had all the CPU it asked for.
    fn on_cpu_done(
        &mut self,
        _thread: ThreadId,
        _machine: &mut Machine<Self::Wake>,
    ) -> Result<(), RunError> {
        Ok(())
    }

    /// A fault edge was applied, traced, and the cores frozen or thawed for it.
    fn on_fault(
        &mut self,
        _edge: &FaultEdge,
        _effect: &EdgeEffect,
        _machine: &mut Machine<Self::Wake>,
    ) -> Result<(), RunError> {
        Ok(())
    }

    /// What the model holds now, besides the machine's own wakes and threads: measured against
    /// the run's memory bound every few thousand steps.
    fn footprint(&self) -> Footprint {
        Footprint::new()
    }

    /// Where the model's trace goes; the drive loop traces the faults and the summary there too.
    fn sink(&mut self) -> &mut dyn TraceSink;

    /// The run is over: the model's summary, from its own numbers and the machine's accounting.
    fn finish(
        &mut self,
        machine: &mut Machine<Self::Wake>,
        report: &MachineReport,
    ) -> Result<Summary, RunError>;
}

/// Runs `binding` on `machine` to the end of the run, then traces and returns the summary;
/// `limit` stops a model that keeps working without the run getting anywhere.
pub fn drive<B: Binding>(
    mut machine: Machine<B::Wake>,
    mut binding: B,
    limit: &mut Watchdog,
) -> Result<Summary, RunError> {
    loop {
        match machine.world.next_step() {
            Step::Wake {
                payload: Wake::Model(wake),
                ..
            } => binding.on_wake(wake, &mut machine)?,
            Step::Wake {
                payload: Wake::Slice(end),
                ..
            } => {
                if let Some(thread) = machine.slice_ended(end) {
                    match machine.owners[thread.0 as usize] {
                        Owner::Model => binding.on_cpu_done(thread, &mut machine)?,
                        Owner::Load(index) => load::done(&mut machine, index),
                    }
                }
            }
            Step::Wake {
                payload: Wake::Load(index),
                ..
            } => load::burst(&mut machine, index),
            Step::Fault { edge, effect } => {
                record_fault(&machine.world, &edge, &effect, binding.sink())?;
                let now_ns = machine.now_ns();
                machine
                    .cores
                    .on_edge(&effect, now_ns, &mut machine.slice_ends);
                machine.file_slice_ends();
                binding.on_fault(&edge, &effect, &mut machine)?;
            }
            Step::End => {
                check_memory(&machine, &binding, limit)?;
                break;
            }
        }
        limit.step(machine.now_ns())?;
        if limit.at_checkpoint() {
            check_memory(&machine, &binding, limit)?;
        }
    }
    let report = machine.finish();
    let summary = binding.finish(&mut machine, &report)?;
    let sink = binding.sink();
    sink.record(&Event::Summary(&summary))?;
    sink.finish()?;
    Ok(summary)
}

/// Stops the run if what the machine and the model hold passed the memory bound.
#[cold]
fn check_memory<B: Binding>(
    machine: &Machine<B::Wake>,
    binding: &B,
    limit: &Watchdog,
) -> Result<(), RunError> {
    let mut live = machine.footprint();
    for holding in binding.footprint().holdings() {
        live.add(holding.what, holding.count, holding.bytes_each);
    }
    limit.check_memory(machine.now_ns(), &live, machine.queue_overflowed())
}
