//! What the cluster carries for the workloads without reading it: each message and wake is an
//! envelope with its workload's number and a few words only that workload reads, as turmoil's
//! world carries datagrams. And what happened next, for the workloads.
//!
//! The words are plain integers, not a boxed value: an envelope is copied into the queue, a
//! host's held items and a thread's backlog, and at 10,000 hosts an allocation or a pointer to
//! follow per heartbeat would cost more than the heartbeat. The payload is as large as the
//! largest message any workload sends (two words), so the queue's items keep their size.

/// A host, by its place in the scenario's list.
pub(crate) type HostId = usize;

/// Which workload of the run a message or wake is for: its place in the run's list.
pub(crate) type WorkloadId = u8;

/// A workload's message or wake as words: which of its kinds, and up to two numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Words {
    pub(crate) kind: u8,
    pub(crate) first: u64,
    pub(crate) second: u64,
}

/// A message between hosts: the workload that sent it, and its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Msg {
    pub(crate) workload: WorkloadId,
    pub(crate) kind: u8,
    pub(crate) first: u64,
    pub(crate) second: u64,
}

impl Msg {
    pub(crate) fn new(workload: WorkloadId, words: Words) -> Self {
        Msg {
            workload,
            kind: words.kind,
            first: words.first,
            second: words.second,
        }
    }

    pub(crate) fn words(self) -> Words {
        Words {
            kind: self.kind,
            first: self.first,
            second: self.second,
        }
    }
}

/// What a wake is for: the workload that asked for it, and one word. A wake is kept in its
/// host's slot while it waits, so it carries one number where a message carries two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WakeTag {
    pub(crate) workload: WorkloadId,
    pub(crate) kind: u8,
    pub(crate) word: u64,
}

impl WakeTag {
    pub(crate) fn new(workload: WorkloadId, words: Words) -> Self {
        debug_assert_eq!(words.second, 0, "a wake carries one word");
        WakeTag {
            workload,
            kind: words.kind,
            word: words.first,
        }
    }

    pub(crate) fn words(self) -> Words {
        Words {
            kind: self.kind,
            first: self.word,
            second: 0,
        }
    }
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
