//! What the cluster hands the runner: the messages and wakes of every workload, and the next
//! thing that happened.

use ticklab_sim::{EdgeEffect, FaultEdge};

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

/// What happened next.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    Wake {
        host: HostId,
        tag: WakeTag,
    },
    Message {
        from: HostId,
        to: HostId,
        msg: Msg,
    },
    /// A fault edge of one host, applied.
    HostEdge {
        host: HostId,
        edge: FaultEdge,
        effect: EdgeEffect,
        /// What the host found as it ran again, if it held anything.
        thawed: Option<super::thaw::Thawed>,
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
    End,
}
