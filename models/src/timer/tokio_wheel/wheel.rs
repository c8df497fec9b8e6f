//! The hierarchical timing wheel of tokio 1.x's time driver, on millisecond ticks: six levels
//! of 64 slots, a level-`n` slot spanning `64^n` ms, so that the levels reach 64 ms, about 4 s,
//! 4 min, 4.6 h, 12 days and 2.2 years ahead of the wheel's `elapsed` tick.
//!
//! - A timer goes to the level of the highest 6-bit digit in which its tick differs from
//!   `elapsed` (`level_for`); past the top level's reach it goes to the top level, and is
//!   re-filed each time its slot comes round until it is in reach.
//! - Polling takes the earliest occupied slot of the lowest level that has one. A level-0 slot's
//!   timers are due; an upper slot's are due only if their tick has come, and the rest cascade to
//!   the level their tick now needs.
//! - Timers due at or before `elapsed` when added wait on a pending list, taken first.
//!
//! Timers are kept in intrusive doubly linked lists threaded through one `Vec`, indexed by the
//! design's slot numbers, so that a cancelled timer leaves its list at once, as tokio's does.

/// Bits of tick each level indexes.
const BITS_PER_LEVEL: u32 = 6;
const SLOTS_PER_LEVEL: usize = 1 << BITS_PER_LEVEL;
pub(crate) const LEVELS: usize = 6;
/// How far ahead of `elapsed` the top level reaches: 2^36 ms, about 2.2 years.
pub const MAX_DURATION_TICKS: u64 = 1 << (BITS_PER_LEVEL * LEVELS as u32);

/// "No node": the end of a list.
const NIL: u32 = u32::MAX;
/// The list id of the pending list; wheel slots are `level * 64 + slot`.
const PENDING: u16 = (LEVELS * SLOTS_PER_LEVEL) as u16;
/// The list id of a node in no list.
const NOWHERE: u16 = PENDING + 1;

#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
}

const EMPTY: List = List {
    head: NIL,
    tail: NIL,
};

#[derive(Debug)]
struct Node<P> {
    when: u64,
    prev: u32,
    next: u32,
    list: u16,
    payload: Option<P>,
}

/// A due slot: which, and the tick it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Expiration {
    level: usize,
    slot: usize,
    deadline: u64,
}

pub(crate) struct Wheel<P> {
    /// The tick the wheel has been polled up to.
    elapsed: u64,
    /// One bit per non-empty slot, per level.
    occupied: [u64; LEVELS],
    lists: Vec<List>,
    nodes: Vec<Node<P>>,
    /// Timers in the wheel or pending.
    len: usize,
}

impl<P> std::fmt::Debug for Wheel<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wheel")
            .field("elapsed", &self.elapsed)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// The level a timer for tick `when` belongs to while the wheel stands at `elapsed`.
pub(crate) fn level_for(elapsed: u64, when: u64) -> usize {
    let slot_mask = SLOTS_PER_LEVEL as u64 - 1;
    let masked = (elapsed ^ when) | slot_mask;
    if masked >= MAX_DURATION_TICKS {
        return LEVELS - 1;
    }
    (masked.ilog2() / BITS_PER_LEVEL) as usize
}

fn slot_for(when: u64, level: usize) -> usize {
    ((when >> (level as u32 * BITS_PER_LEVEL)) % SLOTS_PER_LEVEL as u64) as usize
}

/// Ticks one slot of `level` spans.
fn slot_range(level: usize) -> u64 {
    1 << (BITS_PER_LEVEL * level as u32)
}

/// Ticks all of `level` spans.
fn level_range(level: usize) -> u64 {
    1 << (BITS_PER_LEVEL * (level as u32 + 1))
}

/// The first occupied slot of a level at or after the one holding `now`, going round; the slot
/// holding `now` itself comes last, as it is a whole turn away for an upper level.
fn next_occupied_slot(occupied: u64, level: usize, now: u64) -> Option<usize> {
    if occupied == 0 {
        return None;
    }
    let now_slot = slot_for(now, level) as u32 + 1;
    let rotated = occupied.rotate_right(now_slot);
    let zeros = rotated.trailing_zeros();
    Some(((zeros + now_slot) % SLOTS_PER_LEVEL as u32) as usize)
}

fn next_expiration_of(occupied: u64, level: usize, now: u64) -> Option<Expiration> {
    let slot = next_occupied_slot(occupied, level, now)?;
    let level_start = now & !(level_range(level) - 1);
    let mut deadline = level_start + slot as u64 * slot_range(level);
    if deadline <= now {
        // Only the top level wraps: its slot is a whole turn ahead.
        deadline += level_range(level);
    }
    Some(Expiration {
        level,
        slot,
        deadline,
    })
}

impl<P> Wheel<P> {
    pub(crate) fn new() -> Self {
        Wheel {
            elapsed: 0,
            occupied: [0; LEVELS],
            lists: vec![EMPTY; PENDING as usize + 1],
            nodes: Vec::new(),
            len: 0,
        }
    }

    /// Starts the wheel at tick `elapsed`, as tokio's starts at its runtime's start.
    pub(crate) fn starting_at(elapsed: u64) -> Self {
        Wheel {
            elapsed,
            ..Self::new()
        }
    }

    pub(crate) fn elapsed(&self) -> u64 {
        self.elapsed
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Files the timer in `slot` (the design's slot number) for tick `when`. One due already
    /// waits on the pending list.
    pub(crate) fn insert(&mut self, slot: u32, when: u64, payload: P) {
        let index = slot as usize;
        while self.nodes.len() <= index {
            self.nodes.push(Node {
                when: 0,
                prev: NIL,
                next: NIL,
                list: NOWHERE,
                payload: None,
            });
        }
        debug_assert_eq!(self.nodes[index].list, NOWHERE, "a slot holds one timer");
        self.nodes[index].when = when;
        self.nodes[index].payload = Some(payload);
        self.len += 1;
        self.file(slot);
    }

    /// Puts node `slot` on the list its tick needs now.
    fn file(&mut self, slot: u32) {
        let when = self.nodes[slot as usize].when;
        let list = if when <= self.elapsed {
            PENDING
        } else {
            let level = level_for(self.elapsed, when);
            let wheel_slot = slot_for(when, level);
            self.occupied[level] |= 1 << wheel_slot;
            (level * SLOTS_PER_LEVEL + wheel_slot) as u16
        };
        self.push_back(list, slot);
    }

    fn push_back(&mut self, list: u16, slot: u32) {
        let tail = self.lists[list as usize].tail;
        let node = &mut self.nodes[slot as usize];
        node.list = list;
        node.prev = tail;
        node.next = NIL;
        match tail {
            NIL => self.lists[list as usize].head = slot,
            tail => self.nodes[tail as usize].next = slot,
        }
        self.lists[list as usize].tail = slot;
    }

    /// Takes node `slot` off its list.
    fn unlink(&mut self, slot: u32) {
        let Node {
            prev, next, list, ..
        } = self.nodes[slot as usize];
        match prev {
            NIL => self.lists[list as usize].head = next,
            prev => self.nodes[prev as usize].next = next,
        }
        match next {
            NIL => self.lists[list as usize].tail = prev,
            next => self.nodes[next as usize].prev = prev,
        }
        if list < PENDING && self.lists[list as usize].head == NIL {
            let level = list as usize / SLOTS_PER_LEVEL;
            self.occupied[level] &= !(1 << (list as usize % SLOTS_PER_LEVEL));
        }
        let node = &mut self.nodes[slot as usize];
        node.list = NOWHERE;
        node.prev = NIL;
        node.next = NIL;
    }

    /// Whether the timer in `slot` is in the wheel or pending.
    pub(crate) fn holds(&self, slot: u32) -> bool {
        self.nodes
            .get(slot as usize)
            .is_some_and(|node| node.list != NOWHERE)
    }

    /// Takes the timer in `slot` out, wherever it is.
    pub(crate) fn remove(&mut self, slot: u32) -> Option<P> {
        if !self.holds(slot) {
            return None;
        }
        self.unlink(slot);
        self.len -= 1;
        self.nodes[slot as usize].payload.take()
    }

    fn next_expiration(&self) -> Option<Expiration> {
        if self.lists[PENDING as usize].head != NIL {
            return Some(Expiration {
                level: 0,
                slot: 0,
                deadline: self.elapsed,
            });
        }
        (0..LEVELS).find_map(|level| next_expiration_of(self.occupied[level], level, self.elapsed))
    }

    /// The tick the wheel next needs polling at, if it holds anything.
    pub(crate) fn poll_at(&self) -> Option<u64> {
        self.next_expiration().map(|expiration| expiration.deadline)
    }

    /// The next timer due at tick `now` (its slot and payload), cascading upper slots as they
    /// come due; `None` once nothing more is due, the wheel then standing at `now`.
    ///
    /// # Panics
    /// If it cascades more slots than its timers can need on the way to `now`
    /// ([`Wheel::cascade_budget`]): the wheel is broken and would otherwise cascade for ever.
    pub(crate) fn poll(&mut self, now: u64) -> Option<(u32, P)> {
        if let Some(fired) = self.take_pending() {
            return Some(fired);
        }
        self.cascade_to(now, self.cascade_budget(now))
    }

    fn take_pending(&mut self) -> Option<(u32, P)> {
        let pending = self.lists[PENDING as usize].head;
        if pending == NIL {
            return None;
        }
        self.unlink(pending);
        self.len = self
            .len
            .checked_sub(1)
            .expect("the timing wheel gives no more timers than it holds");
        let payload = self.nodes[pending as usize].payload.take();
        Some((pending, payload.expect("a filed timer has its payload")))
    }

    /// The most cascades a poll from `elapsed` to `now` can need. Each cascade empties a slot
    /// that holds at least one timer, and moves each of them down a level or to the pending
    /// list, except a timer past the top level's reach, which goes back up to the top level
    /// each time its slot there comes round: once per turn of the top level, or part of one.
    /// So a timer is cascaded at most once per level below the top, plus once per such turn.
    fn cascade_budget(&self, now: u64) -> u64 {
        let top_turns = now.saturating_sub(self.elapsed) / level_range(LEVELS - 1) + 1;
        (self.len as u64).saturating_mul(LEVELS as u64 - 1 + top_turns)
    }

    /// Cascades due slots, at most `budget` of them, until a timer is due or nothing more is
    /// due at `now`.
    fn cascade_to(&mut self, now: u64, budget: u64) -> Option<(u32, P)> {
        let mut cascades_left = budget;
        while let Some(expiration) = self.next_expiration() {
            if expiration.deadline > now {
                break;
            }
            let Some(left) = cascades_left.checked_sub(1) else {
                panic!(
                    "the timing wheel makes no progress: a poll to tick {now} has run all \
                     {budget} cascades its {} timer(s) could need, and stands at tick {}",
                    self.len, self.elapsed
                );
            };
            cascades_left = left;
            self.process(expiration);
            self.elapsed = self.elapsed.max(expiration.deadline);
            if let Some(fired) = self.take_pending() {
                return Some(fired);
            }
        }
        self.elapsed = self.elapsed.max(now);
        None
    }

    /// Empties a due slot: timers whose tick has come go pending, the rest to the level their
    /// tick needs from the slot's deadline.
    fn process(&mut self, expiration: Expiration) {
        let list = (expiration.level * SLOTS_PER_LEVEL + expiration.slot) as u16;
        let mut taken = self.lists[list as usize].head;
        self.lists[list as usize] = EMPTY;
        self.occupied[expiration.level] &= !(1 << expiration.slot);
        while taken != NIL {
            let next = self.nodes[taken as usize].next;
            let when = self.nodes[taken as usize].when;
            if when <= expiration.deadline {
                self.push_back(PENDING, taken);
            } else {
                let level = level_for(expiration.deadline, when);
                let wheel_slot = slot_for(when, level);
                self.occupied[level] |= 1 << wheel_slot;
                self.push_back((level * SLOTS_PER_LEVEL + wheel_slot) as u16, taken);
            }
            taken = next;
        }
    }

    /// Every timer's slot, in no particular order: for stopping.
    pub(crate) fn drain_slots(&mut self) -> Vec<u32> {
        let held: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|&slot| self.holds(slot))
            .collect();
        for &slot in &held {
            self.remove(slot);
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn levels_follow_the_highest_differing_digit() {
        assert_eq!(level_for(0, 1), 0);
        assert_eq!(level_for(0, 63), 0);
        assert_eq!(level_for(0, 64), 1);
        assert_eq!(level_for(0, 64 * 64 - 1), 1);
        assert_eq!(level_for(0, 64 * 64), 2);
        assert_eq!(level_for(0, MAX_DURATION_TICKS - 1), 5);
        assert_eq!(
            level_for(0, MAX_DURATION_TICKS * 5),
            5,
            "clamped to the top"
        );
        // Near a boundary, a timer one tick away can be a level up.
        assert_eq!(level_for(63, 64), 1);
    }

    #[test]
    fn the_slot_holding_now_comes_last() {
        assert_eq!(next_occupied_slot(1 << 10, 0, 0), Some(10));
        assert_eq!(next_occupied_slot(1 << 10, 0, 11), Some(10));
        assert_eq!(next_occupied_slot((1 << 10) | (1 << 40), 0, 20), Some(40));
        assert_eq!(next_occupied_slot(0b11, 5, 0), Some(1));
        assert_eq!(next_occupied_slot(1 | (1 << 40), 5, 0), Some(40));
    }

    #[test]
    fn a_poll_leaves_the_wheel_at_now_and_never_moves_it_back() {
        let mut wheel: Wheel<u64> = Wheel::starting_at(10);
        assert_eq!(wheel.elapsed(), 10);
        wheel.insert(0, 500, 500);
        assert_eq!(wheel.poll(300), None);
        assert_eq!(wheel.elapsed(), 300);
        assert_eq!(wheel.poll(200), None);
        assert_eq!(wheel.elapsed(), 300, "a poll behind the wheel");
        assert_eq!(wheel.poll(500), Some((0, 500)));
        assert_eq!(wheel.poll(500), None);
        assert_eq!(wheel.elapsed(), 500);
    }

    #[test]
    fn a_timer_is_held_wherever_it_waits_until_it_fires_or_is_removed() {
        let mut wheel: Wheel<u64> = Wheel::starting_at(100);
        // Due already (pending), on level 0, in the top level's last slot, and past its reach.
        let top_last_slot = 63 << (BITS_PER_LEVEL * 5);
        let timers = [
            (0, 90),
            (1, 101),
            (2, top_last_slot),
            (3, 3 * MAX_DURATION_TICKS),
        ];
        for (slot, when) in timers {
            wheel.insert(slot, when, when);
        }
        assert_eq!(level_for(100, top_last_slot), LEVELS - 1);
        assert_eq!(slot_for(top_last_slot, LEVELS - 1), SLOTS_PER_LEVEL - 1);
        for (slot, when) in timers {
            assert!(wheel.holds(slot), "slot {slot}");
            assert_eq!(wheel.remove(slot), Some(when), "slot {slot}");
            assert!(!wheel.holds(slot), "slot {slot}");
            assert_eq!(wheel.remove(slot), None, "removed twice: slot {slot}");
        }
        assert_eq!(wheel.len(), 0);
        assert_eq!(wheel.poll_at(), None);
    }

    #[test]
    fn removing_a_timer_the_wheel_does_not_hold_gives_nothing() {
        let mut wheel: Wheel<u64> = Wheel::new();
        wheel.insert(2, 5, 5);
        // Slot 1 was made room for but never filed; slot 9 never made.
        assert_eq!(wheel.remove(1), None);
        assert_eq!(wheel.remove(9), None);
        assert_eq!(wheel.poll(5), Some((2, 5)));
        assert_eq!(wheel.remove(2), None, "fired already");
        assert_eq!(wheel.len(), 0);
    }

    #[test]
    fn draining_gives_every_held_slot_once_and_leaves_the_wheel_empty() {
        let mut wheel: Wheel<u64> = Wheel::new();
        for (slot, when) in [
            (0, 3),
            (1, 70),
            (2, 5_000),
            (3, 0),
            (4, MAX_DURATION_TICKS * 2),
        ] {
            wheel.insert(slot, when, when);
        }
        wheel.remove(1);
        assert_eq!(wheel.poll(3), Some((3, 0)));
        let mut drained = wheel.drain_slots();
        drained.sort_unstable();
        assert_eq!(drained, [0, 2, 4]);
        assert_eq!(wheel.len(), 0);
        assert_eq!(wheel.poll_at(), None);
        assert_eq!(wheel.poll(u64::MAX / 2), None);
        assert!(wheel.drain_slots().is_empty());
    }

    #[test]
    fn a_wheel_debugs_as_the_tick_it_stands_at_and_how_many_timers_it_holds() {
        let mut wheel: Wheel<u64> = Wheel::starting_at(7);
        wheel.insert(0, 9, 9);
        wheel.insert(1, 90, 90);
        assert_eq!(format!("{wheel:?}"), "Wheel { elapsed: 7, len: 2, .. }");
    }

    /// One timer two turns past the top level's reach, with a digit set on every level: a poll
    /// up to its tick cascades its top slot once per turn, three times, then once on each level
    /// below, five times. Returns the wheel and that tick.
    fn a_timer_needing_every_cascade() -> (Wheel<u64>, u64) {
        let below_top: u64 = (0..LEVELS as u32)
            .map(|level| 1 << (BITS_PER_LEVEL * level))
            .sum();
        let when = 2 * MAX_DURATION_TICKS + below_top;
        let mut wheel = Wheel::new();
        wheel.insert(0, when, when);
        (wheel, when)
    }

    #[test]
    fn a_poll_may_run_every_cascade_its_budget_allows() {
        let (mut wheel, when) = a_timer_needing_every_cascade();
        let budget = wheel.cascade_budget(when);
        assert_eq!(budget, 3 + 5);
        assert_eq!(wheel.cascade_to(when, budget), Some((0, when)));
    }

    #[test]
    #[should_panic(expected = "the timing wheel makes no progress: a poll to tick")]
    fn a_poll_that_needs_more_cascades_than_its_budget_panics() {
        let (mut wheel, when) = a_timer_needing_every_cascade();
        let budget = wheel.cascade_budget(when);
        wheel.cascade_to(when, budget - 1);
    }

    #[test]
    #[should_panic(expected = "the timing wheel makes no progress: a poll to tick 1000")]
    fn a_wheel_that_counts_none_of_its_timers_panics_instead_of_cascading() {
        let mut wheel: Wheel<u64> = Wheel::new();
        wheel.insert(0, 1_000, 1_000);
        // A wheel that lost count of its timers can spend no cascade on them.
        wheel.len = 0;
        wheel.poll(1_000);
    }

    #[test]
    #[should_panic(expected = "the timing wheel gives no more timers than it holds")]
    fn a_wheel_that_gives_more_timers_than_it_holds_panics() {
        let mut wheel: Wheel<u64> = Wheel::new();
        wheel.insert(0, 0, 0);
        wheel.insert(1, 0, 0);
        wheel.len = 1;
        while wheel.poll(0).is_some() {}
    }

    /// Runs random inserts, removals and polls, jumping time by up to `max_jump` ticks at once,
    /// against a plain map of what is due: every timer fires at the first poll at or after its
    /// tick, never before, never twice, and none is lost.
    fn against_a_map(seed: u64, start: u64, steps: usize, max_jump: u64, max_ahead: u64) {
        let mut rng = seed | 1;
        let mut next = move |bound: u64| {
            // xorshift64*: small, deterministic, good enough to scatter ticks.
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            rng.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound.max(1)
        };
        let mut wheel: Wheel<u64> = Wheel::starting_at(start);
        let mut expected: BTreeMap<u32, u64> = BTreeMap::new();
        let mut free: Vec<u32> = Vec::new();
        let mut minted = 0u32;
        let mut now = start;
        for _ in 0..steps {
            match next(10) {
                0..=5 => {
                    let slot = free.pop().unwrap_or_else(|| {
                        minted += 1;
                        minted - 1
                    });
                    // Near, far, and past the top level's reach.
                    let ahead = match next(4) {
                        0 => next(64),
                        1 => next(64 * 64 * 64),
                        2 => next(max_ahead),
                        _ => MAX_DURATION_TICKS + next(MAX_DURATION_TICKS),
                    };
                    let when = now + ahead;
                    wheel.insert(slot, when, when);
                    expected.insert(slot, when);
                }
                6 => {
                    if let Some((&slot, _)) = expected
                        .iter()
                        .nth(next(expected.len() as u64 + 1) as usize)
                    {
                        assert_eq!(wheel.remove(slot), expected.remove(&slot));
                        free.push(slot);
                    }
                }
                _ => {
                    now += next(max_jump);
                    let mut fired = Vec::new();
                    while let Some((slot, when)) = wheel.poll(now) {
                        assert!(when <= now, "a timer for tick {when} fired at {now}");
                        assert_eq!(expected.remove(&slot), Some(when), "fired twice or unknown");
                        fired.push(slot);
                    }
                    free.extend(fired);
                    let overdue: Vec<_> =
                        expected.iter().filter(|(_, when)| **when <= now).collect();
                    assert!(
                        overdue.is_empty(),
                        "due at {now} and not fired: {overdue:?}"
                    );
                    if let Some(at) = wheel.poll_at() {
                        let earliest = expected.values().min().copied();
                        assert!(
                            earliest.is_some_and(|earliest| at <= earliest),
                            "polls at {at} after a timer at {earliest:?}"
                        );
                    }
                }
            }
            assert_eq!(wheel.len(), expected.len());
        }
    }

    #[test]
    fn timers_fire_once_and_on_time_through_every_level() {
        for seed in 1..20 {
            against_a_map(seed, 0, 4_000, 5_000, 1 << 30);
        }
    }

    #[test]
    fn timers_fire_once_and_on_time_polled_at_nearly_every_tick() {
        // Small steps land on every slot boundary, where a cascade that fired a tick early would
        // show.
        for seed in 1..20 {
            against_a_map(seed, 0, 20_000, 3, 1 << 14);
        }
    }

    #[test]
    fn timers_fire_once_and_on_time_over_years_of_big_jumps() {
        // Jumps of up to a month of ticks run the wheel past two years and around its top
        // level, where its slots wrap.
        for seed in 1..10 {
            against_a_map(seed, 0, 6_000, 31 * 24 * 3_600_000, MAX_DURATION_TICKS);
        }
    }

    #[test]
    fn timers_fire_once_and_on_time_when_the_wheel_starts_near_its_wrap() {
        for seed in 1..10 {
            against_a_map(seed, MAX_DURATION_TICKS - 1_000, 4_000, 100_000, 1 << 34);
            against_a_map(seed, 12 * 24 * 3_600_000 - 10, 4_000, 50_000, 1 << 34);
        }
    }
}
