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
    /// A sleep that held a host's thread ends.
    Free {
        host: usize,
    },
    /// A partition or latency spike begins or ends.
    Network {
        begins: bool,
        is_partition: bool,
        index: usize,
    },
}

impl Event {
    fn payload_len(&self) -> u64 {
        match self {
            Event::Deliver(segment) => segment.payload_len(),
            _ => 0,
        }
    }
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

/// What an event costs in the queue's heap once grown, for the memory bound.
pub(crate) const BYTES_PER_EVENT: u64 = crate::memory::grown::<Entry>();

#[derive(Debug, Default)]
pub(crate) struct Queue {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
    /// Bytes the segments on their way carry, for the memory bound.
    payload_bytes: u64,
}

impl Queue {
    pub(crate) fn push(&mut self, at_ns: u64, event: Event) {
        self.seq += 1;
        self.payload_bytes += event.payload_len();
        let seq = self.seq;
        self.heap.push(Reverse(Entry { at_ns, seq, event }));
    }

    pub(crate) fn peek_ns(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(entry)| entry.at_ns)
    }

    pub(crate) fn pop(&mut self) -> Option<(u64, Event)> {
        let Reverse(entry) = self.heap.pop()?;
        self.payload_bytes -= entry.event.payload_len();
        Some((entry.at_ns, entry.event))
    }

    /// Bytes the segments on their way carry.
    pub(crate) fn payload_bytes(&self) -> u64 {
        self.payload_bytes
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}
