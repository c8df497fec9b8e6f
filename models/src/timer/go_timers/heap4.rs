//! The 4-ary min-heap each of Go's Ps keeps its timers in (`runtime/time.go`: `siftUp`,
//! `siftDown`, four children per node): shallower than a binary heap, so a push or a pop touches
//! fewer cache lines.

/// One timer in a P's heap: its deadline, its id (slot and version) and its payload.
#[derive(Debug)]
pub(super) struct Entry<P> {
    pub(super) when_ns: i64,
    /// The timer's P-local slot.
    pub(super) slot: u32,
    pub(super) version: u32,
    pub(super) payload: P,
}

/// Earliest deadline first; equal deadlines in slot order, so runs are deterministic.
fn before<P>(a: &Entry<P>, b: &Entry<P>) -> bool {
    (a.when_ns, a.slot) < (b.when_ns, b.slot)
}

#[derive(Debug)]
pub(super) struct Heap4<P> {
    entries: Vec<Entry<P>>,
}

impl<P> Default for Heap4<P> {
    fn default() -> Self {
        Heap4 {
            entries: Vec::new(),
        }
    }
}

impl<P> Heap4<P> {
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(super) fn peek(&self) -> Option<&Entry<P>> {
        self.entries.first()
    }

    pub(super) fn push(&mut self, entry: Entry<P>) {
        self.entries.push(entry);
        self.sift_up(self.entries.len() - 1);
    }

    pub(super) fn pop(&mut self) -> Option<Entry<P>> {
        if self.entries.is_empty() {
            return None;
        }
        let top = self.entries.swap_remove(0);
        if !self.entries.is_empty() {
            self.sift_down(0);
        }
        Some(top)
    }

    /// Keeps the entries `keep` accepts and hands the others to `removed`, then restores the heap
    /// order in one pass (Go's `ts.adjust(now, force=true)` rebuilds the same way).
    pub(super) fn retain(
        &mut self,
        mut keep: impl FnMut(&Entry<P>) -> bool,
        mut removed: impl FnMut(Entry<P>),
    ) {
        let mut index = 0;
        while index < self.entries.len() {
            if keep(&self.entries[index]) {
                index += 1;
            } else {
                removed(self.entries.swap_remove(index));
            }
        }
        for parent in (0..self.entries.len().div_ceil(4)).rev() {
            self.sift_down(parent);
        }
    }

    /// Every entry, in no order, leaving the heap empty.
    pub(super) fn drain(&mut self) -> std::vec::Drain<'_, Entry<P>> {
        self.entries.drain(..)
    }

    fn sift_up(&mut self, mut index: usize) {
        while index > 0 {
            let parent = (index - 1) / 4;
            if !before(&self.entries[index], &self.entries[parent]) {
                break;
            }
            self.entries.swap(index, parent);
            index = parent;
        }
    }

    fn sift_down(&mut self, mut index: usize) {
        let len = self.entries.len();
        loop {
            let first_child = 4 * index + 1;
            if first_child >= len {
                return;
            }
            let last_child = (first_child + 4).min(len);
            let smallest = (first_child + 1..last_child).fold(first_child, |best, child| {
                if before(&self.entries[child], &self.entries[best]) {
                    child
                } else {
                    best
                }
            });
            if !before(&self.entries[smallest], &self.entries[index]) {
                return;
            }
            self.entries.swap(index, smallest);
            index = smallest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(when_ns: i64, slot: u32) -> Entry<()> {
        Entry {
            when_ns,
            slot,
            version: 1,
            payload: (),
        }
    }

    /// A deterministic stream of pseudo-random deadlines.
    fn deadlines(count: u32) -> impl Iterator<Item = (i64, u32)> {
        (0..count).map(|slot| {
            let mixed = crate::timer::fmix64(u64::from(slot) + 1);
            ((mixed % 1_000) as i64, slot)
        })
    }

    #[test]
    fn pops_in_deadline_then_slot_order() {
        let mut heap = Heap4::default();
        let mut expected: Vec<(i64, u32)> = deadlines(500).collect();
        for &(when_ns, slot) in &expected {
            heap.push(entry(when_ns, slot));
        }
        expected.sort_unstable();
        let popped: Vec<(i64, u32)> = std::iter::from_fn(|| heap.pop())
            .map(|entry| (entry.when_ns, entry.slot))
            .collect();
        assert_eq!(popped, expected);
    }

    #[test]
    fn retain_removes_exactly_the_rejected_and_keeps_the_order() {
        let mut heap = Heap4::default();
        for (when_ns, slot) in deadlines(300) {
            heap.push(entry(when_ns, slot));
        }
        let mut removed = Vec::new();
        heap.retain(
            |entry| entry.slot % 3 != 0,
            |entry| removed.push(entry.slot),
        );
        removed.sort_unstable();
        assert_eq!(removed, (0..300).step_by(3).collect::<Vec<u32>>());
        let mut expected: Vec<(i64, u32)> = deadlines(300).filter(|(_, s)| s % 3 != 0).collect();
        expected.sort_unstable();
        let popped: Vec<(i64, u32)> = std::iter::from_fn(|| heap.pop())
            .map(|entry| (entry.when_ns, entry.slot))
            .collect();
        assert_eq!(popped, expected);
    }
}
