//! tokio's alternative timer (`runtime::Builder::enable_alt_timer`, `tokio_unstable`, tokio PR
//! #7467), from `tokio/src/runtime/time_alt/` and `scheduler/util/time_alt.rs`:
//! - each worker owns a wheel, the same six levels of 64 one-millisecond slots as the driver's;
//!   no lock guards it, and a schedule or a cancel takes no lock every worker shares;
//! - a timer made on a worker goes onto that worker's registration queue; the worker files its
//!   queue into its wheel when it next parks, or runs maintenance (every 61 scheduler ticks);
//! - dropping a timer filed in a wheel puts it on its worker's cancellation queue (`cancel_tx`),
//!   which the worker drains at the same moments, taking the entry out of its wheel;
//! - after it parks, the worker fires what its wheel holds that is due.
//!
//! Before PR #8252 (July 2026), a timer dropped while still on the registration queue had no
//! `cancel_tx` yet, so its cancel queued nothing, and the worker then filed it anyway: the entry
//! stayed in the wheel, holding its memory, until its deadline, up to the wheel's top of
//! 2^36 ms (about 2.2 years). Since #8252, filing skips an entry already cancelled.
//! [`TokioAltBefore8252Design`] is the timer before the fix, [`TokioAltDesign`] after it.
//!
//! Here a worker is a timer thread, and a caller's timers go to the worker its id hashes to.
//! When a worker reaches its timers is what decides the leak, and the timer kind does not run
//! the worker's tasks, so it is modelled from what the worker did last: one that filed
//! registrations at its last visit is busy, and comes back within [`VISIT_NS`] (its next park or
//! maintenance); one that filed none parks until its next deadline, and a registration then
//! wakes it at once, as tokio's `notify_parked_remote` does.

use std::sync::atomic::Ordering::SeqCst;

use super::slots::{Slots, Start};
use super::tokio_wheel::TICK_NS;
use super::tokio_wheel::wheel::Wheel;
use super::{
    BuildTimerDesign, DesignKey, DesignMetric, Promise, ScheduleError, Scheduled, Sleep,
    TimerClock, TimerDesign, TimerId, TimerParams, Unscheduled,
};
use crate::sync::{Atomic64, Lock, Primitives};

/// How soon a busy worker comes back to its timers: 61 scheduler ticks of polls of about 16 µs.
pub const VISIT_NS: i64 = 1_000_000;
/// A worker's slots are numbered `worker << WORKER_SHIFT | local`: room for 2^26 timers each.
const WORKER_SHIFT: u32 = 26;
const LOCAL_MASK: u32 = (1 << WORKER_SHIFT) - 1;

/// The tick a deadline falls due at: rounded up to the millisecond, as tokio's `deadline_to_tick`.
fn deadline_tick(deadline_ns: i64) -> u64 {
    (deadline_ns.max(0) as u64).div_ceil(TICK_NS as u64)
}

/// One worker's timers, which only it touches in tokio (the queues are its inbox).
struct Worker<P> {
    /// Timers made on this worker and not yet filed: id, tick, payload.
    registrations: Vec<(TimerId, u64, P)>,
    /// Local slots of filed timers that were dropped: the cancellation queue.
    cancellations: Vec<u32>,
    /// Filed timers, each with the id it was made with: a cancelled one filed anyway must be
    /// known as cancelled when it comes due.
    wheel: Wheel<(TimerId, P)>,
    /// Local slots free for reuse.
    free: Vec<u32>,
    /// When the worker said it would next reach its timers; `None` while parked with none.
    wake_at_ns: Option<i64>,
    stopped: bool,
}

/// tokio's alternative timer on primitives `S`, carrying payloads `P`; `FILTERS_CANCELLED` is
/// PR #8252's fix.
pub struct TokioAlt<S: Primitives, P: Send, const FILTERS_CANCELLED: bool> {
    workers: Vec<S::Mutex<Worker<P>>>,
    slots: Vec<Slots<S>>,
    signals: Vec<S::AtomicU64>,
    /// Cancelled timers filed into a wheel: each holds its memory until its deadline.
    leaked: S::AtomicU64,
    clock: TimerClock,
}

impl<S: Primitives, P: Send, const F: bool> std::fmt::Debug for TokioAlt<S, P, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokioAlt")
            .field("workers", &self.workers.len())
            .field("filters_cancelled", &F)
            .finish_non_exhaustive()
    }
}

/// A worker thread's own state: which worker it is, and the timers it took to fire.
#[derive(Debug)]
pub struct TokioAltThread<P> {
    worker: usize,
    due: Vec<(TimerId, P)>,
}

impl<S: Primitives, P: Send, const F: bool> TokioAlt<S, P, F> {
    /// `workers` workers with room for `capacity` timers each.
    pub fn new(workers: usize, capacity: usize, clock: TimerClock) -> Self {
        let workers = workers.clamp(1, 64);
        let capacity = capacity.min(LOCAL_MASK as usize);
        TokioAlt {
            workers: (0..workers)
                .map(|_| {
                    S::Mutex::new(Worker {
                        registrations: Vec::new(),
                        cancellations: Vec::new(),
                        wheel: Wheel::new(),
                        free: Vec::new(),
                        wake_at_ns: None,
                        stopped: false,
                    })
                })
                .collect(),
            slots: (0..workers).map(|_| Slots::new(capacity)).collect(),
            signals: (0..workers).map(|_| S::AtomicU64::new(0)).collect(),
            leaked: S::AtomicU64::new(0),
            clock,
        }
    }

    /// The id callers know the timer `local` of `worker` by.
    fn global(worker: usize, local: TimerId) -> TimerId {
        TimerId::new(
            (worker as u32) << WORKER_SHIFT | local.slot(),
            local.version(),
        )
    }

    /// The worker and its own id of the timer `id`.
    fn local(id: TimerId) -> (usize, TimerId) {
        let slot = id.slot();
        (
            (slot >> WORKER_SHIFT) as usize,
            TimerId::new(slot & LOCAL_MASK, id.version()),
        )
    }

    /// Files the worker's registrations into its wheel, and drains its cancellation queue.
    /// Returns how many registrations it filed.
    fn maintain(&self, worker: usize, state: &mut Worker<P>) -> usize {
        let slots = &self.slots[worker];
        let filed = state.registrations.len();
        for (id, when, payload) in state.registrations.drain(..) {
            let cancelled = slots.is_cancelled(id);
            if cancelled && F {
                // #8252: an entry cancelled before it was filed stays out of the wheel.
                state.free.push(id.slot());
                continue;
            }
            if cancelled {
                self.leaked.fetch_add(1, SeqCst);
            }
            state.wheel.insert(id.slot(), when, (id, payload));
        }
        for slot in state.cancellations.drain(..) {
            if state.wheel.remove(slot).is_some() {
                state.free.push(slot);
            }
        }
        filed
    }
}

impl<S: Primitives, P: Send, const F: bool> TimerDesign<P> for TokioAlt<S, P, F> {
    type ThreadState = TokioAltThread<P>;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        self.workers.len()
    }

    fn new_thread_state(&self, thread: usize) -> TokioAltThread<P> {
        TokioAltThread {
            worker: thread,
            due: Vec::new(),
        }
    }

    fn schedule(
        &self,
        now_ns: i64,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let worker = (super::fmix64(caller) % self.workers.len() as u64) as usize;
        let slots = &self.slots[worker];
        self.workers[worker].with(|state| {
            if state.stopped {
                return Err(ScheduleError::Stopped);
            }
            let local = state
                .free
                .pop()
                .or_else(|| slots.mint())
                .ok_or(ScheduleError::Full)?;
            let id = slots.id_for(local);
            state
                .registrations
                .push((id, deadline_tick(deadline_ns), payload));
            // A parked worker, or one not back within a visit, is woken to file it now.
            let wake = state
                .wake_at_ns
                .is_none_or(|wake_at_ns| wake_at_ns > now_ns.saturating_add(VISIT_NS));
            if wake {
                state.wake_at_ns = Some(now_ns);
                self.signals[worker].fetch_add(1, SeqCst);
            }
            Ok(Scheduled {
                id: Self::global(worker, id),
                thread: worker,
                took_global_lock: false,
                wake,
            })
        })
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        let (worker, local) = Self::local(id);
        let (Some(state), Some(slots)) = (self.workers.get(worker), self.slots.get(worker)) else {
            return Unscheduled::NotFound;
        };
        state.with(|state| {
            let outcome = slots.cancel(local);
            // Only a filed timer has its `cancel_tx`: one still on the registration queue
            // queues nothing, and is left to the filing.
            if outcome == Unscheduled::Cancelled && state.wheel.holds(local.slot()) {
                state.cancellations.push(local.slot());
            }
            outcome
        })
    }

    fn run_round(
        &self,
        thread: &mut TokioAltThread<P>,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        let worker = thread.worker;
        let slots = &self.slots[worker];
        let tick = (now_ns.max(0) as u64) / TICK_NS as u64;
        let stopped = self.workers[worker].with(|state| {
            if state.stopped {
                let held = state.wheel.drain_slots();
                state.free.extend(held);
                state
                    .free
                    .extend(state.registrations.drain(..).map(|(id, ..)| id.slot()));
                return true;
            }
            let filed = self.maintain(worker, state);
            while let Some((local, (id, payload))) = state.wheel.poll(tick) {
                match slots.start(id) {
                    Start::Run => thread.due.push((id, payload)),
                    Start::Cancelled => state.free.push(local),
                }
            }
            let next_ns = state.wheel.poll_at().map(|when| {
                let ticks_left = when.saturating_sub(tick).min(i64::MAX as u64 / 2);
                now_ns.saturating_add(ticks_left as i64 * TICK_NS)
            });
            let visit_ns = (filed > 0).then(|| now_ns.saturating_add(VISIT_NS));
            state.wake_at_ns = match (next_ns, visit_ns) {
                (Some(next), Some(visit)) => Some(next.min(visit)),
                (next, visit) => next.or(visit),
            };
            false
        });
        if stopped {
            return Sleep {
                until_ns: None,
                seen_signals: 0,
                stopped: true,
            };
        }
        let mut freed = Vec::with_capacity(thread.due.len());
        for (id, payload) in thread.due.drain(..) {
            fire(Self::global(worker, id), payload);
            slots.finish(id);
            freed.push(id.slot());
        }
        self.workers[worker].with(|state| {
            state.free.extend(freed);
            // A stop while the callbacks ran bumped the signal count this sleep now reads: the
            // thread must come straight back to see it.
            let until_ns = if state.stopped {
                Some(now_ns)
            } else {
                state.wake_at_ns
            };
            Sleep {
                until_ns,
                seen_signals: self.signals[worker].load(SeqCst),
                stopped: false,
            }
        })
    }

    fn signals(&self, thread: usize) -> u64 {
        self.signals[thread].load(SeqCst)
    }

    fn stop(&self) -> bool {
        for (worker, state) in self.workers.iter().enumerate() {
            state.with(|state| state.stopped = true);
            self.signals[worker].fetch_add(1, SeqCst);
        }
        true
    }

    fn slots_in_use(&self) -> usize {
        self.workers
            .iter()
            .zip(&self.slots)
            .map(|(state, slots)| slots.minted() - state.with(|state| state.free.len()))
            .sum()
    }

    fn metric(&self, name: &str) -> Option<u64> {
        (name == LEAKED_ENTRIES.name).then(|| self.leaked.load(SeqCst))
    }
}

/// Workers of the alternative timer, each with a wheel.
pub const WORKERS: DesignKey = DesignKey::count(
    "alt_timer_workers",
    "the runtime's workers, each with a wheel of its own (4 by default)",
    1,
    64,
    Some(4),
);

/// Cancelled entries the workers filed into their wheels anyway.
pub const LEAKED_ENTRIES: DesignMetric = DesignMetric::new(
    "leaked_entries",
    "cancelled timers filed into a wheel, each held until its deadline (tokio #8252)",
);

/// The alternative timer since tokio PR #8252.
#[derive(Debug)]
pub struct TokioAltDesign;

/// The alternative timer before tokio PR #8252: cancelled entries filed anyway.
#[derive(Debug)]
pub struct TokioAltBefore8252Design;

/// A deadline rounds up to the next tick, a sleep counts from the tick rounded down, and a
/// timer made on a busy worker is filed at its next visit: up to 2 ms and a visit late.
const ALT_PROMISE: Promise = Promise::Within {
    late_ns: (2 * TICK_NS + VISIT_NS) as u64,
};

/// A timer's wheel node (its tick, two links and its list), its registration while unfiled, and
/// its version: `tests/memory.rs` measures 142 bytes at worst.
const ALT_BYTES_PER_TIMER: u64 = 144;

impl BuildTimerDesign for TokioAltDesign {
    const NAME: &'static str = "tokio-alt";
    const ABOUT: &'static str = "tokio's alternative timer (tokio_unstable, #7467): a wheel per \
         worker, timers filed when their worker parks, cancelled ones kept out since #8252";
    const KEYS: &'static [DesignKey] = &[WORKERS];
    const METRICS: &'static [DesignMetric] = &[LEAKED_ENTRIES];
    const PROMISE: Promise = ALT_PROMISE;
    const BYTES_PER_TIMER: u64 = ALT_BYTES_PER_TIMER;
    const THREADS_SHARE_TIMERS: bool = false;
    type Design<S: Primitives, P: Send + 'static> = TokioAlt<S, P, true>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> TokioAlt<S, P, true> {
        let workers = params.count(&WORKERS).expect("a default") as usize;
        TokioAlt::new(workers, params.capacity, params.clock)
    }
}

impl BuildTimerDesign for TokioAltBefore8252Design {
    const NAME: &'static str = "tokio-alt-before-8252";
    /// The same protocol as `tokio-alt` but for the filing, which the battery explores at two
    /// preemptions there: one here keeps CI's debug loom run short.
    const LOOM_PREEMPTION_BOUND: usize = 1;
    const ABOUT: &'static str = "tokio's alternative timer before #8252: a timer dropped before \
         its worker filed it is filed anyway, and held until its deadline";
    const KEYS: &'static [DesignKey] = &[WORKERS];
    const METRICS: &'static [DesignMetric] = &[LEAKED_ENTRIES];
    const PROMISE: Promise = ALT_PROMISE;
    const BYTES_PER_TIMER: u64 = ALT_BYTES_PER_TIMER;
    const THREADS_SHARE_TIMERS: bool = false;
    type Design<S: Primitives, P: Send + 'static> = TokioAlt<S, P, false>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> TokioAlt<S, P, false> {
        let workers = params.count(&WORKERS).expect("a default") as usize;
        TokioAlt::new(workers, params.capacity, params.clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::StdPrimitives;

    type Fixed = TokioAlt<StdPrimitives, &'static str, true>;
    type Before = TokioAlt<StdPrimitives, &'static str, false>;

    fn round<const F: bool>(
        timers: &TokioAlt<StdPrimitives, &'static str, F>,
        thread: &mut TokioAltThread<&'static str>,
        now_ns: i64,
    ) -> (Vec<&'static str>, Sleep) {
        let mut fired = Vec::new();
        let sleep = timers.run_round(thread, now_ns, &mut |_, payload| {
            fired.push(payload);
            now_ns
        });
        (fired, sleep)
    }

    const MS: i64 = TICK_NS;

    #[test]
    fn a_parked_worker_is_woken_by_a_registration_and_a_busy_one_comes_back_within_a_visit() {
        let timers = Fixed::new(1, 16, TimerClock::Monotonic);
        let mut thread = timers.new_thread_state(0);
        assert!(round(&timers, &mut thread, 0).1.until_ns.is_none());
        let first = timers.schedule(0, 300_000 * MS, "first", 7).unwrap();
        assert!(
            first.wake && !first.took_global_lock,
            "a parked worker is woken"
        );
        // It filed a registration: busy, it comes back within a visit.
        assert_eq!(round(&timers, &mut thread, 0).1.until_ns, Some(VISIT_NS));
        let second = timers.schedule(MS / 2, 300_000 * MS, "second", 7).unwrap();
        assert!(!second.wake, "the worker is back within a visit");
        // A visit that files nothing parks the worker until its first deadline.
        round(&timers, &mut thread, VISIT_NS);
        let (_, sleep) = round(&timers, &mut thread, 2 * VISIT_NS);
        // The wheel's next expiration is where its level-3 slot (of 262.144 s) cascades.
        assert_eq!(sleep.until_ns, Some(262_144 * MS));
    }

    #[test]
    fn a_timer_dropped_before_its_worker_filed_it_is_held_until_its_deadline_before_8252() {
        let timers = Before::new(1, 16, TimerClock::Monotonic);
        let mut thread = timers.new_thread_state(0);
        round(&timers, &mut thread, 0);
        let call = timers.schedule(0, 300_000 * MS, "call", 7).unwrap();
        assert_eq!(timers.unschedule(call.id), Unscheduled::Cancelled);
        round(&timers, &mut thread, MS);
        assert_eq!(timers.metric("leaked_entries"), Some(1));
        assert_eq!(timers.slots_in_use(), 1, "filed, and held");
        let (fired, _) = round(&timers, &mut thread, 300_000 * MS);
        assert!(fired.is_empty(), "a cancelled timer never runs");
        assert_eq!(timers.slots_in_use(), 0, "freed at its deadline");
    }

    #[test]
    fn since_8252_a_timer_dropped_before_it_was_filed_is_freed_at_the_filing() {
        let timers = Fixed::new(1, 16, TimerClock::Monotonic);
        let mut thread = timers.new_thread_state(0);
        round(&timers, &mut thread, 0);
        let call = timers.schedule(0, 300_000 * MS, "call", 7).unwrap();
        assert_eq!(timers.unschedule(call.id), Unscheduled::Cancelled);
        round(&timers, &mut thread, MS);
        assert_eq!(timers.metric("leaked_entries"), Some(0));
        assert_eq!(timers.slots_in_use(), 0);
    }

    #[test]
    fn a_fired_timer_is_named_by_the_id_its_caller_was_given_on_every_worker() {
        let timers = Fixed::new(4, 16, TimerClock::Monotonic);
        for caller in 0..8 {
            let scheduled = timers.schedule(0, 5 * MS, "call", caller).unwrap();
            let mut thread = timers.new_thread_state(scheduled.thread);
            let mut fired = Vec::new();
            timers.run_round(&mut thread, 5 * MS, &mut |id, _| {
                fired.push(id);
                5 * MS
            });
            assert_eq!(fired, [scheduled.id], "caller {caller}");
            assert_eq!(timers.unschedule(scheduled.id), Unscheduled::NotFound);
        }
    }

    #[test]
    fn a_filed_timer_dropped_leaves_the_wheel_at_the_next_visit_and_due_ones_fire() {
        let timers = Before::new(2, 16, TimerClock::Monotonic);
        let mut threads = [timers.new_thread_state(0), timers.new_thread_state(1)];
        let soon = timers.schedule(0, 5 * MS, "soon", 1).unwrap();
        let later = timers.schedule(0, 9 * MS, "later", 1).unwrap();
        assert_eq!(soon.thread, later.thread, "one caller, one worker");
        let thread = &mut threads[soon.thread];
        round(&timers, thread, 0);
        assert_eq!(timers.unschedule(later.id), Unscheduled::Cancelled);
        assert_eq!(timers.slots_in_use(), 2, "queued for removal");
        let (fired, _) = round(&timers, thread, 5 * MS);
        assert_eq!(fired, ["soon"]);
        assert_eq!(timers.slots_in_use(), 0);
        assert_eq!(timers.metric("leaked_entries"), Some(0));
        assert_eq!(timers.unschedule(soon.id), Unscheduled::NotFound);
    }
}
