//! The workloads' threads on a host that has a CPU. Every wake and message a workload handles is
//! work for one of its threads, which the workload itself picks and names
//! (`Workload::thread_for_wake`): the heartbeat thread (which sends, hears and checks, as a
//! gossip stage does on one thread), the lease holder, the lock service, storage, the RPC client
//! and server, and each timer thread of the client's design.
//!
//! A thread works as an event loop does: it takes everything waiting for it as one batch, in the
//! order it came, needs the CPU of the whole batch, and what the batch does (sends, suspicions,
//! grants) happens as it ends. What comes meanwhile waits for the next batch. On a core it shares
//! with busier threads, a thread that gets less CPU than its work needs falls further behind
//! with every batch.
//!
//! A host without a CPU has no threads: its workloads handle everything the moment it comes.

use std::collections::VecDeque;

use ticklab_sim::{CpuKind, ThreadId};

use super::cluster::{Cluster, HostId, Step};
use super::step::WorkloadId;

/// Which thread of a host handles a piece of work: a workload's thread by that workload's own
/// numbering (the heartbeat thread, the lease holder, the RPC server, a timer thread…).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Role {
    pub(crate) workload: WorkloadId,
    pub(crate) thread: u32,
}

/// One workload thread and the work waiting for it.
#[derive(Debug)]
struct Worker {
    thread: ThreadId,
    role: Role,
    /// The batch it works on first, then what came meanwhile, in the order it came.
    backlog: VecDeque<Step>,
    /// How many pieces at the front of `backlog` the running batch holds.
    batch: usize,
    /// Whether the thread is on a batch: its CPU is asked for, and not yet all had. A batch whose
    /// every piece was cancelled still runs to its end.
    running: bool,
}

/// The workload threads of one host with a CPU, made as work first comes for each.
#[derive(Debug, Default)]
pub(crate) struct HostThreads {
    /// In the order each first had work: a host has a handful, so a search is quicker than a
    /// table by role.
    workers: Vec<Worker>,
    /// By thread id: the place in `workers` of a workload thread.
    by_thread: Vec<Option<usize>>,
    /// A finished batch being done, one piece at a time: a piece may cancel a wake after it.
    in_hand: VecDeque<Step>,
}

/// What a piece of work costs in CPU (the workloads' `cpu` keys set it), and what its thread is
/// called.
pub(crate) trait WorkCost {
    fn work_ns(&self, step: &Step) -> u64;
    fn thread_name(&self, role: Role) -> String;
}

impl HostThreads {
    /// `step` is work for `role` on `host`: it waits for the thread, which starts a batch at
    /// once if it was idle. The work is done when the batch's CPU is.
    pub(crate) fn queue(
        &mut self,
        (host, role): (HostId, Role),
        step: Step,
        cluster: &mut Cluster,
        cost: &dyn WorkCost,
    ) {
        let index = match self.workers.iter().position(|worker| worker.role == role) {
            Some(index) => index,
            None => {
                let cpu = cluster
                    .cpu_of(host)
                    .expect("only a host with a CPU has threads");
                let thread = cpu.add_thread(cost.thread_name(role));
                let id = thread.0 as usize;
                if self.by_thread.len() <= id {
                    self.by_thread.resize(id + 1, None);
                }
                self.by_thread[id] = Some(self.workers.len());
                self.workers.push(Worker {
                    thread,
                    role,
                    backlog: VecDeque::new(),
                    batch: 0,
                    running: false,
                });
                self.workers.len() - 1
            }
        };
        let worker = &mut self.workers[index];
        worker.backlog.push_back(step);
        if !worker.running {
            start_batch(worker, host, cluster, cost);
        }
    }

    /// Pieces of work waiting for `role`'s thread, the running batch's included.
    pub(crate) fn waiting(&self, role: Role) -> usize {
        self.workers
            .iter()
            .find(|worker| worker.role == role)
            .map_or(0, |worker| worker.backlog.len())
    }

    /// Drops the wake `id` from whichever thread it waits for, if it does: its workload
    /// cancelled it after it came due. Its thread still spends the CPU it was given for it.
    pub(crate) fn cancel_wake(&mut self, id: u64) {
        let is_it = |step: &Step| matches!(step, Step::Wake { id: waiting, .. } if *waiting == id);
        if let Some(index) = self.in_hand.iter().position(is_it) {
            self.in_hand.remove(index);
            return;
        }
        for worker in &mut self.workers {
            let found = worker
                .backlog
                .iter()
                .position(|step| matches!(step, Step::Wake { id: waiting, .. } if *waiting == id));
            if let Some(index) = found {
                worker.backlog.remove(index);
                if index < worker.batch {
                    worker.batch -= 1;
                }
                return;
            }
        }
    }

    /// Pieces of work waiting for every thread.
    pub(crate) fn all_waiting(&self) -> usize {
        self.workers.iter().map(|worker| worker.backlog.len()).sum()
    }

    /// `thread` had the CPU of its batch: the batch is done now, piece by piece through
    /// [`HostThreads::next_in_hand`], and the thread starts on what came meanwhile, if anything
    /// did. Returns the thread's role.
    pub(crate) fn done(
        &mut self,
        host: HostId,
        thread: ThreadId,
        cluster: &mut Cluster,
        cost: &dyn WorkCost,
    ) -> Option<Role> {
        let index = (*self.by_thread.get(thread.0 as usize)?)?;
        let worker = self.workers.get_mut(index)?;
        self.in_hand.extend(worker.backlog.drain(..worker.batch));
        worker.batch = 0;
        worker.running = false;
        if !worker.backlog.is_empty() {
            start_batch(worker, host, cluster, cost);
        }
        Some(worker.role)
    }

    /// The next piece of the finished batch, to be done now.
    pub(crate) fn next_in_hand(&mut self) -> Option<Step> {
        self.in_hand.pop_front()
    }
}

/// The worker takes everything waiting as one batch, and asks for the CPU of all of it.
fn start_batch(worker: &mut Worker, host: HostId, cluster: &mut Cluster, cost: &dyn WorkCost) {
    worker.batch = worker.backlog.len();
    worker.running = true;
    let work_ns = worker
        .backlog
        .iter()
        .map(|step| cost.work_ns(step))
        .fold(0u64, u64::saturating_add);
    let now_ns = cluster.now_ns();
    if let Some(cpu) = cluster.cpu_of(host) {
        cpu.run(worker.thread, work_ns, CpuKind::Busy, now_ns);
    }
    crate::machine::Ground::file_cpu_wakes(cluster, host);
}
