//! K timer threads, each a global heap, picked by hashing the caller: contention spreads out, but
//! every thread must be woken for its own earliest deadline.

use super::global_heap::{GlobalHeap, GlobalHeapThread};
use super::{
    ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled, fmix64,
    per_part,
};
use crate::sync::Primitives;

pub struct Hashed<S: Primitives, P: Send> {
    shards: Box<[GlobalHeap<S, P>]>,
    slots_per_shard: usize,
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
    /// `threads` timer threads sharing `capacity` slots.
    pub fn new(threads: usize, capacity: usize, clock: TimerClock) -> Self {
        let threads = threads.max(1);
        let slots_per_shard = per_part(capacity, threads);
        let shards = (0..threads)
            .map(|thread| {
                GlobalHeap::shard(
                    thread,
                    (thread * slots_per_shard) as u32,
                    slots_per_shard,
                    clock,
                )
            })
            .collect();
        Hashed {
            shards,
            slots_per_shard,
            clock,
        }
    }

    fn shard_of(&self, id: TimerId) -> Option<&GlobalHeap<S, P>> {
        self.shards
            .get(id.slot() as usize / self.slots_per_shard)
            .filter(|shard| shard.owns(id))
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
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let shard = (fmix64(caller) % self.shards.len() as u64) as usize;
        self.shards[shard].schedule(deadline_ns, payload, caller)
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.shard_of(id)
            .map_or(Unscheduled::NotFound, |shard| shard.unschedule(id))
    }

    fn run_round(
        &self,
        state: &mut HashedThread,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        self.shards[state.thread].run_round(&mut state.inner, now_ns, fire)
    }

    fn signals(&self, thread: usize) -> u64 {
        self.shards[thread].signals(0)
    }

    fn stop(&self) -> bool {
        self.shards.iter().for_each(|shard| {
            shard.stop();
        });
        true
    }

    fn slots_in_use(&self) -> usize {
        self.shards.iter().map(|shard| shard.slots_in_use()).sum()
    }
}
