//! What happens next on the run's physical timeline, in (time, sequence) order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ticklab_sim::FaultEdge;

use super::net::fabric::Segment;

#[derive(Debug)]
pub(crate) enum Event {
    /// A host's code starts.
    Start {
        host: usize,
    },
    Edge {
        host: usize,
        edge: FaultEdge,
    },
    /// A host's next timer falls due, if it is still the one of `generation`.
    Timer {
        host: usize,
        generation: u64,
    },
    Deliver(Segment),
    /// A partition or latency spike begins or ends.
    Network {
        begins: bool,
        is_partition: bool,
        index: usize,
    },
}

#[derive(Debug)]
struct Entry {
    at_ns: u64,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ns, self.seq) == (other.at_ns, other.seq)
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at_ns, self.seq).cmp(&(other.at_ns, other.seq))
    }
}

#[derive(Debug, Default)]
pub(crate) struct Queue {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
}

impl Queue {
    pub(crate) fn push(&mut self, at_ns: u64, event: Event) {
        self.seq += 1;
        let seq = self.seq;
        self.heap.push(Reverse(Entry { at_ns, seq, event }));
    }

    pub(crate) fn peek_ns(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(entry)| entry.at_ns)
    }

    pub(crate) fn pop(&mut self) -> Option<(u64, Event)> {
        self.heap
            .pop()
            .map(|Reverse(entry)| (entry.at_ns, entry.event))
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}
