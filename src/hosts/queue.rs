//! The cluster's queue: fault edges, network windows, wakes, deliveries and the hosts' CPU wakes, ordered by physical
//! time and then by when they were filed, and the wakes hosts wait for.

use ticklab_sim::{ClockId, FaultEdge, SliceTicket};

use super::cluster::HostId;
use super::step::{Msg, WakeTag};

#[derive(Clone, Copy, Debug)]
pub(super) struct PendingWake {
    pub(super) clock: ClockId,
    pub(super) target_ns: i64,
    pub(super) tag: WakeTag,
    /// Unique for the wake's life: a cancel names it, so a reused slot is never cancelled.
    pub(super) id: u64,
    /// Unique per filing: an item of an older filing is stale.
    pub(super) generation: u64,
    pub(super) observer: bool,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Item {
    Edge {
        host: HostId,
        edge: FaultEdge,
    },
    Network {
        begins: bool,
        is_partition: bool,
        index: usize,
    },
    Wake {
        host: HostId,
        slot: u32,
        generation: u64,
    },
    Deliver {
        from: HostId,
        to: HostId,
        msg: Msg,
    },
    /// A time slice on a host's cores ended.
    Slice {
        host: HostId,
        ticket: SliceTicket,
    },
    /// An outside-load thread of a host starts its next burst.
    LoadBurst {
        host: HostId,
        index: u32,
    },
}

/// A queued item; ordered by time, then by when it was filed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Queued {
    pub(super) at_ns: u64,
    pub(super) seq: u64,
    pub(super) item: Item,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ns, self.seq) == (other.at_ns, other.seq)
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at_ns, self.seq).cmp(&(other.at_ns, other.seq))
    }
}
