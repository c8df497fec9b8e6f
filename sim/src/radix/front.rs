//! The front: the least queued keys, sorted, taken out of their buckets.

/// Most keys the front holds; past that, keys joining it make everything be filed afresh.
pub(super) const FRONT_MAX: usize = 256;

/// The least queued keys, sorted, with their slots: `keys[next..len]` are still queued.
#[derive(Clone, Debug)]
pub(super) struct Front {
    pub(super) keys: [u128; FRONT_MAX],
    pub(super) slots: [u32; FRONT_MAX],
    pub(super) next: usize,
    pub(super) len: usize,
}

impl Front {
    #[inline]
    pub(super) fn clear(&mut self) {
        self.next = 0;
        self.len = 0;
    }

    /// Inserts in order, from the back: bucket lists often come in order already.
    #[inline]
    pub(super) fn insert(&mut self, key: u128, slot: u32) {
        debug_assert!(self.len < FRONT_MAX);
        let mut hole = self.len % FRONT_MAX;
        while hole > self.next && self.keys[(hole - 1) % FRONT_MAX] > key {
            self.keys[hole] = self.keys[hole - 1];
            self.slots[hole] = self.slots[hole - 1];
            hole -= 1;
        }
        self.keys[hole] = key;
        self.slots[hole] = slot;
        self.len += 1;
    }
}
