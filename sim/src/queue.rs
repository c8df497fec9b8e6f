//! The event queue: pending wakes ordered by (physical time, sequence number).
//!
//! A wake is asked for in terms of a clock ("when monotonic reads 16 s"), and the queue files it
//! under the physical time at which that will happen if nothing changes the clocks. When a fault
//! does change them, the world re-derives every physical time from the stored [`Deadline`];
//! sequence numbers survive that, so ties keep their original order.
//!
//! Each wake is a 128-bit key, `at_ns << 64 | seq << 24 | slot`, so one integer comparison
//! orders two of them; the slot names where the wake's deadline and payload are kept. The keys sit
//! in a [`RadixQueue`], which files them by their bits rather than comparing them: this is the
//! simulator's innermost loop.

use crate::clock::ClockId;
use crate::radix::{RadixQueue, SLOT_BITS};

/// A moment on one clock: what a program waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub clock: ClockId,
    pub at_ns: i64,
}

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

/// A wake as queued: its deadline's fields laid out to pack with the payload.
#[derive(Clone, Copy, Debug)]
struct Filed<P> {
    at_ns: i64,
    clock: ClockId,
    payload: P,
}

impl<P: Copy> Filed<P> {
    #[inline]
    fn due(self, seq: u64) -> Due<P> {
        Due {
            seq,
            deadline: Deadline {
                clock: self.clock,
                at_ns: self.at_ns,
            },
            payload: self.payload,
        }
    }
}

#[derive(Debug)]
pub(crate) struct EventQueue<P> {
    keys: RadixQueue<Filed<P>>,
    /// Entries waiting on each clock, so a change to a clock nobody waits on costs nothing.
    waiting_on: [usize; 3],
    /// A wake was asked for while [`MAX_PENDING`] were already waiting, and dropped: the run
    /// can no longer be trusted, and its driver stops it with an error.
    overflowed: bool,
}

/// What one waiting wake costs in memory, at most: its node (key and payload) and its link,
/// twice over since the queue's storage grows by doubling.
pub(crate) const fn bytes_per_entry<P>() -> u64 {
    2 * (std::mem::size_of::<(u128, Filed<P>)>() + std::mem::size_of::<u32>()) as u64
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
            keys: RadixQueue::new(),
            waiting_on: [0; 3],
            overflowed: false,
        }
    }

    #[inline]
    pub(crate) fn peek_ns(&mut self) -> Option<u64> {
        self.keys.peek().map(|key| (key >> 64) as u64)
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, at_ns: u64, seq: u64, deadline: Deadline, payload: P) {
        if self.keys.len() >= MAX_PENDING {
            self.overflowed = true;
            return;
        }
        self.waiting_on[deadline.clock as usize] += 1;
        let filed = Filed {
            at_ns: deadline.at_ns,
            clock: deadline.clock,
            payload,
        };
        self.keys.insert(key(at_ns, seq, 0), filed);
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Due<P>> {
        let (key, filed) = self.keys.pop()?;
        let (_, seq, _) = unkey(key);
        Some(filed.due(seq))
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether a wake was dropped because [`MAX_PENDING`] were already waiting.
    pub(crate) fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Whether any entry waits on `clock`.
    pub(crate) fn waits_on(&self, clock: ClockId) -> bool {
        self.waiting_on[clock as usize] > 0
    }

    /// Re-derives the time of every entry waiting on a clock in `clocks` with `at_ns_of`, keeping
    /// sequence numbers. Entries whose clock will not reach their deadline (`None`) are taken out
    /// and returned.
    pub(crate) fn retime(
        &mut self,
        clocks: &[ClockId],
        mut at_ns_of: impl FnMut(Deadline) -> Option<u64>,
    ) -> Vec<Due<P>> {
        let mut stalled = Vec::new();
        let mut entries = self.keys.drain();
        entries.retain_mut(|(key, filed)| {
            let (_, seq, slot) = unkey(*key);
            let due = filed.due(seq);
            if !clocks.contains(&due.deadline.clock) {
                return true;
            }
            match at_ns_of(due.deadline) {
                Some(at_ns) => {
                    *key = self::key(at_ns, seq, slot);
                    true
                }
                None => {
                    self.keys.release(slot);
                    self.waiting_on[due.deadline.clock as usize] -= 1;
                    stalled.push(due);
                    false
                }
            }
        });
        // In the order they were filed: the world parks them in this order.
        stalled.sort_by_key(|due| due.seq);
        self.keys.refill(entries);
        stalled
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
    fn retiming_only_touches_the_changed_clock_and_hands_back_stalled_entries() {
        let mut queue = EventQueue::new();
        let wall = Deadline {
            clock: ClockId::Wall,
            at_ns: 0,
        };
        queue.push(10, 0, deadline(), 0);
        queue.push(20, 1, wall, 1);
        queue.push(30, 2, wall, 2);
        assert!(queue.waits_on(ClockId::Wall) && !queue.waits_on(ClockId::Monotonic));
        let stalled = queue.retime(&[ClockId::Wall], |_| None);
        assert_eq!(
            stalled.iter().map(|due| due.payload).collect::<Vec<_>>(),
            [1, 2]
        );
        assert!(!queue.waits_on(ClockId::Wall));
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.peek_ns(), Some(10));
    }

    #[test]
    fn a_full_queue_drops_the_wake_and_says_so_instead_of_panicking() {
        let mut queue = EventQueue::new();
        for seq in 0..MAX_PENDING as u64 {
            queue.push(seq, seq, deadline(), ());
        }
        assert!(!queue.overflowed());
        queue.push(0, MAX_PENDING as u64, deadline(), ());
        assert!(queue.overflowed());
        assert_eq!(queue.len(), MAX_PENDING);
    }

    #[test]
    fn retiming_keeps_ties_in_order() {
        let mut queue = EventQueue::new();
        for seq in 0..4 {
            queue.push(100 - seq, seq, deadline(), seq);
        }
        queue.pop();
        queue.push(1, 4, deadline(), 4);
        assert!(queue.retime(&[ClockId::Boottime], |_| Some(50)).is_empty());
        let order: Vec<_> = std::iter::from_fn(|| queue.pop())
            .map(|due| due.payload)
            .collect();
        assert_eq!(order, [0, 1, 2, 4]);
    }
}
