//! The workloads' threads on a host that has a CPU. Every wake and message a workload handles is
//! work for one of its threads: the heartbeat thread (which sends, hears and checks, as a
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

use super::cluster::{Cluster, HostId, Msg, Step, WakeTag};

/// Which thread of a host handles a piece of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Heartbeat,
    LeaseHolder,
    LockService,
    Storage,
    RpcClient,
    RpcServer,
    /// A timer thread of the RPC client's timer design.
    Timer(u32),
}

/// The roles with a fixed place; timer threads come after them.
const FIXED_ROLES: usize = 6;

impl Role {
    fn index(self) -> usize {
        match self {
            Role::Heartbeat => 0,
            Role::LeaseHolder => 1,
            Role::LockService => 2,
            Role::Storage => 3,
            Role::RpcClient => 4,
            Role::RpcServer => 5,
            Role::Timer(thread) => FIXED_ROLES + thread as usize,
        }
    }

    /// The thread's name, as the trace and the summary give it.
    pub(crate) fn name(self) -> String {
        match self {
            Role::Heartbeat => "heartbeat".to_string(),
            Role::LeaseHolder => "lease-holder".to_string(),
            Role::LockService => "lock-service".to_string(),
            Role::Storage => "storage".to_string(),
            Role::RpcClient => "rpc-client".to_string(),
            Role::RpcServer => "rpc-server".to_string(),
            Role::Timer(thread) => format!("timer-{thread}"),
        }
    }

    /// The thread that handles `step`; `None` for bookkeeping no thread does (a host's clock
    /// reaching its lease's end) and for what is not a host's work (losses, network edges).
    pub(crate) fn of(step: &Step) -> Option<(HostId, Role)> {
        use super::lease::{LeaseMsg, LeaseWake};
        use super::rpc::{RpcMsg, RpcWake};
        match *step {
            Step::Wake { host, tag, .. } => {
                let role = match tag {
                    WakeTag::Heartbeat(_) => Role::Heartbeat,
                    WakeTag::Lease(LeaseWake::Expiry) => return None,
                    WakeTag::Lease(LeaseWake::Expire) => Role::LockService,
                    WakeTag::Lease(_) => Role::LeaseHolder,
                    WakeTag::Rpc(RpcWake::Call) => Role::RpcClient,
                    WakeTag::Rpc(RpcWake::Round { thread }) => Role::Timer(thread),
                    WakeTag::Rpc(RpcWake::Serve { .. }) => Role::RpcServer,
                };
                Some((host, role))
            }
            Step::Message { to, msg, .. } => {
                let role = match msg {
                    Msg::Heartbeat(_) => Role::Heartbeat,
                    Msg::Lease(LeaseMsg::Ask { .. }) => Role::LockService,
                    Msg::Lease(LeaseMsg::Granted { .. }) => Role::LeaseHolder,
                    Msg::Lease(LeaseMsg::Write { .. }) => Role::Storage,
                    Msg::Rpc(RpcMsg::Call { .. }) => Role::RpcServer,
                    Msg::Rpc(RpcMsg::Reply { .. }) => Role::RpcClient,
                };
                Some((to, role))
            }
            Step::Lost { .. } | Step::Network { .. } => None,
        }
    }
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
    /// By role index.
    workers: Vec<Option<Worker>>,
    /// By thread id: the role index of a workload thread.
    by_thread: Vec<Option<usize>>,
    /// A finished batch being done, one piece at a time: a piece may cancel a wake after it.
    in_hand: VecDeque<Step>,
}

/// What a piece of work costs in CPU; the workloads' `cpu` keys set it.
pub(crate) trait WorkCost {
    fn work_ns(&self, step: &Step) -> u64;
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
        let index = role.index();
        if self.workers.len() <= index {
            self.workers.resize_with(index + 1, || None);
        }
        if self.workers[index].is_none() {
            let cpu = cluster
                .cpu_of(host)
                .expect("only a host with a CPU has threads");
            let thread = cpu.add_thread(role.name());
            let id = thread.0 as usize;
            if self.by_thread.len() <= id {
                self.by_thread.resize(id + 1, None);
            }
            self.by_thread[id] = Some(index);
            self.workers[index] = Some(Worker {
                thread,
                role,
                backlog: VecDeque::new(),
                batch: 0,
                running: false,
            });
        }
        let worker = self.workers[index].as_mut().expect("made above");
        worker.backlog.push_back(step);
        if !worker.running {
            start_batch(worker, host, cluster, cost);
        }
    }

    /// Pieces of work waiting for `role`'s thread, the running batch's included.
    pub(crate) fn waiting(&self, role: Role) -> usize {
        self.workers
            .get(role.index())
            .and_then(Option::as_ref)
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
        for worker in self.workers.iter_mut().flatten() {
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
        self.workers
            .iter()
            .flatten()
            .map(|worker| worker.backlog.len())
            .sum()
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
        let worker = self.workers[index].as_mut()?;
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
