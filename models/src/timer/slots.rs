//! Timer ids and their versions: how a stale id can never cancel a newer timer.
//!
//! Every timer lives in a slot. A slot's version says where its current timer is: `v` scheduled,
//! `v + 1` running, `v + 2` done or cancelled, and `v + 2` is also the version the slot's next timer
//! starts from. An id is `version << 32 | slot`, so an old id names a version the slot has left,
//! and every compare-and-swap on it fails (brpc's `TimerThread` scheme). Version 0 is skipped, so
//! no id is 0.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use std::sync::OnceLock;

use crate::sync::{Atomic64, Lock, Primitives};

/// A scheduled timer's handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(u64);

impl TimerId {
    /// The id of the timer in `slot` at `version`, as the built-in designs number them.
    pub fn new(slot: u32, version: u32) -> Self {
        TimerId((u64::from(version) << 32) | u64::from(slot))
    }

    /// An id from a design's own numbering. Traces print it; 0 reads as "no timer" there, so a
    /// design should start from 1.
    pub fn from_raw(raw: u64) -> Self {
        TimerId(raw)
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

/// The most slots a design may have: enough for 100k calls a second with 300 s timeouts (30 M
/// live timers) twice over. Slots are made as they are first needed, never up front.
pub const MAX_CAPACITY: usize = 1 << 26;

/// The first segment's size at most; each later segment doubles the one before.
const FIRST_SEGMENT: usize = 1024;

/// The version of every slot, made as timers first need them. Segment `k` holds
/// `first << k` slots, so a design that never holds more than a few timers allocates a few
/// slots, and one that holds 30 M allocates as it grows, with at most twice what it used.
///
/// The first segment is made at once; later ones are published through a `OnceLock` under the
/// `grow` lock. loom and shuttle have no `OnceLock`, and the model checks stay within the first
/// segment, so they explore the versions, which is where the protocol lives.
pub(crate) struct Slots<S: Primitives> {
    capacity: u64,
    /// `log2` of the first segment's size.
    first_shift: u32,
    /// Slots handed out so far (it may run past `capacity`; then none are left).
    minted: S::AtomicU64,
    segments: Box<[Segment<S>]>,
    grow: S::Mutex<()>,
}

/// One segment of versions, made the first time a slot in it is minted.
type Segment<S> = OnceLock<Box<[<S as Primitives>::AtomicU64]>>;

fn plus(version: u32, steps: u32) -> u32 {
    version.wrapping_add(steps)
}

fn segment_of(first_shift: u32, slot: u64) -> (usize, usize) {
    let group = (slot >> first_shift) + 1;
    let segment = 63 - group.leading_zeros();
    let start = ((1u64 << segment) - 1) << first_shift;
    (segment as usize, (slot - start) as usize)
}

fn new_segment<S: Primitives>(len: usize) -> Box<[S::AtomicU64]> {
    (0..len).map(|_| S::AtomicU64::new(2)).collect()
}

impl<S: Primitives> Slots<S> {
    /// Room for `capacity` slots in all, at most [`MAX_CAPACITY`].
    pub(crate) fn new(capacity: usize) -> Self {
        let capacity = capacity.clamp(1, MAX_CAPACITY);
        let first = capacity.min(FIRST_SEGMENT).next_power_of_two();
        let first_shift = first.trailing_zeros();
        let (last, _) = segment_of(first_shift, capacity as u64 - 1);
        let segments: Box<[Segment<S>]> = (0..=last).map(|_| OnceLock::new()).collect();
        let _ = segments[0].set(new_segment::<S>(first));
        Slots {
            capacity: capacity as u64,
            first_shift,
            minted: S::AtomicU64::new(0),
            segments,
            grow: S::Mutex::new(()),
        }
    }

    /// Slots ever handed out: the most that can be in use.
    pub(crate) fn minted(&self) -> usize {
        self.minted.load(Relaxed).min(self.capacity) as usize
    }

    /// A slot never used before, or `None` once `capacity` slots were handed out.
    pub(crate) fn mint(&self) -> Option<u32> {
        let slot = self.minted.fetch_add(1, Relaxed);
        if slot >= self.capacity {
            return None;
        }
        let (segment, _) = segment_of(self.first_shift, slot);
        if self.segments[segment].get().is_none() {
            self.grow.with(|()| {
                if self.segments[segment].get().is_none() {
                    let len = 1usize << (self.first_shift + segment as u32);
                    let _ = self.segments[segment].set(new_segment::<S>(len));
                }
            });
        }
        Some(slot as u32)
    }

    /// The version cell of `slot`, if it was ever made.
    fn cell(&self, slot: u32) -> Option<&S::AtomicU64> {
        if u64::from(slot) >= self.capacity {
            return None;
        }
        let (segment, offset) = segment_of(self.first_shift, u64::from(slot));
        self.segments[segment].get()?.get(offset)
    }

    /// The id of a new timer in the free `slot`.
    pub(crate) fn id_for(&self, slot: u32) -> TimerId {
        let version_cell = self.cell(slot).expect("free slots were minted");
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
        let cell = self.cell(id.slot()).expect("queued timers were minted");
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
        let cell = self.cell(id.slot()).expect("running timers were minted");
        cell.store(u64::from(plus(id.version(), 2)), order);
    }

    pub(crate) fn is_cancelled(&self, id: TimerId) -> bool {
        let cell = self.cell(id.slot()).expect("queued timers were minted");
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
        let slots = Slots::<StdPrimitives>::new(1);
        let slot = slots.mint().unwrap();
        let first = slots.id_for(slot);
        assert_eq!(slots.cancel(first), Unscheduled::Cancelled);
        let second = slots.id_for(slot);
        assert_ne!(first, second);
        assert_eq!(slots.cancel(first), Unscheduled::NotFound);
        assert_eq!(slots.start(second), Start::Run);
        assert_eq!(slots.cancel(second), Unscheduled::Running);
        slots.finish(second);
        assert_eq!(slots.cancel(second), Unscheduled::NotFound);
    }

    #[test]
    fn versions_wrap_around_without_ever_making_id_zero() {
        let slots = Slots::<StdPrimitives>::new(1);
        let slot = slots.mint().unwrap();
        slots
            .cell(slot)
            .unwrap()
            .store(u64::from(u32::MAX - 1), Relaxed);
        let id = slots.id_for(slot);
        assert_eq!(slots.start(id), Start::Run);
        slots.finish(id);
        let next = slots.id_for(slot);
        assert_eq!(next.version(), 2);
        assert_ne!(next.raw(), 0);
        assert_eq!(slots.cancel(TimerId::new(0, 0)), Unscheduled::NotFound);
        assert_eq!(slots.cancel(TimerId::new(7, 2)), Unscheduled::NotFound);
    }

    #[test]
    fn segments_double_and_cover_every_slot_once() {
        for first_shift in [0, 3, 10] {
            let mut expected = (0usize, 0usize);
            for slot in 0..5_000u64 {
                assert_eq!(segment_of(first_shift, slot), expected, "slot {slot}");
                expected.1 += 1;
                if expected.1 == 1 << (first_shift + expected.0 as u32) {
                    expected = (expected.0 + 1, 0);
                }
            }
        }
    }

    #[test]
    fn slots_are_made_as_needed_up_to_the_capacity_and_no_further() {
        let slots = Slots::<StdPrimitives>::new(MAX_CAPACITY);
        let made = |slots: &Slots<StdPrimitives>| {
            slots.segments.iter().filter(|s| s.get().is_some()).count()
        };
        assert_eq!(made(&slots), 1, "only the first segment at first");
        assert_eq!(slots.segments[0].get().unwrap().len(), FIRST_SEGMENT);
        for expected in 0..3_000u32 {
            assert_eq!(slots.mint(), Some(expected));
        }
        // 1024 + 2048 slots cover 3,000: two segments.
        assert_eq!(made(&slots), 2);
        let id = slots.id_for(2_999);
        assert_eq!(slots.cancel(id), Unscheduled::Cancelled);
        let unmade = TimerId::new(3_072, 2);
        assert_eq!(slots.cancel(unmade), Unscheduled::NotFound);

        let small = Slots::<StdPrimitives>::new(3);
        assert_eq!(
            (small.mint(), small.mint(), small.mint()),
            (Some(0), Some(1), Some(2))
        );
        assert_eq!(small.mint(), None);
        assert_eq!(small.mint(), None);
        assert_eq!(small.minted(), 3);
        assert_eq!(small.cancel(TimerId::new(3, 2)), Unscheduled::NotFound);
    }
}
