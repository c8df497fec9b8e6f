//! Timer ids and their versions: how a stale id can never cancel a newer timer.
//!
//! Every timer lives in a slot. A slot's version says where its current timer is: `v` scheduled,
//! `v + 1` running, `v + 2` done or cancelled, and `v + 2` is also the version the slot's next timer
//! starts from. An id is `version << 32 | slot`, so an old id names a version the slot has left,
//! and every compare-and-swap on it fails (brpc's `TimerThread` scheme). Version 0 is skipped, so
//! no id is 0.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use crate::sync::{Atomic64, Primitives};

/// A scheduled timer's handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(u64);

impl TimerId {
    pub(crate) fn new(slot: u32, version: u32) -> Self {
        TimerId((u64::from(version) << 32) | u64::from(slot))
    }

    pub fn slot(self) -> u32 {
        self.0 as u32
    }

    pub fn version(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// The id as one number, for traces.
    pub fn raw(self) -> u64 {
        self.0
    }
}

/// What `unschedule` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unscheduled {
    /// The timer will never run.
    Cancelled,
    /// Its callback is running now; it will finish.
    Running,
    /// It already ran, was already cancelled, or the id is stale or invalid.
    NotFound,
}

/// What the timer thread may do with a timer it took off its heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Start {
    Run,
    Cancelled,
}

/// The version of every slot in a range; ids carry the slot's number in the whole design, so a
/// design split into parts (buckets, shards) can tell from an id which part owns it.
pub(crate) struct Slots<S: Primitives> {
    first_slot: u32,
    versions: Box<[S::AtomicU64]>,
}

fn plus(version: u32, steps: u32) -> u32 {
    version.wrapping_add(steps)
}

impl<S: Primitives> Slots<S> {
    /// Slots `first_slot .. first_slot + count`.
    pub(crate) fn new(first_slot: u32, count: usize) -> Self {
        Slots {
            first_slot,
            versions: (0..count).map(|_| S::AtomicU64::new(2)).collect(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.versions.len()
    }

    pub(crate) fn contains(&self, slot: u32) -> bool {
        self.cell(slot).is_some()
    }

    /// The cell of a slot in this range, by its number in the whole design.
    fn cell(&self, slot: u32) -> Option<&S::AtomicU64> {
        self.versions
            .get(slot.checked_sub(self.first_slot)? as usize)
    }

    /// The id of a new timer in the free `slot`.
    pub(crate) fn id_for(&self, slot: u32) -> TimerId {
        let version_cell = self.cell(slot).expect("free slots belong to their range");
        let mut version = version_cell.load(Relaxed) as u32;
        if version == 0 {
            // The counter wrapped; 0 stays reserved for "no timer".
            version = 2;
            version_cell.store(u64::from(version), Relaxed);
        }
        TimerId::new(slot, version)
    }

    /// Cancels the timer `id` if it has not started (brpc's `unschedule`). Acquire pairs with the
    /// release in [`finish`](Self::finish), so a caller told `NotFound` after a run sees all the
    /// callback did.
    pub(crate) fn cancel(&self, id: TimerId) -> Unscheduled {
        let Some(cell) = self.cell(id.slot()) else {
            return Unscheduled::NotFound;
        };
        let version = id.version();
        if version == 0 {
            return Unscheduled::NotFound;
        }
        match cell.compare_exchange(
            u64::from(version),
            u64::from(plus(version, 2)),
            Acquire,
            Acquire,
        ) {
            Ok(_) => Unscheduled::Cancelled,
            Err(now) if now as u32 == plus(version, 1) => Unscheduled::Running,
            Err(_) => Unscheduled::NotFound,
        }
    }

    /// A cancellation that only reads the version: the "cancel without bumping the version" bug,
    /// kept for the model checks that must catch it.
    pub(crate) fn cancel_without_bump(&self, id: TimerId) -> Unscheduled {
        let Some(cell) = self.cell(id.slot()) else {
            return Unscheduled::NotFound;
        };
        match cell.load(Acquire) as u32 {
            now if now == id.version() => Unscheduled::Cancelled,
            now if now == plus(id.version(), 1) => Unscheduled::Running,
            _ => Unscheduled::NotFound,
        }
    }

    /// Claims the timer `id` for running, unless it was cancelled.
    pub(crate) fn start(&self, id: TimerId) -> Start {
        let version = id.version();
        let cell = self
            .cell(id.slot())
            .expect("queued timers belong to their range");
        match cell.compare_exchange(
            u64::from(version),
            u64::from(plus(version, 1)),
            Relaxed,
            Relaxed,
        ) {
            Ok(_) => Start::Run,
            Err(now) => {
                debug_assert_eq!(
                    now as u32,
                    plus(version, 2),
                    "a queued timer is scheduled or cancelled"
                );
                Start::Cancelled
            }
        }
    }

    /// Marks a run finished; the slot may now be reused.
    pub(crate) fn finish(&self, id: TimerId) {
        self.finish_with(id, Release);
    }

    /// [`finish`](Self::finish) with a chosen ordering; only `Release` is correct, and the model
    /// checks prove that `Relaxed` is caught.
    pub(crate) fn finish_with(&self, id: TimerId, order: std::sync::atomic::Ordering) {
        let cell = self
            .cell(id.slot())
            .expect("running timers belong to their range");
        cell.store(u64::from(plus(id.version(), 2)), order);
    }

    pub(crate) fn is_cancelled(&self, id: TimerId) -> bool {
        let cell = self
            .cell(id.slot())
            .expect("queued timers belong to their range");
        cell.load(Relaxed) as u32 != id.version()
    }
}

/// A timer as the timer thread keeps it: ordered by deadline, then id, earliest first.
#[derive(Debug)]
pub(crate) struct Task<P> {
    pub(crate) deadline_ns: i64,
    pub(crate) id: TimerId,
    pub(crate) payload: P,
}

impl<P> PartialEq for Task<P> {
    fn eq(&self, other: &Self) -> bool {
        (self.deadline_ns, self.id) == (other.deadline_ns, other.id)
    }
}

impl<P> Eq for Task<P> {}

impl<P> PartialOrd for Task<P> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<P> Ord for Task<P> {
    /// Reversed, so std's max-heap yields the earliest deadline first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.deadline_ns, other.id).cmp(&(self.deadline_ns, self.id))
    }
}

/// Cancelled timers stay in the heap until they reach its top. Once the heap has grown past
/// this size and doubled since the last purge, they are purged all at once (brpc #3384), so a
/// flood of cancelled long timeouts cannot hold memory until their deadlines.
pub(crate) const PURGE_FLOOR: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::StdPrimitives;

    #[test]
    fn a_stale_id_cannot_cancel_the_slots_next_timer() {
        let slots = Slots::<StdPrimitives>::new(0, 1);
        let first = slots.id_for(0);
        assert_eq!(slots.cancel(first), Unscheduled::Cancelled);
        let second = slots.id_for(0);
        assert_ne!(first, second);
        assert_eq!(slots.cancel(first), Unscheduled::NotFound);
        assert_eq!(slots.start(second), Start::Run);
        assert_eq!(slots.cancel(second), Unscheduled::Running);
        slots.finish(second);
        assert_eq!(slots.cancel(second), Unscheduled::NotFound);
    }

    #[test]
    fn versions_wrap_around_without_ever_making_id_zero() {
        let slots = Slots::<StdPrimitives>::new(0, 1);
        slots.versions[0].store(u64::from(u32::MAX - 1), Relaxed);
        let id = slots.id_for(0);
        assert_eq!(slots.start(id), Start::Run);
        slots.finish(id);
        let next = slots.id_for(0);
        assert_eq!(next.version(), 2);
        assert_ne!(next.raw(), 0);
        assert_eq!(slots.cancel(TimerId::new(0, 0)), Unscheduled::NotFound);
        assert_eq!(slots.cancel(TimerId::new(7, 2)), Unscheduled::NotFound);
    }

    #[test]
    fn a_range_knows_only_its_own_slots() {
        let slots = Slots::<StdPrimitives>::new(100, 4);
        let id = slots.id_for(102);
        assert_eq!(id.slot(), 102);
        assert_eq!(slots.cancel(id), Unscheduled::Cancelled);
        assert_eq!(slots.cancel(TimerId::new(99, 2)), Unscheduled::NotFound);
        assert_eq!(slots.cancel(TimerId::new(104, 2)), Unscheduled::NotFound);
    }
}
