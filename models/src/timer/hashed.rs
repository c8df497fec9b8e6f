//! K timer threads, each a global heap, picked by hashing the caller: contention spreads out, but
//! every thread must be woken for its own earliest deadline.

use super::global_heap::{GlobalHeapThread, HeapShard};
use super::slots::Slots;
use super::{
    ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled, fmix64,
};
use crate::sync::Primitives;

pub struct Hashed<S: Primitives, P: Send> {
    shards: Box<[HeapShard<S, P>]>,
    /// One table for every thread's timers: the capacity is the total, whichever threads the
    /// callers hash to.
    slots: Slots<S>,
    clock: TimerClock,
}

impl<S: Primitives, P: Send> std::fmt::Debug for Hashed<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hashed")
            .field("threads", &self.shards.len())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

/// One hashed timer thread's state.
#[derive(Debug, Default)]
pub struct HashedThread {
    thread: usize,
    inner: GlobalHeapThread,
}

impl<S: Primitives, P: Send> Hashed<S, P> {
    /// `threads` timer threads with room for `capacity` timers in all (at most
    /// [`MAX_CAPACITY`](super::MAX_CAPACITY)), allocated as they are first needed.
    pub fn new(threads: usize, capacity: usize, clock: TimerClock) -> Self {
        let threads = threads.max(1);
        Hashed {
            shards: (0..threads).map(HeapShard::new).collect(),
            slots: Slots::new(capacity),
            clock,
        }
    }

    /// A slot another thread freed, once no new ones can be made: the capacity is a total.
    fn spare_slot(&self, except: usize) -> Option<u32> {
        self.shards
            .iter()
            .enumerate()
            .filter(|&(index, _)| index != except)
            .find_map(|(_, shard)| shard.spare_slot())
    }
}

impl<S: Primitives, P: Send> TimerDesign<P> for Hashed<S, P> {
    type ThreadState = HashedThread;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        self.shards.len()
    }

    fn new_thread_state(&self, thread: usize) -> HashedThread {
        HashedThread {
            thread,
            inner: GlobalHeapThread::default(),
        }
    }

    fn schedule(
        &self,
        _now_ns: i64,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let index = (fmix64(caller) % self.shards.len() as u64) as usize;
        let shard = &self.shards[index];
        let mut payload = Some(payload);
        match shard.schedule(&self.slots, deadline_ns, &mut payload) {
            Err(ScheduleError::Full) => {
                let slot = self.spare_slot(index).ok_or(ScheduleError::Full)?;
                shard.give_slot(slot);
                shard.schedule(&self.slots, deadline_ns, &mut payload)
            }
            scheduled => scheduled,
        }
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.slots.cancel(id)
    }

    fn run_round(
        &self,
        state: &mut HashedThread,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        self.shards[state.thread].run_round(&self.slots, &mut state.inner, now_ns, fire)
    }

    fn signals(&self, thread: usize) -> u64 {
        self.shards[thread].signals()
    }

    fn stop(&self) -> bool {
        self.shards.iter().for_each(HeapShard::stop);
        true
    }

    fn slots_in_use(&self) -> usize {
        let free: usize = self.shards.iter().map(HeapShard::free_slots).sum();
        self.slots.minted() - free
    }
}
