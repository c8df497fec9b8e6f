//! What the cluster hands the workloads: the messages and wakes of every workload, and what
//! happened on the network.

use super::cluster::HostId;

/// A message between hosts, of whichever workload sent it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Msg {
    Lease(super::lease::LeaseMsg),
    Heartbeat(super::heartbeat::Beat),
    Rpc(super::rpc::RpcMsg),
}

/// What a wake is for, of whichever workload asked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WakeTag {
    Lease(super::lease::LeaseWake),
    Heartbeat(super::heartbeat::BeatWake),
    Rpc(super::rpc::RpcWake),
}

/// A pending wake, to cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WakeId {
    pub(super) host: HostId,
    pub(super) slot: u32,
    pub(super) id: u64,
}

/// What happened next, for the workloads; the drive loop handles the hosts' fault edges and CPUs
/// itself.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    Wake {
        host: HostId,
        tag: WakeTag,
        /// The wake's id: one cancelled while it waits for its host's thread is dropped.
        id: u64,
    },
    Message {
        from: HostId,
        to: HostId,
        msg: Msg,
    },
    /// A message dropped on arrival: across a partition, or to a host asleep.
    Lost {
        from: HostId,
        to: HostId,
        msg: Msg,
    },
    /// A partition or spike began or ended: (begins, is a partition, index).
    Network {
        begins: bool,
        is_partition: bool,
        index: usize,
    },
}
