//! The CPU side of a machine: its cores and the threads that share them, who each thread works
//! for, the outside load, and how its timed waits end. One machine has one; so does every host
//! of a cluster that has a `[machine]`.
//!
//! The CPU never files a wake itself: slice ends and load bursts it wants go to lists that the
//! ground it lives on (one machine's world, or a cluster's queue) files under its own payloads.

use ticklab_sim::{
    CoreTime, Cores, CpuKind, EdgeEffect, FULL_SHARE_PPM, LoadEdge, SliceEnd, SliceTicket, ThreadId,
};

use super::load::{self, Load};
use super::{MachineConfig, MachineReport, Timing};

/// Who a thread on the cores works for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Model,
    Load(u32),
}

/// A machine's cores, threads, load and timing.
#[derive(Debug)]
pub struct Cpu {
    pub(super) cores: Cores,
    owners: Vec<Owner>,
    names: Vec<String>,
    /// Slice ends the cores asked for, not yet filed.
    pub(super) slice_ends: Vec<SliceEnd>,
    /// Load bursts to file: (physical time, bursty thread's index).
    pub(super) load_wakes: Vec<(u64, u32)>,
    timing: Timing,
    pub(super) load: Load,
    /// Threads `cpu-load` faults put to work, made as the first fault that needs them starts;
    /// the first `fault_load_active` of them compute now.
    fault_load: Vec<ThreadId>,
    fault_load_active: usize,
}

/// A wake the CPU asks its ground to file.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CpuWake {
    /// A thread's time slice ends.
    Slice(SliceTicket),
    /// A bursty load thread's next burst.
    Load(u32),
}

/// What a slice end came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SliceOutcome {
    /// Nothing finished: a stale end, or a thread going on.
    Nothing,
    /// A thread of the model had all the CPU it asked for.
    ModelDone(ThreadId),
    /// An outside-load thread finished its burst.
    LoadDone(u32),
}

impl Cpu {
    /// The CPU `config` describes; its outside load starts at once, for `run_for_ns`.
    pub fn new(config: &MachineConfig, seed: u64, run_for_ns: u64) -> Self {
        let cores = match config.cores {
            Some(count) => Cores::new(count, config.time_slice_ns),
            None => Cores::unlimited(),
        };
        let mut cpu = Cpu {
            cores,
            owners: Vec::new(),
            names: Vec::new(),
            slice_ends: Vec::new(),
            load_wakes: Vec::new(),
            timing: config.timing,
            load: Load::new(config.load, seed),
            fault_load: Vec::new(),
            fault_load_active: 0,
        };
        load::start(&mut cpu, run_for_ns);
        cpu
    }

    pub fn timing(&self) -> Timing {
        self.timing
    }

    pub fn cores(&self) -> &Cores {
        &self.cores
    }

    /// Threads on the cores, the load's included.
    pub fn thread_count(&self) -> usize {
        self.names.len()
    }

    /// A new thread of the model, on the shared cores.
    pub fn add_thread(&mut self, name: impl Into<String>) -> ThreadId {
        self.add_owned_thread(name, Owner::Model)
    }

    pub(super) fn add_owned_thread(&mut self, name: impl Into<String>, owner: Owner) -> ThreadId {
        let thread = self.cores.add_thread();
        self.owners.push(owner);
        self.names.push(name.into());
        thread
    }

    /// `thread`, idle until `now_ns`, wants `work_ns` of CPU.
    #[inline]
    pub fn run(&mut self, thread: ThreadId, work_ns: u64, kind: CpuKind, now_ns: u64) {
        self.cores
            .run_as(thread, work_ns, kind, now_ns, &mut self.slice_ends);
    }

    /// Whether `thread` has CPU work it has not finished.
    #[inline]
    pub fn is_busy(&self, thread: ThreadId) -> bool {
        self.cores.is_busy(thread)
    }

    /// Where `thread`'s time has gone so far.
    pub fn core_time(&self, thread: ThreadId) -> CoreTime {
        self.cores.time(thread)
    }

    /// Hands every slice end and load burst asked for to `file`, with its physical time.
    #[inline]
    pub(crate) fn drain_wakes(&mut self, mut file: impl FnMut(u64, CpuWake)) {
        for end in self.slice_ends.drain(..) {
            file(end.at_ns, CpuWake::Slice(end.ticket()));
        }
        for (at_ns, index) in self.load_wakes.drain(..) {
            file(at_ns, CpuWake::Load(index));
        }
    }

    /// A slice end came due at `now_ns`.
    pub(crate) fn slice_ended(&mut self, ticket: SliceTicket, now_ns: u64) -> SliceOutcome {
        let end = ticket.at(now_ns);
        let Some(thread) = self.cores.slice_ended(end, now_ns, &mut self.slice_ends) else {
            return SliceOutcome::Nothing;
        };
        match self.owners[thread.0 as usize] {
            Owner::Model => SliceOutcome::ModelDone(thread),
            Owner::Load(index) => SliceOutcome::LoadDone(index),
        }
    }

    /// Nothing runs while the process cannot, and the threads go on when it can again.
    pub(crate) fn on_edge(&mut self, effect: &EdgeEffect, now_ns: u64) {
        self.cores.on_edge(effect, now_ns, &mut self.slice_ends);
        let cores = self.cores.count() as u32;
        match effect.cpu_load {
            Some(LoadEdge::Starts { threads, share_ppm }) if share_ppm < FULL_SHARE_PPM => {
                load::start_spell(self, threads.unwrap_or(cores), share_ppm, now_ns);
            }
            Some(LoadEdge::Stops { threads, share_ppm }) if share_ppm < FULL_SHARE_PPM => {
                load::stop_spell(self, threads.unwrap_or(cores), share_ppm, now_ns);
            }
            Some(LoadEdge::Starts { threads, .. }) => {
                self.start_fault_load(threads.unwrap_or(cores), now_ns);
            }
            Some(LoadEdge::Stops { threads, .. }) => {
                self.stop_fault_load(threads.unwrap_or(cores), now_ns);
            }
            None => {}
        }
    }

    /// A `cpu-load` fault starts: `threads` more threads compute until it ends.
    fn start_fault_load(&mut self, threads: u32, now_ns: u64) {
        for _ in 0..threads {
            if self.fault_load_active == self.fault_load.len() {
                let name = format!("cpu-load-{}", self.fault_load.len());
                let thread = self.add_owned_thread(name, Owner::Load(u32::MAX));
                self.fault_load.push(thread);
            }
            let thread = self.fault_load[self.fault_load_active];
            self.fault_load_active += 1;
            // More work than any run can give it: it computes until its fault ends.
            self.run(thread, u64::MAX / 2, CpuKind::Busy, now_ns);
        }
    }

    /// A `cpu-load` fault ends: the `threads` that started last stop.
    fn stop_fault_load(&mut self, threads: u32, now_ns: u64) {
        for _ in 0..threads {
            let Some(active) = self.fault_load_active.checked_sub(1) else {
                return;
            };
            self.fault_load_active = active;
            let thread = self.fault_load[active];
            self.cores.stop(thread, now_ns, &mut self.slice_ends);
        }
    }

    /// A bursty load thread's gap ended at `now_ns`: its next burst starts.
    pub(crate) fn load_burst(&mut self, index: u32, now_ns: u64) {
        load::burst(self, index, now_ns);
    }

    /// A load thread finished its burst at `now_ns`: it rests until its next.
    pub(crate) fn load_done(&mut self, index: u32, now_ns: u64) {
        load::done(self, index, now_ns);
    }

    /// Charges everything up to `end_ns` and reports every thread.
    pub(crate) fn finish(&mut self, end_ns: u64) -> MachineReport {
        let core_times = self.cores.finish(end_ns);
        let busy = self
            .cores
            .busy_times()
            .into_iter()
            .zip(&self.names)
            .map(|(busy, name)| ticklab_sim::ThreadCpu {
                name: name.clone(),
                busy_ns: busy.busy_ns,
                worst_second_busy_ns: busy.worst_second_busy_ns,
                worst_second_start_ns: busy.worst_second_start_ns,
                bins: busy.bins,
            })
            .collect();
        let model_threads = (0..self.owners.len() as u32)
            .map(ThreadId)
            .filter(|thread| self.owners[thread.0 as usize] == Owner::Model)
            .collect();
        MachineReport {
            model_threads,
            busy,
            core_times,
            core_busy_ns: self.cores.core_busy_ns().to_vec(),
        }
    }
}
