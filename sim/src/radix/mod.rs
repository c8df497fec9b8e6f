//! A radix queue: the event queue's ordering structure, a min-priority queue of `u128` keys that
//! are filed by their bits instead of compared along a heap's paths.
//!
//! The event queue's keys grow: time only moves forward, and every wake filed later gets a later
//! sequence number. So each key can be filed relative to `last`, a key no greater than any still
//! in a bucket: bucket `(level, digit)` holds the keys whose highest 8-bit digit that differs
//! from `last` is at `level`, with value `digit` ([`digits`]). Buckets in increasing order hold
//! increasing keys, so the least keys sit in the lowest non-empty bucket, which two bitmaps find
//! with two trailing-zero counts.
//!
//! Filing a key is a handful of bit operations and a list append. When the sorted front runs
//! out, the lowest bucket becomes the front: up to [`SORTED_MAX`] keys (often one, or a handful
//! due at the same nanosecond) are sorted in place; more, and they are spread over the buckets
//! below it first. Keys only ever move down, and for wakes on a millisecond grid at most once. A
//! key that comes in at or before `last` (a wake that sorts among the front, or one a fault
//! re-timed into the past) joins the front in order.
//!
//! A four-ary heap of the same keys, which this replaced, walks a chain of dependent comparisons
//! from the root to a leaf on every pop; BENCHMARKS.md compares the two.
//!
//! Each key carries a slot number in its low [`SLOT_BITS`] bits, which the queue picks: it indexes
//! the node that holds the key and its value, and is reused once the key is taken out, so the
//! queue allocates nothing per key.

mod digits;
mod front;
#[cfg(test)]
mod tests;

pub use digits::SLOT_BITS;
use digits::{BUCKETS, SLOT_MASK, WORDS, bucket_floor, bucket_of, slot_of};
use front::{FRONT_MAX, Front};

const NIL: u32 = u32::MAX;
/// Most keys of one bucket that are sorted into the front rather than spread over lower buckets.
const SORTED_MAX: usize = 16;
const _: () = assert!(SORTED_MAX <= FRONT_MAX);

#[derive(Clone, Copy, Debug)]
struct Node<V> {
    key: u128,
    value: V,
}

/// Keys with a value each, taken out least first; see the module docs.
#[derive(Clone, Debug)]
pub struct RadixQueue<V> {
    /// The greatest key taken out of the buckets, or the least the bucket being spread could
    /// hold: every key still in a bucket is above it.
    last: u128,
    len: usize,
    front: Box<Front>,
    /// Bit `w` is set while `occupied[w]` is not zero.
    summary: u64,
    /// Bit `b % 64` of word `b / 64` is set while bucket `b` holds keys.
    occupied: [u64; WORDS],
    nodes: Vec<Node<V>>,
    /// Singly linked lists: `links[bucket]` is the first slot in a bucket, and
    /// `links[BUCKETS + slot]` the slot after `slot`, in its bucket or in the vacant list. Kept
    /// apart from the nodes, which they would pad out.
    links: Vec<u32>,
    /// Per bucket, the index in `links` to write the next slot to arrive: buckets keep their keys
    /// in the order they came, so keys due at the same time stay in sequence order.
    tails: Box<[u32; BUCKETS]>,
    /// The first vacant slot.
    vacant: u32,
}

impl<V: Copy> Default for RadixQueue<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Copy> RadixQueue<V> {
    pub fn new() -> Self {
        RadixQueue {
            last: 0,
            len: 0,
            front: Box::new(Front {
                keys: [0; FRONT_MAX],
                slots: [NIL; FRONT_MAX],
                next: 0,
                len: 0,
            }),
            summary: 0,
            occupied: [0; WORDS],
            nodes: Vec::new(),
            links: vec![NIL; BUCKETS],
            tails: Box::new(std::array::from_fn(|bucket| bucket as u32)),
            vacant: NIL,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Queues `value` under `key`, whose slot bits must be zero: the queue puts a vacant slot
    /// there, and returns the key as queued.
    #[inline(always)]
    pub fn insert(&mut self, key: u128, value: V) -> u128 {
        debug_assert_eq!(slot_of(key), 0, "the queue picks the slot");
        let slot = match self.vacant {
            NIL => self.grow(value),
            slot => {
                self.vacant = self.links[BUCKETS + slot as usize];
                slot as usize
            }
        };
        let key = key | slot as u128;
        let node = &mut self.nodes[slot];
        node.key = key;
        node.value = value;
        self.len += 1;
        // Orders after `last`, slots aside: `key` without its slot is above `last` with its.
        if key & !u128::from(SLOT_MASK) > self.last {
            self.file(slot, key);
        } else {
            self.join_front(slot, key);
        }
        key
    }

    /// A new slot, when none is vacant.
    #[cold]
    fn grow(&mut self, value: V) -> usize {
        assert!(
            self.nodes.len() < 1 << SLOT_BITS,
            "more than {} keys queued at once",
            1 << SLOT_BITS
        );
        self.nodes.push(Node { key: 0, value });
        self.links.push(NIL);
        debug_assert_eq!(self.links.len(), BUCKETS + self.nodes.len());
        self.nodes.len() - 1
    }

    /// Makes `slot` vacant: its key was taken out by [`Self::drain`] and not put back.
    pub fn release(&mut self, slot: u32) {
        self.links[BUCKETS + slot as usize] = self.vacant;
        self.vacant = slot;
    }

    #[inline]
    fn file(&mut self, slot: usize, key: u128) {
        let bucket = bucket_of(key, self.last);
        let tail = std::mem::replace(&mut self.tails[bucket], (BUCKETS + slot) as u32);
        self.links[tail as usize] = slot as u32;
        self.links[BUCKETS + slot] = NIL;
        self.occupied[bucket / 64] |= 1 << (bucket % 64);
        self.summary |= 1 << (bucket / 64);
    }

    /// A key at or before `last` joins the front, in order.
    #[inline(never)]
    fn join_front(&mut self, slot: usize, key: u128) {
        let front = &mut *self.front;
        front.keys.copy_within(front.next..front.len, 0);
        front.slots.copy_within(front.next..front.len, 0);
        front.len -= front.next;
        front.next = 0;
        if front.len == FRONT_MAX {
            self.refile_all(slot);
        } else {
            front.insert(key, slot as u32);
        }
    }

    /// The least key.
    #[inline(always)]
    pub fn peek(&mut self) -> Option<u128> {
        if self.front.next == self.front.len {
            if self.len == 0 {
                return None;
            }
            self.take_lowest_bucket();
        }
        Some(self.front.keys[self.front.next % FRONT_MAX])
    }

    /// Takes out the least key and its value; the key's slot becomes vacant.
    #[inline]
    pub fn pop(&mut self) -> Option<(u128, V)> {
        let key = self.peek()?;
        let slot = self.front.slots[self.front.next % FRONT_MAX];
        self.front.next += 1;
        self.len -= 1;
        let value = self.nodes[slot as usize].value;
        self.release(slot);
        Some((key, value))
    }

    /// Makes the lowest bucket the front. A bucket of more keys than the front sorts is spread
    /// over lower buckets first, and the lowest of those taken instead.
    #[inline(never)]
    fn take_lowest_bucket(&mut self) {
        loop {
            let word = self.summary.trailing_zeros() as usize % WORDS;
            let bits = self.occupied[word];
            let bucket = (word * 64 + bits.trailing_zeros() as usize) % BUCKETS;
            let head = self.take_list(bucket);
            self.occupied[word] = bits & (bits - 1);
            if self.occupied[word] == 0 {
                self.summary &= !(1 << word);
            }
            if let Some(rest) = self.sort_into_front(head) {
                self.spread(bucket, rest);
                continue;
            }
            self.last = self.front.keys[(self.front.len - 1) % FRONT_MAX];
            return;
        }
    }

    /// Empties `bucket`'s list, returning its first slot.
    #[inline]
    fn take_list(&mut self, bucket: usize) -> u32 {
        self.tails[bucket] = bucket as u32;
        std::mem::replace(&mut self.links[bucket], NIL)
    }

    /// Sorts the list from `head` into the empty front; if it holds more than [`SORTED_MAX`]
    /// keys, stops and returns the slot where it stopped, with the keys before it in the front
    /// unsorted. Keys due at the same time arrive in sequence order, so the sort seldom moves
    /// one.
    #[inline]
    fn sort_into_front(&mut self, head: u32) -> Option<u32> {
        let front = &mut *self.front;
        front.next = 0;
        let mut slot = head;
        let mut len = 0;
        while slot != NIL {
            if len == SORTED_MAX {
                front.len = len;
                return Some(slot);
            }
            front.keys[len] = self.nodes[slot as usize].key;
            front.slots[len] = slot;
            len += 1;
            slot = self.links[BUCKETS + slot as usize];
        }
        for index in 1..len {
            let (key, slot) = (front.keys[index], front.slots[index]);
            let mut hole = index;
            while hole > 0 && front.keys[hole - 1] > key {
                front.keys[hole] = front.keys[hole - 1];
                front.slots[hole] = front.slots[hole - 1];
                hole -= 1;
            }
            front.keys[hole] = key;
            front.slots[hole] = slot;
        }
        front.len = len;
        None
    }

    /// Files the keys of `bucket` (the lowest) afresh, below it, in the order they came: those
    /// already put in the front, then the list from `rest` on. `last` becomes the least key the
    /// bucket could hold, so its keys file below it, while keys in higher buckets stay where they
    /// are: they differ from the new `last` at the same digit as from the old.
    #[inline(never)]
    fn spread(&mut self, bucket: usize, rest: u32) {
        self.last = bucket_floor(bucket, self.last);
        for index in 0..self.front.len {
            self.file(self.front.slots[index] as usize, self.front.keys[index]);
        }
        self.front.clear();
        let mut slot = rest;
        while slot != NIL {
            let next = self.links[BUCKETS + slot as usize];
            self.file(slot as usize, self.nodes[slot as usize].key);
            slot = next;
        }
    }

    /// Files every queued key afresh around the least of them, the key in `slot` included.
    #[cold]
    fn refile_all(&mut self, slot: usize) {
        let mut slots = self.take_slots();
        slots.push(slot as u32);
        self.len = slots.len();
        self.file_around_least(slots);
    }

    /// Puts the least of `slots` in the front and files the others after it.
    fn file_around_least(&mut self, slots: Vec<u32>) {
        self.front.clear();
        let Some(&least) = slots
            .iter()
            .min_by_key(|&&slot| self.nodes[slot as usize].key)
        else {
            self.last = 0;
            return;
        };
        self.last = self.nodes[least as usize].key;
        self.front.insert(self.last, least);
        for slot in slots {
            if slot != least {
                self.file(slot as usize, self.nodes[slot as usize].key);
            }
        }
    }

    /// Empties the queue, returning the slots that were in it.
    fn take_slots(&mut self) -> Vec<u32> {
        let mut slots = Vec::with_capacity(self.len);
        slots.extend_from_slice(&self.front.slots[self.front.next..self.front.len]);
        self.front.clear();
        while self.summary != 0 {
            let word = self.summary.trailing_zeros() as usize;
            while self.occupied[word] != 0 {
                let bucket = word * 64 + self.occupied[word].trailing_zeros() as usize;
                self.occupied[word] &= self.occupied[word] - 1;
                let mut slot = self.take_list(bucket);
                while slot != NIL {
                    slots.push(slot);
                    slot = self.links[BUCKETS + slot as usize];
                }
            }
            self.summary &= !(1 << word);
        }
        self.len = 0;
        slots
    }

    /// Empties the queue, returning every key and value in it, in no particular order. Their
    /// slots stay taken, for [`Self::refill`] or [`Self::release`].
    pub fn drain(&mut self) -> Vec<(u128, V)> {
        self.take_slots()
            .into_iter()
            .map(|slot| {
                let node = &self.nodes[slot as usize];
                (node.key, node.value)
            })
            .collect()
    }

    /// Queues `entries`, in any order, into an empty queue. Their slots must be taken: from
    /// [`Self::drain`], or never used by [`Self::insert`].
    pub fn refill(&mut self, entries: Vec<(u128, V)>) {
        debug_assert_eq!(self.len, 0, "refill into a queue that holds keys");
        let slots = entries
            .into_iter()
            .map(|(key, value)| {
                let slot = slot_of(key);
                if slot >= self.nodes.len() {
                    self.nodes.resize(slot + 1, Node { key: 0, value });
                    self.links.resize(BUCKETS + slot + 1, NIL);
                }
                self.nodes[slot].key = key;
                self.nodes[slot].value = value;
                slot as u32
            })
            .collect::<Vec<_>>();
        self.len = slots.len();
        self.file_around_least(slots);
    }
}
