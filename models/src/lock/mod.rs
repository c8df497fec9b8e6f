//! A process-wide lock, as a sans-time core: who holds it, who waits, and whom a release lets in.
//!
//! Go's `syscall.ForkLock` is a `sync.RWMutex`: `forkExec` takes it for writing around the whole
//! `fork`, and code that creates file descriptors takes it for reading. Here waiters are served
//! strictly in arrival order, so a waiting writer holds back readers that come after it, as in
//! Go's RWMutex; Go also lets a writer's release admit every blocked reader at once, even those
//! behind a second waiting writer, which this simplification does not. A plain mutex treats
//! every acquisition as exclusive.

use std::collections::VecDeque;

/// How the lock shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    Mutex,
    ReadWrite,
}

/// What an acquisition asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Exclusive,
    Shared,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holders {
    Free,
    Exclusive(u32),
    Shared(u32),
}

/// The lock's state; threads are named by `u32` ids.
#[derive(Clone, Debug)]
pub struct ProcessLock {
    kind: LockKind,
    holders: Holders,
    waiting: VecDeque<(u32, Access)>,
}

impl ProcessLock {
    pub fn new(kind: LockKind) -> Self {
        ProcessLock {
            kind,
            holders: Holders::Free,
            waiting: VecDeque::new(),
        }
    }

    fn effective(&self, access: Access) -> Access {
        match self.kind {
            LockKind::Mutex => Access::Exclusive,
            LockKind::ReadWrite => access,
        }
    }

    /// `thread` asks for the lock. Returns whether it holds it now; otherwise it waits in line.
    pub fn acquire(&mut self, thread: u32, access: Access) -> bool {
        let access = self.effective(access);
        let granted = self.waiting.is_empty() && self.fits(access);
        if granted {
            self.grant(thread, access);
        } else {
            self.waiting.push_back((thread, access));
        }
        granted
    }

    /// `thread` lets go of its hold. Returns the threads that now hold the lock, in order.
    ///
    /// # Panics
    /// If `thread` did not hold the lock.
    pub fn release(&mut self, thread: u32) -> Vec<u32> {
        self.holders = match self.holders {
            Holders::Exclusive(holder) if holder == thread => Holders::Free,
            Holders::Shared(1) => Holders::Free,
            Holders::Shared(count) if count > 1 => Holders::Shared(count - 1),
            holders => panic!("thread {thread} released a lock held as {holders:?}"),
        };
        let mut granted = Vec::new();
        while let Some(&(next, access)) = self.waiting.front() {
            if !self.fits(access) {
                break;
            }
            self.waiting.pop_front();
            self.grant(next, access);
            granted.push(next);
        }
        granted
    }

    /// Whether `access` can be granted beside the current holders.
    fn fits(&self, access: Access) -> bool {
        matches!(
            (self.holders, access),
            (Holders::Free, _) | (Holders::Shared(_), Access::Shared)
        )
    }

    fn grant(&mut self, thread: u32, access: Access) {
        self.holders = match (self.holders, access) {
            (Holders::Free, Access::Exclusive) => Holders::Exclusive(thread),
            (Holders::Free, Access::Shared) => Holders::Shared(1),
            (Holders::Shared(count), Access::Shared) => Holders::Shared(count + 1),
            (holders, access) => unreachable!("granted {access:?} over {holders:?}"),
        };
    }

    /// Threads waiting in line.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Whether nobody holds the lock.
    pub fn is_free(&self) -> bool {
        self.holders == Holders::Free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutex_serves_waiters_in_arrival_order() {
        let mut lock = ProcessLock::new(LockKind::Mutex);
        assert!(lock.acquire(1, Access::Exclusive));
        assert!(!lock.acquire(2, Access::Shared));
        assert!(!lock.acquire(3, Access::Exclusive));
        assert_eq!(lock.release(1), [2]);
        assert_eq!(lock.release(2), [3]);
        assert_eq!(lock.release(3), Vec::<u32>::new());
    }

    #[test]
    fn readers_share_and_a_waiting_writer_holds_back_later_readers() {
        let mut lock = ProcessLock::new(LockKind::ReadWrite);
        assert!(lock.acquire(1, Access::Shared));
        assert!(lock.acquire(2, Access::Shared));
        assert!(!lock.acquire(3, Access::Exclusive));
        assert!(!lock.acquire(4, Access::Shared), "queued behind the writer");
        assert_eq!(lock.release(1), Vec::<u32>::new());
        assert_eq!(lock.release(2), [3]);
        assert!(!lock.acquire(5, Access::Shared));
        assert_eq!(lock.release(3), [4, 5], "readers in line enter together");
        assert_eq!(lock.waiting(), 0);
    }

    #[test]
    #[should_panic(expected = "released a lock")]
    fn releasing_a_lock_one_does_not_hold_is_a_bug() {
        let mut lock = ProcessLock::new(LockKind::Mutex);
        lock.acquire(1, Access::Exclusive);
        lock.release(2);
    }
}
