//! The drive loop: the one loop that runs every scenario. It steps the ground the machines live
//! on, runs their CPUs (slice ends, outside load, freezes and thaws), and calls the model through
//! its [`Workloads`].
//!
//! The ground is one [`Machine`] for every single-machine kind, and a cluster of hosts for
//! `kind = "hosts"`, each host a machine with clocks and, when it has a `[machine]`, a CPU of its
//! own. A single-machine model implements [`Binding`], which is [`Workloads`] on one machine, host
//! 0; the hosts' workloads implement [`Workloads`] on the cluster.
//!
//! # The order of calls
//!
//! Each step of [`drive`], until the ground says the run is over:
//!
//! 1. [`Ground::next`] takes what is due next and applies it to the ground's own state (clocks
//!    for a fault edge, stale wakes dropped, held items for a host that cannot run).
//! 2. By what it was:
//!    - [`Next::Event`]: [`Workloads::on_event`], the model's own wake or message;
//!    - [`Next::Slice`]: the host's CPU ends the slice ([`Ground::cpu`]), the ground files the
//!      CPU's new wakes ([`Ground::file_cpu_wakes`]), and if a model thread finished its work,
//!      [`Workloads::on_cpu_done`];
//!    - [`Next::Load`]: the host's CPU starts a load burst, and the ground files its wakes;
//!    - [`Next::Fault`]: [`Ground::trace_fault`], then the host's CPU freezes, thaws or takes on
//!      `cpu-load`, the ground files its wakes, then [`Workloads::on_fault`];
//!    - [`Next::Failed`]: the run ends with [`Ground::failure`].
//! 3. The watchdog counts the step, and every few thousand steps the memory check adds
//!    [`Ground::footprint`] and [`Workloads::footprint`].
//!
//! At [`Next::End`]: a last memory check, [`Ground::finish`] (every thread's CPU), then
//! [`Workloads::finish`] with that report, and the summary goes to [`Workloads::sink`].

use ticklab_sim::{EdgeEffect, FaultEdge, SliceTicket, ThreadId};

use super::{Cpu, Machine, MachineReport, SliceOutcome};
use crate::memory::Footprint;
use crate::runner::error::RunError;
use crate::runner::watchdog::Watchdog;
use crate::trace::{Event, Summary, TraceSink};

/// What the ground hands the drive loop next.
#[derive(Clone, Copy, Debug)]
pub enum Next<E> {
    /// Something for the model: its own wake, or on a cluster a message, a loss or a network
    /// edge.
    Event(E),
    /// A time slice on `host`'s cores ended.
    Slice { host: usize, ticket: SliceTicket },
    /// An outside-load thread of `host` starts its next burst.
    Load { host: usize, index: u32 },
    /// A fault edge of `host` was applied to its clocks.
    Fault {
        host: usize,
        edge: FaultEdge,
        effect: EdgeEffect,
    },
    /// The run is over.
    End,
    /// The ground cannot go on: [`Ground::failure`] says why.
    Failed,
}

/// What the machines of a run live on: one machine's world, or a cluster's timeline. It orders
/// everything that happens, and files the wakes each host's CPU asks for.
pub trait Ground {
    /// What it hands the model.
    type Event;
    /// Its accounting at the end of the run.
    type Report;

    /// What happens next. An error is [`Next::Failed`], with its reason kept for
    /// [`Ground::failure`], so that the loop's every step does not carry an error's size.
    fn next(&mut self) -> Next<Self::Event>;

    /// Why the ground failed, once it has.
    fn failure(&mut self) -> RunError {
        RunError::Simulator("the simulation stopped without saying why".to_string())
    }

    /// Physical time, ns since the start of the run.
    fn now_ns(&self) -> u64;

    /// `host`'s CPU; `None` for a host without one, which costs no time.
    fn cpu(&mut self, host: usize) -> Option<&mut Cpu>;

    /// Files the slice ends and load bursts `host`'s CPU asked for.
    fn file_cpu_wakes(&mut self, host: usize);

    /// Traces a fault edge of `host`.
    fn trace_fault(
        &self,
        host: usize,
        edge: &FaultEdge,
        effect: &EdgeEffect,
        sink: &mut dyn TraceSink,
    ) -> Result<(), RunError>;

    /// What the ground holds now, for the run's memory bound.
    fn footprint(&self) -> Footprint;

    /// Whether a wake was dropped because the queue was full.
    fn overflowed(&self) -> bool;

    /// Charges everything up to the end of the run.
    fn finish(&mut self) -> Self::Report;
}

/// A model's workloads on a ground: the drive loop calls them, never the other way round.
pub trait Workloads<G: Ground> {
    /// Something for the model came due.
    fn on_event(&mut self, event: G::Event, ground: &mut G) -> Result<(), RunError>;

    /// A thread of the model on `host` has had all the CPU it asked for.
    fn on_cpu_done(
        &mut self,
        host: usize,
        thread: ThreadId,
        ground: &mut G,
    ) -> Result<(), RunError>;

    /// A fault edge of `host` was applied, traced, and its cores frozen or thawed for it.
    fn on_fault(
        &mut self,
        host: usize,
        edge: &FaultEdge,
        effect: &EdgeEffect,
        ground: &mut G,
    ) -> Result<(), RunError>;

    /// What the model holds now, besides the ground's: measured against the run's memory bound
    /// every few thousand steps.
    fn footprint(&self) -> Footprint;

    /// Where the model's trace goes; the drive loop traces the faults and the summary there too.
    fn sink(&mut self) -> &mut dyn TraceSink;

    /// The run is over: the model's summary, from its own numbers and the ground's accounting.
    fn finish(&mut self, ground: &mut G, report: &G::Report) -> Result<Summary, RunError>;
}

/// A model bound to one machine: [`Workloads`] on host 0, with the machine's own types.
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

impl<B: Binding> Workloads<Machine<B::Wake>> for B {
    #[inline]
    fn on_event(&mut self, wake: B::Wake, machine: &mut Machine<B::Wake>) -> Result<(), RunError> {
        self.on_wake(wake, machine)
    }

    #[inline]
    fn on_cpu_done(
        &mut self,
        _host: usize,
        thread: ThreadId,
        machine: &mut Machine<B::Wake>,
    ) -> Result<(), RunError> {
        Binding::on_cpu_done(self, thread, machine)
    }

    fn on_fault(
        &mut self,
        _host: usize,
        edge: &FaultEdge,
        effect: &EdgeEffect,
        machine: &mut Machine<B::Wake>,
    ) -> Result<(), RunError> {
        Binding::on_fault(self, edge, effect, machine)
    }

    fn footprint(&self) -> Footprint {
        Binding::footprint(self)
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        Binding::sink(self)
    }

    fn finish(
        &mut self,
        machine: &mut Machine<B::Wake>,
        report: &MachineReport,
    ) -> Result<Summary, RunError> {
        Binding::finish(self, machine, report)
    }
}

/// Runs `workloads` on `ground` to the end of the run, then traces and returns the summary;
/// `limit` stops a model that keeps working without the run getting anywhere.
pub fn drive<G: Ground, B: Workloads<G>>(
    mut ground: G,
    mut workloads: B,
    limit: &mut Watchdog,
) -> Result<Summary, RunError> {
    loop {
        match ground.next() {
            Next::Event(event) => workloads.on_event(event, &mut ground)?,
            Next::Slice { host, ticket } => slice_ended(&mut ground, &mut workloads, host, ticket)?,
            Next::Load { host, index } => load_burst(&mut ground, host, index),
            Next::Fault { host, edge, effect } => {
                fault(&mut ground, &mut workloads, host, (&edge, &effect))?;
            }
            Next::End => {
                check_memory(&ground, &workloads, limit)?;
                break;
            }
            Next::Failed => return Err(ground.failure()),
        }
        limit.step(ground.now_ns())?;
        if limit.at_checkpoint() {
            check_memory(&ground, &workloads, limit)?;
        }
    }
    let report = ground.finish();
    let summary = workloads.finish(&mut ground, &report)?;
    let sink = workloads.sink();
    sink.record(&Event::Summary(&summary))?;
    sink.finish()?;
    Ok(summary)
}

/// A slice end on `host` came due: a thread that finished its work goes back to whoever it
/// works for. Kept out of the loop, whose every step is not a slice end.
#[inline(never)]
fn slice_ended<G: Ground, B: Workloads<G>>(
    ground: &mut G,
    workloads: &mut B,
    host: usize,
    ticket: SliceTicket,
) -> Result<(), RunError> {
    let now_ns = ground.now_ns();
    let Some(cpu) = ground.cpu(host) else {
        return Ok(());
    };
    let outcome = cpu.slice_ended(ticket, now_ns);
    if let SliceOutcome::LoadDone(index) = outcome {
        cpu.load_done(index, now_ns);
    }
    ground.file_cpu_wakes(host);
    if let SliceOutcome::ModelDone(thread) = outcome {
        workloads.on_cpu_done(host, thread, ground)?;
    }
    Ok(())
}

/// An outside-load thread of `host` starts its next burst.
#[inline(never)]
fn load_burst<G: Ground>(ground: &mut G, host: usize, index: u32) {
    let now_ns = ground.now_ns();
    if let Some(cpu) = ground.cpu(host) {
        cpu.load_burst(index, now_ns);
        ground.file_cpu_wakes(host);
    }
}

/// A fault edge of `host`: traced, its cores frozen or thawed, then the model told.
#[cold]
fn fault<G: Ground, B: Workloads<G>>(
    ground: &mut G,
    workloads: &mut B,
    host: usize,
    (edge, effect): (&FaultEdge, &EdgeEffect),
) -> Result<(), RunError> {
    ground.trace_fault(host, edge, effect, workloads.sink())?;
    let now_ns = ground.now_ns();
    if let Some(cpu) = ground.cpu(host) {
        cpu.on_edge(effect, now_ns);
        ground.file_cpu_wakes(host);
    }
    workloads.on_fault(host, edge, effect, ground)
}

/// Stops the run if what the ground and the model hold passed the memory bound.
#[cold]
fn check_memory<G: Ground, B: Workloads<G>>(
    ground: &G,
    workloads: &B,
    limit: &Watchdog,
) -> Result<(), RunError> {
    let mut live = ground.footprint();
    for holding in workloads.footprint().holdings() {
        live.add(holding.what, holding.count, holding.bytes_each);
    }
    limit.check_memory(ground.now_ns(), &live, ground.overflowed())
}
