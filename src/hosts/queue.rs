//! The cluster's queue: fault edges, network windows, wakes, deliveries and the hosts' CPU wakes, ordered by physical
//! time and then by when they were filed, and the wakes hosts wait for.

use ticklab_sim::{ClockId, RadixQueue, SliceTicket};

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
    /// A host's fault edge, by its index in the cluster's list.
    Edge { host: HostId, index: u32 },
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
    /// Hosts by 32-bit number (as turmoil's datagrams carry them): with the envelope's two
    /// words, the queue's largest item, and every item is as large.
    Deliver { from: u32, to: u32, msg: Msg },
    /// A time slice on a host's cores ended.
    Slice { host: HostId, ticket: SliceTicket },
    /// An outside-load thread of a host starts its next burst.
    LoadBurst { host: HostId, index: u32 },
}

/// The queue itself: items by (physical time, order filed), in the radix queue the one-machine
/// world uses, which files a key by its bits instead of comparing it along a heap's paths. A
/// heap's pops were most of a large cluster's time: its depth grows with the queue, and every
/// level is a cache miss once the queue outgrows the cache.
#[derive(Debug)]
pub(super) struct Timeline {
    keys: RadixQueue<Item>,
    seq: u64,
    /// An item was filed while the queue was full, and dropped: the run must stop.
    overflowed: bool,
}

impl Timeline {
    /// What one queued item costs in memory: its node and link, twice over as storage grows by
    /// doubling.
    pub(super) const BYTES_PER_ITEM: u64 =
        2 * (std::mem::size_of::<(u128, Item)>() + std::mem::size_of::<u32>()) as u64;

    pub(super) fn new() -> Self {
        Timeline {
            keys: RadixQueue::new(),
            seq: 0,
            overflowed: false,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    pub(super) fn push(&mut self, at_ns: u64, item: Item) {
        if self.keys.len() >= ticklab_sim::MAX_PENDING_WAKES {
            self.overflowed = true;
            return;
        }
        self.seq += 1;
        let key = (u128::from(at_ns) << 64) | u128::from(self.seq << ticklab_sim::RADIX_SLOT_BITS);
        self.keys.insert(key, item);
    }

    #[inline]
    pub(super) fn peek_ns(&mut self) -> Option<u64> {
        self.keys.peek().map(|key| (key >> 64) as u64)
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<(u64, Item)> {
        self.keys
            .pop()
            .map(|(key, item)| ((key >> 64) as u64, item))
    }

    pub(super) fn overflowed(&self) -> bool {
        self.overflowed
    }
}
