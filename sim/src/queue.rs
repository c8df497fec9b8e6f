//! The event queue: pending wakes ordered by (physical time, sequence number).
//!
//! A wake is asked for in terms of a clock ("when monotonic reads 16 s"), and the queue files it
//! under the physical time at which that will happen if nothing changes the clocks. When a fault
//! does change them, the world re-derives every physical time from the stored [`Deadline`];
//! sequence numbers survive that, so ties keep their original order.
//!
//! The heap holds bare 128-bit keys, `at_ns << 64 | seq << 24 | slot`, and the deadline and payload
//! live in a slot table beside it. One integer comparison orders two entries, and a heap of keys
//! is a third the size of a heap of whole entries: this is the simulator's innermost loop.

use crate::clock::ClockId;
use crate::heap::QuadHeap;

/// A moment on one clock: what a program waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub clock: ClockId,
    pub at_ns: i64,
}

const SLOT_BITS: u32 = 24;
const SEQ_BITS: u32 = 64 - SLOT_BITS;
/// Most wakes that can wait at once.
pub const MAX_PENDING: usize = 1 << SLOT_BITS;
/// Most wakes one world can ever file.
pub const MAX_SEQ: u64 = 1 << SEQ_BITS;

/// A wake taken off the queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Due<P> {
    pub(crate) seq: u64,
    pub(crate) deadline: Deadline,
    pub(crate) payload: P,
}

#[derive(Debug)]
pub(crate) struct EventQueue<P> {
    heap: QuadHeap,
    slots: Vec<Option<(Deadline, P)>>,
    free: Vec<u32>,
}

#[inline]
fn key(at_ns: u64, seq: u64, slot: u32) -> u128 {
    debug_assert!(seq < MAX_SEQ && (slot as usize) < MAX_PENDING);
    (u128::from(at_ns) << 64) | u128::from(seq << SLOT_BITS | u64::from(slot))
}

#[inline]
fn unkey(key: u128) -> (u64, u64, u32) {
    let low = key as u64;
    (
        (key >> 64) as u64,
        low >> SLOT_BITS,
        (low & ((1 << SLOT_BITS) - 1)) as u32,
    )
}

impl<P: Copy> EventQueue<P> {
    pub(crate) fn new() -> Self {
        EventQueue {
            heap: QuadHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn peek_ns(&self) -> Option<u64> {
        self.heap.peek().map(|key| (key >> 64) as u64)
    }

    #[inline]
    pub(crate) fn push(&mut self, at_ns: u64, seq: u64, deadline: Deadline, payload: P) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some((deadline, payload));
                slot
            }
            None => {
                assert!(
                    self.slots.len() < MAX_PENDING,
                    "more than {MAX_PENDING} wakes pending at once"
                );
                self.slots.push(Some((deadline, payload)));
                self.slots.len() as u32 - 1
            }
        };
        self.heap.push(key(at_ns, seq, slot));
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Due<P>> {
        let key = self.heap.pop()?;
        let (_, seq, slot) = unkey(key);
        let (deadline, payload) = self.slots[slot as usize]
            .take()
            .expect("a queued key has its slot");
        self.free.push(slot);
        Some(Due {
            seq,
            deadline,
            payload,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Re-derives every entry's time with `at_ns_of(deadline)`, keeping sequence numbers.
    pub(crate) fn retime(&mut self, mut at_ns_of: impl FnMut(Deadline) -> u64) {
        let mut keys = self.heap.take_keys();
        for key in &mut keys {
            let (_, seq, slot) = unkey(*key);
            let (deadline, _) = self.slots[slot as usize].expect("a queued key has its slot");
            *key = self::key(at_ns_of(deadline), seq, slot);
        }
        self.heap = QuadHeap::from_keys(keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deadline() -> Deadline {
        Deadline {
            clock: ClockId::Boottime,
            at_ns: 0,
        }
    }

    #[test]
    fn pops_by_time_then_sequence() {
        let mut queue = EventQueue::new();
        for (at_ns, seq) in [(5, 3), (5, 1), (2, 9), (7, 0), (u64::MAX, MAX_SEQ - 1)] {
            queue.push(at_ns, seq, deadline(), seq);
        }
        let order: Vec<_> = std::iter::from_fn(|| queue.pop())
            .map(|due| due.payload)
            .collect();
        assert_eq!(order, [9, 1, 3, 0, MAX_SEQ - 1]);
    }

    #[test]
    fn slots_are_reused_and_retiming_keeps_ties_in_order() {
        let mut queue = EventQueue::new();
        for seq in 0..4 {
            queue.push(100 - seq, seq, deadline(), seq);
        }
        queue.pop();
        queue.push(1, 4, deadline(), 4);
        assert_eq!(queue.slots.len(), 4);
        queue.retime(|_| 50);
        let order: Vec<_> = std::iter::from_fn(|| queue.pop())
            .map(|due| due.payload)
            .collect();
        assert_eq!(order, [0, 1, 2, 4]);
    }
}
