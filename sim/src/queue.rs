//! The event queue: pending wakes ordered by (physical time, sequence number).
//!
//! A wake is asked for in terms of a clock ("when monotonic reads 16 s"), and the queue files it
//! under the physical time at which that will happen if nothing changes the clocks. When a fault
//! does change them, the world re-derives every physical time from the stored [`Deadline`];
//! sequence numbers survive that, so ties keep their original order.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::clock::ClockId;

/// A moment on one clock: what a program waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub clock: ClockId,
    pub at_ns: i64,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<P> {
    pub(crate) at_ns: u64,
    pub(crate) seq: u64,
    pub(crate) deadline: Deadline,
    pub(crate) payload: P,
}

impl<P> PartialEq for Entry<P> {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ns, self.seq) == (other.at_ns, other.seq)
    }
}

impl<P> Eq for Entry<P> {}

impl<P> PartialOrd for Entry<P> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<P> Ord for Entry<P> {
    /// Reversed, so that std's max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at_ns, other.seq).cmp(&(self.at_ns, self.seq))
    }
}

#[derive(Debug)]
pub(crate) struct EventQueue<P> {
    heap: BinaryHeap<Entry<P>>,
}

impl<P> EventQueue<P> {
    pub(crate) fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
        }
    }

    #[inline]
    pub(crate) fn peek_ns(&self) -> Option<u64> {
        self.heap.peek().map(|entry| entry.at_ns)
    }

    #[inline]
    pub(crate) fn push(&mut self, entry: Entry<P>) {
        self.heap.push(entry);
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Entry<P>> {
        self.heap.pop()
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Empties the queue into `out`, in no particular order.
    pub(crate) fn drain_into(&mut self, out: &mut Vec<Entry<P>>) {
        out.append(&mut std::mem::take(&mut self.heap).into_vec());
    }

    /// Refills the queue from `entries` in linear time.
    pub(crate) fn refill(&mut self, entries: Vec<Entry<P>>) {
        debug_assert!(self.heap.is_empty());
        self.heap = BinaryHeap::from(entries);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at_ns: u64, seq: u64) -> Entry<u64> {
        Entry {
            at_ns,
            seq,
            deadline: Deadline {
                clock: ClockId::Boottime,
                at_ns: 0,
            },
            payload: seq,
        }
    }

    #[test]
    fn pops_by_time_then_sequence() {
        let mut queue = EventQueue::new();
        for (at_ns, seq) in [(5, 3), (5, 1), (2, 9), (7, 0)] {
            queue.push(entry(at_ns, seq));
        }
        let order: Vec<_> = std::iter::from_fn(|| queue.pop())
            .map(|e| (e.at_ns, e.seq))
            .collect();
        assert_eq!(order, [(2, 9), (5, 1), (5, 3), (7, 0)]);
    }
}
