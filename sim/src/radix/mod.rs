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
//! Filing a key is a handful of bit operations and an append to its bucket's keys. When the sorted front runs
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
//! the key's value, and is reused once the key is taken out, so the queue allocates nothing per
//! key once its buckets have grown.

mod digits;
mod front;
#[cfg(test)]
mod tests;

pub use digits::SLOT_BITS;
use digits::{BUCKETS, SLOT_MASK, WORDS, bucket_floor, bucket_of, slot_of};
use front::{FRONT_MAX, Front};

const NIL: u32 = u32::MAX;
/// Most keys of one bucket that are sorted into the front rather than spread over lower buckets.
/// Spreading moves every key once more, while a sort works on the front alone: at thousands of
/// hosts a millisecond's bucket holds some 70 keys, and sorting them is cheaper than spreading
/// them over the buckets below.
const SORTED_MAX: usize = 128;
/// Buckets up to this many keys are sorted by insertion, which suits lists that come almost in
/// order; larger ones by a general sort.
const INSERTION_SORT_MAX: usize = 16;
const _: () = assert!(SORTED_MAX <= FRONT_MAX);
/// A bucket keeps its storage when it is emptied if it is no larger than this: most buckets
/// take a handful of keys again and again, and a large one should not hold its memory for good.
const KEPT_CAPACITY: usize = 16;

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
    /// Each bucket's keys, in the order they came, so that keys due at the same time stay in
    /// sequence order. The keys sit side by side rather than in a list linked through the
    /// nodes: spreading or sorting a bucket then reads its keys in a row, where a list sent
    /// every step to another cache line once the queue outgrew the cache.
    buckets: Box<[Vec<u128>]>,
    /// Each slot's value: a key names its slot in its low bits.
    values: Vec<V>,
    /// Slots free for new keys, the most recently freed last, whose value is likeliest still in
    /// the cache.
    vacant: Vec<u32>,
    /// Storage of large buckets once emptied, for the next bucket that grows large: growing one
    /// afresh copies its keys at every doubling, to memory the cache has not seen.
    spare: Vec<Vec<u128>>,
}

/// Most emptied large buckets kept for reuse: a queue has only a few large buckets at a time.
const SPARE_MAX: usize = 4;

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
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            values: Vec::new(),
            vacant: Vec::new(),
            spare: Vec::new(),
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
        let slot = match self.vacant.pop() {
            Some(slot) => {
                self.values[slot as usize] = value;
                slot as usize
            }
            None => self.grow(value),
        };
        let key = key | slot as u128;
        self.len += 1;
        // Orders after `last`, slots aside: `key` without its slot is above `last` with its.
        if key & !u128::from(SLOT_MASK) > self.last {
            self.file(key);
        } else {
            self.join_front(slot, key);
        }
        key
    }

    /// A new slot, when none is vacant.
    #[cold]
    fn grow(&mut self, value: V) -> usize {
        assert!(
            self.values.len() < 1 << SLOT_BITS,
            "more than {} keys queued at once",
            1 << SLOT_BITS
        );
        self.values.push(value);
        self.values.len() - 1
    }

    /// Makes `slot` vacant: its key was taken out by [`Self::drain`] and not put back.
    pub fn release(&mut self, slot: u32) {
        self.vacant.push(slot);
    }

    #[inline]
    fn file(&mut self, key: u128) {
        let bucket = bucket_of(key, self.last);
        let keys = &mut self.buckets[bucket];
        if keys.len() == keys.capacity() && keys.len() >= KEPT_CAPACITY {
            self.grow_bucket(bucket);
        }
        self.buckets[bucket].push(key);
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
            self.refile_all(key);
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
        let value = self.values[slot as usize];
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
            self.occupied[word] = bits & (bits - 1);
            if self.occupied[word] == 0 {
                self.summary &= !(1 << word);
            }
            let keys = std::mem::take(&mut self.buckets[bucket]);
            let spread = keys.len() > SORTED_MAX;
            if spread {
                self.spread(bucket, &keys);
            } else {
                self.sort_into_front(&keys);
            }
            self.give_back(bucket, keys);
            if !spread {
                self.last = self.front.keys[(self.front.len - 1) % FRONT_MAX];
                return;
            }
        }
    }

    /// Returns an emptied bucket's storage to it if it is small enough to keep, or else keeps
    /// it as a spare.
    #[inline]
    fn give_back(&mut self, bucket: usize, mut keys: Vec<u128>) {
        keys.clear();
        if keys.capacity() <= KEPT_CAPACITY {
            if self.buckets[bucket].capacity() == 0 {
                self.buckets[bucket] = keys;
            }
        } else if self.spare.len() < SPARE_MAX {
            self.spare.push(keys);
        } else if let Some(smallest) = self.spare.iter_mut().min_by_key(|spare| spare.capacity())
            && smallest.capacity() < keys.capacity()
        {
            *smallest = keys;
        }
    }

    /// A full bucket past [`KEPT_CAPACITY`] moves to the largest spare that holds more, if any.
    #[cold]
    fn grow_bucket(&mut self, bucket: usize) {
        let keys = &mut self.buckets[bucket];
        let Some(index) = (0..self.spare.len())
            .filter(|&index| self.spare[index].capacity() > keys.len())
            .max_by_key(|&index| self.spare[index].capacity())
        else {
            return;
        };
        let mut larger = self.spare.swap_remove(index);
        larger.extend_from_slice(keys);
        let mut smaller = std::mem::replace(keys, larger);
        smaller.clear();
        if smaller.capacity() > KEPT_CAPACITY {
            self.spare.push(smaller);
        }
    }

    /// Sorts `keys` into the empty front. Keys due at the same time arrive in sequence order,
    /// so the insertion sort of a short bucket seldom moves one.
    #[inline]
    fn sort_into_front(&mut self, keys: &[u128]) {
        let front = &mut *self.front;
        let len = keys.len();
        front.next = 0;
        front.keys[..len].copy_from_slice(keys);
        if len > INSERTION_SORT_MAX {
            // Keys are unique (their slot is in their low bits), so an unstable sort is exact.
            front.keys[..len].sort_unstable();
        } else {
            for index in 1..len {
                let key = front.keys[index];
                let mut hole = index;
                while hole > 0 && front.keys[hole - 1] > key {
                    front.keys[hole] = front.keys[hole - 1];
                    hole -= 1;
                }
                front.keys[hole] = key;
            }
        }
        for index in 0..len {
            front.slots[index] = slot_of(front.keys[index]) as u32;
        }
        front.len = len;
    }

    /// Files the keys of `bucket` (the lowest) afresh, below it, in the order they came. `last`
    /// becomes the least key the bucket could hold, so its keys file below it, while keys in
    /// higher buckets stay where they are: they differ from the new `last` at the same digit as
    /// from the old.
    #[inline(never)]
    fn spread(&mut self, bucket: usize, keys: &[u128]) {
        self.last = bucket_floor(bucket, self.last);
        self.front.clear();
        for &key in keys {
            self.file(key);
        }
    }

    /// Files every queued key afresh around the least of them, `key` included.
    #[cold]
    fn refile_all(&mut self, key: u128) {
        let mut keys = self.take_keys();
        keys.push(key);
        self.len = keys.len();
        self.file_around_least(keys);
    }

    /// Puts the least of `keys` in the front and files the others after it.
    fn file_around_least(&mut self, keys: Vec<u128>) {
        self.front.clear();
        let Some(&least) = keys.iter().min() else {
            self.last = 0;
            return;
        };
        self.last = least;
        self.front.insert(least, slot_of(least) as u32);
        for key in keys {
            if key != least {
                self.file(key);
            }
        }
    }

    /// Empties the queue, returning the keys that were in it.
    fn take_keys(&mut self) -> Vec<u128> {
        let mut keys = Vec::with_capacity(self.len);
        keys.extend_from_slice(&self.front.keys[self.front.next..self.front.len]);
        self.front.clear();
        while self.summary != 0 {
            let word = self.summary.trailing_zeros() as usize;
            while self.occupied[word] != 0 {
                let bucket = word * 64 + self.occupied[word].trailing_zeros() as usize;
                self.occupied[word] &= self.occupied[word] - 1;
                keys.append(&mut self.buckets[bucket]);
            }
            self.summary &= !(1 << word);
        }
        self.len = 0;
        keys
    }

    /// Empties the queue, returning every key and value in it, in no particular order. Their
    /// slots stay taken, for [`Self::refill`] or [`Self::release`].
    pub fn drain(&mut self) -> Vec<(u128, V)> {
        self.take_keys()
            .into_iter()
            .map(|key| (key, self.values[slot_of(key)]))
            .collect()
    }

    /// Queues `entries`, in any order, into an empty queue. Their slots must be taken: from
    /// [`Self::drain`], or never used by [`Self::insert`].
    pub fn refill(&mut self, entries: Vec<(u128, V)>) {
        debug_assert_eq!(self.len, 0, "refill into a queue that holds keys");
        let keys = entries
            .into_iter()
            .map(|(key, value)| {
                let slot = slot_of(key);
                if slot >= self.values.len() {
                    self.values.resize(slot + 1, value);
                }
                self.values[slot] = value;
                key
            })
            .collect::<Vec<_>>();
        self.len = keys.len();
        self.file_around_least(keys);
    }
}
