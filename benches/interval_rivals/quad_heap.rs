//! A four-ary min-heap of `u128` keys, as ticklab's event queue used before its radix queue: the
//! bare-heap floor.
//!
//! Four children per node halve the depth of a binary heap. Replacing the least key walks the
//! hole down to a leaf choosing the smallest child, then sifts the new key up, which for timer
//! workloads (the new key is usually late) costs almost nothing.

#[derive(Clone, Debug, Default)]
pub struct QuadHeap {
    keys: Vec<u128>,
}

const ARITY: usize = 4;

impl QuadHeap {
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        self.keys.first().copied()
    }

    /// Replaces the least key with `key`: a pop and a push in one pass.
    #[inline]
    pub fn replace_top(&mut self, key: u128) {
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
        self.sift_up(hole, key);
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

    /// Builds the heap from `keys` in linear time.
    pub fn from_keys(keys: Vec<u128>) -> Self {
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
