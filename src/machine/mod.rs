//! The machine every model runs on, whatever it is: the world's clocks and faults, cores shared
//! by every simulated thread, outside CPU load, the platform's timer resolution and slack, and
//! waits with and without CPU.
//!
//! A model brings only its own decisions. It binds to the machine ([`Binding`]), asks it for
//! wakes, CPU and timed waits, and the [`drive`] loop calls it back: when a wake comes due, when
//! one of its threads finishes the CPU work it was given, and at every fault edge. The model never
//! drives the world itself.

pub(crate) mod bound;
pub(crate) mod config;
mod cpu;
mod drive;
pub mod keys;
mod load;
pub(crate) mod spec;
mod timing;

use ticklab_sim::{
    ClockId, CoreTime, Cores, CpuKind, Deadline, EdgeEffect, FaultEdge, Platform, SliceTicket,
    ThreadCpu, ThreadId, World, WorldConfig,
};

pub use config::{Bursts, MachineConfig, ModelMachineKeys, OutsideLoad};
pub use cpu::Cpu;
pub(crate) use cpu::{CpuWake, SliceOutcome};
pub use drive::{Binding, Ground, Next, Workloads, drive};

use crate::memory::Footprint;
use crate::runner::error::RunError;
use crate::runner::faults::record_fault;
use crate::trace::TraceSink;
pub use load::Load;

use ticklab_sim::Step;
pub use timing::{LINUX_TIMER_SLACK_NS, Timing, WINDOWS_TIMER_RESOLUTION_NS};

/// What a wake in the world is for: the model's own, or the machine's.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wake<W> {
    Model(W),
    /// A thread's time slice on a core ended, at the wake's time.
    Slice(SliceTicket),
    /// An outside-load thread's next burst of CPU arrives.
    Load(u32),
}

/// The machine: the world and everything that runs on it. `W` is the model's own wake payload.
#[derive(Debug)]
pub struct Machine<W> {
    world: World<Wake<W>>,
    cpu: Cpu,
}

/// A finished machine's accounting.
#[derive(Clone, Debug)]
pub struct MachineReport {
    /// The model's threads, in the order it added them.
    pub model_threads: Vec<ThreadId>,
    /// By thread id: busy time, per second and in the busiest second.
    busy: Vec<ThreadCpu>,
    /// By thread id: running, waiting for a core, spinning, in system calls.
    core_times: Vec<CoreTime>,
    /// Each core's running time, by core.
    pub core_busy_ns: Vec<u64>,
}

impl MachineReport {
    pub fn cpu(&self, thread: ThreadId) -> &ThreadCpu {
        &self.busy[thread.0 as usize]
    }

    pub fn core_time(&self, thread: ThreadId) -> CoreTime {
        self.core_times[thread.0 as usize]
    }

    /// The model's threads' busy time, in the order it added them, as summaries list them.
    pub fn model_cpu(&self) -> Vec<ThreadCpu> {
        self.model_threads
            .iter()
            .map(|thread| self.cpu(*thread).clone())
            .collect()
    }
}

impl<W: Copy> Machine<W> {
    pub fn new(world: WorldConfig, config: &MachineConfig, seed: u64) -> Self {
        let cpu = Cpu::new(config, seed, world.run_for_ns);
        let mut machine = Machine {
            world: World::new(world),
            cpu,
        };
        machine.file_cpu_wakes();
        machine
    }

    /// Physical time, ns since the start of the run.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.world.now_ns()
    }

    pub fn end_ns(&self) -> u64 {
        self.world.end_ns()
    }

    /// `Instant::now()`, ns since the start of the run.
    #[inline]
    pub fn instant_ns(&self) -> i64 {
        self.world.instant_ns()
    }

    /// `SystemTime::now()`, ns since the Unix epoch.
    #[inline]
    pub fn wall_ns(&self) -> i64 {
        self.world.wall_ns()
    }

    /// What `clock` reads now.
    #[inline]
    pub fn read(&self, clock: ClockId) -> i64 {
        self.world.read(clock)
    }

    /// Since when the process has been able to run, in physical ns; `None` while it is asleep
    /// or frozen.
    pub fn running_since_ns(&self) -> Option<u64> {
        self.world.machine().running_since_ns()
    }

    pub fn platform(&self) -> Platform {
        self.world.machine().platform()
    }

    pub fn instant_clock(&self) -> ClockId {
        self.world.machine().instant_clock()
    }

    /// The deadline "when `Instant::now()` reaches `instant_ns`".
    #[inline]
    pub fn instant_deadline(&self, instant_ns: i64) -> Deadline {
        self.world.instant_deadline(instant_ns)
    }

    pub fn timing(&self) -> Timing {
        self.cpu.timing()
    }

    /// Wakes that are waiting, parked ones included.
    pub fn pending(&self) -> usize {
        self.world.pending()
    }

    /// A wake at `deadline`, exactly: an arrival, a reply from the network, anything that is not
    /// a thread's own timed wait.
    #[inline]
    pub fn wake_at(&mut self, deadline: Deadline, wake: W) {
        self.world.wake_at(deadline, Wake::Model(wake));
    }

    /// A wake at physical time `at_ns`, exactly.
    #[inline]
    pub fn wake_at_physical(&mut self, at_ns: u64, wake: W) {
        self.world.wake_at(physical(at_ns), Wake::Model(wake));
    }

    /// A thread's timed wait until `deadline`: it ends as the platform's timers end waits
    /// ([`Timing`]). A deadline already passed ends it at once, as a wait that never sleeps.
    #[inline]
    pub fn timed_wake(&mut self, deadline: Deadline, wake: W) {
        let deadline = self.wait_end(deadline);
        self.world.wake_at(deadline, Wake::Model(wake));
    }

    /// When a timed wait until `deadline` ends.
    #[inline]
    pub fn wait_end(&self, deadline: Deadline) -> Deadline {
        let timing = self.cpu.timing();
        if timing.is_exact() || deadline.at_ns <= self.read(deadline.clock) {
            return deadline;
        }
        Deadline {
            clock: deadline.clock,
            at_ns: timing.wait_end_ns(deadline.at_ns),
        }
    }

    /// A new thread of the model, on the shared cores.
    pub fn add_thread(&mut self, name: impl Into<String>) -> ThreadId {
        self.cpu.add_thread(name)
    }

    /// `thread`, idle until now, wants `work_ns` of CPU; the drive loop calls the model back with
    /// [`Binding::on_cpu_done`] when it has had all of it.
    #[inline]
    pub fn run(&mut self, thread: ThreadId, work_ns: u64, kind: CpuKind) {
        let now_ns = self.now_ns();
        self.cpu.run(thread, work_ns, kind, now_ns);
        self.file_cpu_wakes();
    }

    /// Whether `thread` has CPU work it has not finished.
    #[inline]
    pub fn is_busy(&self, thread: ThreadId) -> bool {
        self.cpu.is_busy(thread)
    }

    /// Where `thread`'s time has gone so far.
    pub fn core_time(&self, thread: ThreadId) -> CoreTime {
        self.cpu.core_time(thread)
    }

    pub fn cores(&self) -> &Cores {
        self.cpu.cores()
    }

    /// Files the slice ends and load bursts the CPU asked for with the world.
    #[inline]
    fn file_cpu_wakes(&mut self) {
        let world = &mut self.world;
        self.cpu.drain_wakes(|at_ns, wake| {
            let payload = match wake {
                CpuWake::Slice(ticket) => Wake::Slice(ticket),
                CpuWake::Load(index) => Wake::Load(index),
            };
            world.wake_at(physical(at_ns), payload);
        });
    }

    /// What one waiting wake of this machine costs in memory.
    pub const BYTES_PER_WAKE: u64 = World::<Wake<W>>::BYTES_PER_WAKE;

    /// What the machine itself holds now: the wakes waiting and its threads' accounting.
    pub fn footprint(&self) -> Footprint {
        Footprint::new()
            .with(
                crate::runner::memory_check::WAKES,
                self.world.pending() as u128,
                Self::BYTES_PER_WAKE,
            )
            .with(
                THREADS,
                self.cpu.thread_count() as u128,
                bytes_per_thread(self.end_ns()),
            )
    }

    /// Whether the event queue had to drop a wake because it was full.
    pub(crate) fn queue_overflowed(&self) -> bool {
        self.world.overflowed()
    }

    /// Charges everything up to the end of the run and reports every thread.
    pub(crate) fn finish(&mut self) -> MachineReport {
        let end_ns = self.end_ns();
        self.cpu.finish(end_ns)
    }
}

impl<W: Copy> Ground for Machine<W> {
    type Event = W;
    type Report = MachineReport;

    #[inline]
    fn next(&mut self) -> Next<W> {
        match self.world.next_step() {
            Step::Wake {
                payload: Wake::Model(wake),
                ..
            } => Next::Event(wake),
            Step::Wake {
                payload: Wake::Slice(ticket),
                ..
            } => Next::Slice { host: 0, ticket },
            Step::Wake {
                payload: Wake::Load(index),
                ..
            } => Next::Load { host: 0, index },
            Step::Fault { edge, effect } => Next::Fault {
                host: 0,
                edge,
                effect,
            },
            Step::End => Next::End,
        }
    }

    #[inline]
    fn now_ns(&self) -> u64 {
        self.world.now_ns()
    }

    #[inline]
    fn cpu(&mut self, _host: usize) -> Option<&mut Cpu> {
        Some(&mut self.cpu)
    }

    #[inline]
    fn file_cpu_wakes(&mut self, _host: usize) {
        Machine::file_cpu_wakes(self);
    }

    fn trace_fault(
        &self,
        _host: usize,
        edge: &FaultEdge,
        effect: &EdgeEffect,
        sink: &mut dyn TraceSink,
    ) -> Result<(), RunError> {
        Ok(record_fault(&self.world, edge, effect, sink)?)
    }

    fn footprint(&self) -> Footprint {
        Machine::footprint(self)
    }

    fn overflowed(&self) -> bool {
        self.queue_overflowed()
    }

    fn finish(&mut self) -> MachineReport {
        Machine::finish(self)
    }
}

/// What a footprint calls the machine's simulated threads.
pub const THREADS: &str = "simulated threads";

/// What one simulated thread's accounting costs at most in a run of `run_for_ns`: a busy-time
/// bin per second up to [`ticklab_sim::MAX_BINS`], grown, and room for its name, its core's
/// bookkeeping and its busiest-window spans.
pub fn bytes_per_thread(run_for_ns: u64) -> u64 {
    let seconds = run_for_ns / ticklab_sim::NS_PER_SEC + 1;
    2 * 8 * seconds.min(ticklab_sim::MAX_BINS as u64) + 512
}

/// A moment in physical time, as a deadline: boottime reads physical time since the start.
#[inline]
pub fn physical(at_ns: u64) -> Deadline {
    Deadline {
        clock: ClockId::Boottime,
        at_ns: i64::try_from(at_ns).unwrap_or(i64::MAX),
    }
}
