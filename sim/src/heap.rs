//! A four-ary min-heap of `u128` keys: the event queue's ordering structure.
//!
//! The simulator pops the earliest wake and pushes a later one for nearly every event, so the
//! heap's pop is the hottest code in ticklab. Four children per node halve the depth of a binary
//! heap and keep siblings in one cache line; popping walks the hole down to a leaf choosing the
//! smallest child, then sifts the displaced last key up, which for timer workloads (the last key
//! is usually late) costs almost nothing.

#[derive(Clone, Debug, Default)]
pub(crate) struct QuadHeap {
    keys: Vec<u128>,
}

const ARITY: usize = 4;

impl QuadHeap {
    pub(crate) fn new() -> Self {
        QuadHeap { keys: Vec::new() }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<u128> {
        self.keys.first().copied()
    }

    #[inline]
    pub(crate) fn push(&mut self, key: u128) {
        self.keys.push(key);
        self.sift_up(self.keys.len() - 1, key);
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<u128> {
        let last = self.keys.pop()?;
        let Some(&top) = self.keys.first() else {
            return Some(last);
        };
        let len = self.keys.len();
        let mut hole = 0;
        // Full families first: four children, no bounds to juggle.
        while hole * ARITY + ARITY < len {
            let first_child = hole * ARITY + 1;
            let family: &[u128; ARITY] = self.keys[first_child..first_child + ARITY]
                .try_into()
                .expect("four");
            let (low_a, a) = if family[1] < family[0] {
                (family[1], 1)
            } else {
                (family[0], 0)
            };
            let (low_b, b) = if family[3] < family[2] {
                (family[3], 3)
            } else {
                (family[2], 2)
            };
            let (smallest_key, offset) = if low_b < low_a {
                (low_b, b)
            } else {
                (low_a, a)
            };
            self.keys[hole] = smallest_key;
            hole = first_child + offset;
        }
        let first_child = hole * ARITY + 1;
        if first_child < len {
            let family = &self.keys[first_child..len];
            let (offset, &smallest_key) = family
                .iter()
                .enumerate()
                .min_by_key(|&(_, key)| *key)
                .expect("a child");
            self.keys[hole] = smallest_key;
            hole = first_child + offset;
        }
        self.sift_up(hole, last);
        Some(top)
    }

    #[inline]
    fn sift_up(&mut self, mut hole: usize, key: u128) {
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if self.keys[parent] <= key {
                break;
            }
            self.keys[hole] = self.keys[parent];
            hole = parent;
        }
        self.keys[hole] = key;
    }

    /// Takes every key out, in no particular order.
    pub(crate) fn take_keys(&mut self) -> Vec<u128> {
        std::mem::take(&mut self.keys)
    }

    /// Builds the heap from `keys` in linear time.
    pub(crate) fn from_keys(keys: Vec<u128>) -> Self {
        let mut heap = QuadHeap { keys };
        for index in (0..heap.keys.len()).rev() {
            heap.sift_down(index);
        }
        heap
    }

    fn sift_down(&mut self, mut hole: usize) {
        let key = self.keys[hole];
        let len = self.keys.len();
        loop {
            let first_child = hole * ARITY + 1;
            if first_child >= len {
                break;
            }
            let children_end = (first_child + ARITY).min(len);
            let smallest = (first_child..children_end)
                .min_by_key(|&child| self.keys[child])
                .expect("a child");
            if self.keys[smallest] >= key {
                break;
            }
            self.keys[hole] = self.keys[smallest];
            hole = smallest;
        }
        self.keys[hole] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn pops_every_key_in_order_through_interleaved_pushes() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut heap = QuadHeap::new();
        let mut reference = std::collections::BinaryHeap::new();
        for round in 0..20_000u32 {
            if round % 3 != 2 {
                let key: u128 = rng.random_range(0..1_000);
                heap.push(key);
                reference.push(std::cmp::Reverse(key));
            } else {
                assert_eq!(heap.pop(), reference.pop().map(|r| r.0));
            }
        }
        let rebuilt = QuadHeap::from_keys(heap.take_keys());
        let mut heap = rebuilt;
        while let Some(std::cmp::Reverse(expected)) = reference.pop() {
            assert_eq!(heap.pop(), Some(expected));
        }
        assert_eq!(heap.pop(), None);
    }
}
