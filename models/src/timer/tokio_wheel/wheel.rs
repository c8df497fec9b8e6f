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
mod tests;
