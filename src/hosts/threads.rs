//! The workloads' threads on a host that has a CPU. Every wake and message a workload handles is
//! work for one of its threads: the heartbeat sender, the detector, the lease holder, the lock
//! service, storage, the RPC client and server, and each timer thread of the client's design.
//! A thread handles its work in the order it came, one piece at a time, each once it has had a
//! core for the CPU the piece needs; what it does (a send, a suspicion, a grant) happens then.
//!
//! A host without a CPU has no threads: its workloads handle everything the moment it comes.

use std::collections::VecDeque;

use ticklab_sim::{CpuKind, ThreadId};

use super::cluster::{Cluster, HostId, Msg, Step, WakeTag};

/// Which thread of a host handles a piece of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    HeartbeatSender,
    Detector,
    LeaseHolder,
    LockService,
    Storage,
    RpcClient,
    RpcServer,
    /// A timer thread of the RPC client's timer design.
    Timer(u32),
}

/// The roles with a fixed place; timer threads come after them.
const FIXED_ROLES: usize = 7;

impl Role {
    fn index(self) -> usize {
        match self {
            Role::HeartbeatSender => 0,
            Role::Detector => 1,
            Role::LeaseHolder => 2,
            Role::LockService => 3,
            Role::Storage => 4,
            Role::RpcClient => 5,
            Role::RpcServer => 6,
            Role::Timer(thread) => FIXED_ROLES + thread as usize,
        }
    }

    /// The thread's name, as the trace and the summary give it.
    pub(crate) fn name(self) -> String {
        match self {
            Role::HeartbeatSender => "heartbeat-sender".to_string(),
            Role::Detector => "detector".to_string(),
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
        use super::heartbeat::BeatWake;
        use super::lease::{LeaseMsg, LeaseWake};
        use super::rpc::{RpcMsg, RpcWake};
        match *step {
            Step::Wake { host, tag } => {
                let role = match tag {
                    WakeTag::Heartbeat(BeatWake::Send) => Role::HeartbeatSender,
                    WakeTag::Heartbeat(BeatWake::Check { .. }) => Role::Detector,
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
                    Msg::Heartbeat(_) => Role::Detector,
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
    /// The piece it works on first, then the rest in the order they came.
    backlog: VecDeque<Step>,
}

/// The workload threads of one host with a CPU, made as work first comes for each.
#[derive(Debug, Default)]
pub(crate) struct HostThreads {
    /// By role index.
    workers: Vec<Option<Worker>>,
    /// By thread id: the role index of a workload thread.
    by_thread: Vec<Option<usize>>,
}

/// What a piece of work costs in CPU, by role; the workloads' `cpu` keys set it.
pub(crate) trait WorkCost {
    fn work_ns(&self, host: HostId, role: Role) -> u64;
}

impl HostThreads {
    /// `step` is work for `role` on `host`: it waits for the thread, which starts on it at once
    /// if it was idle. Returns nothing: the work is done when the thread's CPU is.
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
        let worker = match &mut self.workers[index] {
            Some(worker) => worker,
            slot @ None => {
                let cpu = cluster
                    .cpu_of(host)
                    .expect("only a host with a CPU has threads");
                let thread = cpu.add_thread(role.name());
                let id = thread.0 as usize;
                if self.by_thread.len() <= id {
                    self.by_thread.resize(id + 1, None);
                }
                self.by_thread[id] = Some(index);
                slot.insert(Worker {
                    thread,
                    role,
                    backlog: VecDeque::new(),
                })
            }
        };
        worker.backlog.push_back(step);
        if worker.backlog.len() == 1 {
            let (thread, work_ns) = (worker.thread, cost.work_ns(host, role));
            run(cluster, host, thread, work_ns);
        }
    }

    /// `thread` had the CPU its first piece needed: that piece is done now, and the thread
    /// starts on the next, if any. Returns the piece and the thread's role.
    pub(crate) fn done(
        &mut self,
        host: HostId,
        thread: ThreadId,
        cluster: &mut Cluster,
        cost: &dyn WorkCost,
    ) -> Option<(Step, Role)> {
        let index = (*self.by_thread.get(thread.0 as usize)?)?;
        let worker = self.workers[index].as_mut()?;
        let step = worker.backlog.pop_front()?;
        let role = worker.role;
        if !worker.backlog.is_empty() {
            let (thread, work_ns) = (worker.thread, cost.work_ns(host, role));
            run(cluster, host, thread, work_ns);
        }
        Some((step, role))
    }
}

/// Gives `thread` `work_ns` of CPU on `host`'s cores.
fn run(cluster: &mut Cluster, host: HostId, thread: ThreadId, work_ns: u64) {
    let now_ns = cluster.now_ns();
    if let Some(cpu) = cluster.cpu_of(host) {
        cpu.run(thread, work_ns, CpuKind::Busy, now_ns);
    }
    crate::machine::Ground::file_cpu_wakes(cluster, host);
}
