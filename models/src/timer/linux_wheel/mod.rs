//! The Linux kernel's timer wheel since 4.8 (`kernel/time/timer.c`): one timer base, at
//! `HZ=1000`, run by one thread as a CPU runs its timer softirq.
//!
//! - A timer is filed once, on a level whose buckets grow eight times coarser every 63 granules
//!   of distance, and is never cascaded: it fires late on purpose, by up to a granule of its
//!   level. The `base` module holds the wheel itself.
//! - Deadlines are rounded up to a jiffy, and the base's clock reads `now` rounded down.
//! - A schedule takes the base's lock, forwards the base's clock to the caller's `jiffies`, but
//!   never past an expiry the base has not yet run (`__forward_timer_base`), files the timer,
//!   and wakes the thread only if the timer's bucket expires before the base's `next_expiry`
//!   (`trigger_dyntick_cpu` on an idle CPU).
//! - The thread runs every bucket whose expiry has passed (`__run_timers`), expiring timers
//!   outside the lock, and sleeps until the next expiry, as a tickless CPU programs its next
//!   timer interrupt; with nothing filed it sleeps until signalled.
//!
//! So a timer filed while the base lags (its thread has not yet run expired timers, because a
//! frozen process thawed and its callers ran first) is filed from the lagging clock, on the
//! level of its timeout plus the lag. In a kernel the softirq runs at the tick's interrupt exit,
//! before any task, and the base never lags when a task files a timer.

pub(crate) mod base;
#[cfg(test)]
mod tests;

use std::sync::atomic::Ordering::SeqCst;

use super::slots::{Slots, Start};
use super::{
    BuildTimerDesign, DesignMetric, Promise, ScheduleError, Scheduled, Sleep, TimerClock,
    TimerDesign, TimerId, TimerParams, Unscheduled,
};
use crate::sync::{Atomic64, Lock, Primitives};
use base::{JIFFY_NS, TimerBase, expires_for, jiffies_at};

/// The steps of the kernel's protocol that are easy to get wrong, as switches. [`Linux`] keeps
/// every one; the model checks and the simulator's planted bugs flip one each.
pub trait KernelProtocol: Send + Sync + 'static {
    /// Wake the thread when a timer's bucket expires before the base's `next_expiry`.
    const WAKE_FOR_EARLIER: bool = true;
    /// Compare with `next_expiry` under the base's lock. Read before taking it, from a copy the
    /// base keeps, it can be stale: the thread may run the bucket it named and sleep until a
    /// later one before the timer is filed, and an earlier timer then never wakes it. Only a
    /// battery whose clock moves while schedulers run lets the thread run between the two.
    const NEXT_EXPIRY_READ_UNDER_LOCK: bool = true;
    /// Forward the base's clock to `jiffies` before filing a timer. Without it, a timer armed
    /// after a quiet spell is filed from the clock of the base's last run, on a level as coarse
    /// as the spell is long, and fires far past its promise.
    const FORWARD_BASE_ON_ENQUEUE: bool = true;
    /// Forward the base's clock no further than an expiry it has not run. Forwarded past one,
    /// the base later runs that expiry's bucket with its clock set back, and a timer filed from
    /// the forwarded clock whose bucket comes round there fires early: what a thread that lags,
    /// its callers running first after a freeze, meets.
    const FORWARD_STOPS_AT_NEXT_EXPIRY: bool = true;
}

/// The kernel's protocol, every step as it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Linux;

impl KernelProtocol for Linux {}

/// Timers filed while the base's clock was held back behind `jiffies` by an expiry it had not
/// yet run: each was filed for its timeout plus that lag.
pub const FILED_BEHIND: DesignMetric = DesignMetric::new(
    "filed_behind",
    "timers filed while the base's clock lagged behind jiffies, held back by an expiry its \
     thread had not yet run (`__forward_timer_base`): each on the level of its timeout plus the \
     lag",
);

/// The most passes of `__run_timers` in a row that run no bucket: a pass that finds nothing
/// jumps the clock by about 12 days, so a round that needs more has a bug that makes no progress.
const MAX_EMPTY_PASSES: u32 = 10_000;

/// The kernel's wheel on primitives `S`, carrying payloads `P`, under protocol `V`.
pub struct LinuxWheel<S: Primitives, P: Send, V: KernelProtocol = Linux> {
    base: S::Mutex<Base<P>>,
    slots: Slots<S>,
    /// The thread's futex word: bumped when it must wake.
    signals: S::AtomicU64,
    /// A copy of `next_expiry` for a protocol that reads it outside the lock
    /// ([`KernelProtocol::NEXT_EXPIRY_READ_UNDER_LOCK`]).
    next_expiry_copy: S::AtomicU64,
    clock: TimerClock,
    _protocol: std::marker::PhantomData<V>,
}

struct Base<P> {
    wheel: TimerBase<P>,
    /// Slots freed by cancels or returned by the thread, reused before new ones.
    free: Vec<u32>,
    filed_behind: u64,
    stopped: bool,
}

/// The thread's own state: timers it took to expire, and slots it has yet to return.
pub struct LinuxWheelThread<P> {
    /// What a pass took out of the wheel, by slot.
    pass: Vec<(u32, P)>,
    /// The same, claimed for running under the lock, to expire outside it.
    expired: Vec<(TimerId, P)>,
    freed: Vec<u32>,
}

impl<P> std::fmt::Debug for LinuxWheelThread<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinuxWheelThread")
            .field("freed", &self.freed.len())
            .finish_non_exhaustive()
    }
}

impl<S: Primitives, P: Send, V: KernelProtocol> std::fmt::Debug for LinuxWheel<S, P, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinuxWheel")
            .field("slots", &self.slots.minted())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

impl<S: Primitives, P: Send, V: KernelProtocol> LinuxWheel<S, P, V> {
    /// A base with room for `capacity` timers (at most [`MAX_CAPACITY`](super::MAX_CAPACITY)),
    /// its clock at jiffy 0 of `clock`.
    pub fn new(capacity: usize, clock: TimerClock) -> Self {
        let wheel = TimerBase::new();
        let next_expiry = wheel.next_expiry;
        LinuxWheel {
            base: S::Mutex::new(Base {
                wheel,
                free: Vec::new(),
                filed_behind: 0,
                stopped: false,
            }),
            slots: Slots::new(capacity),
            signals: S::AtomicU64::new(0),
            next_expiry_copy: S::AtomicU64::new(next_expiry),
            clock,
            _protocol: std::marker::PhantomData,
        }
    }

    /// Keeps the copy of `next_expiry` a protocol reads outside the lock.
    fn publish_next_expiry(&self, base: &Base<P>) {
        if !V::NEXT_EXPIRY_READ_UNDER_LOCK {
            self.next_expiry_copy.store(base.wheel.next_expiry, SeqCst);
        }
    }

    /// Runs every pass that is due at `now_ns` until one expires timers, which it hands over in
    /// `expired`; `None` once no pass is due, or the base is stopped, with how to sleep.
    fn next_step(&self, thread: &mut LinuxWheelThread<P>, now_ns: i64) -> Option<Sleep> {
        self.base.with(|base| {
            base.free.append(&mut thread.freed);
            if base.stopped {
                let held = base.wheel.drain_slots();
                base.free.extend(held);
                return Some(Sleep {
                    until_ns: None,
                    seen_signals: 0,
                    stopped: true,
                });
            }
            let jiffies = jiffies_at(now_ns);
            let mut empty_passes = 0;
            while base.wheel.due(jiffies) {
                base.wheel.run_pass(&mut thread.pass);
                // Cancels take timers out under this lock, so a timer still here runs.
                for (slot, payload) in thread.pass.drain(..) {
                    let id = self.slots.id_for(slot);
                    let started = self.slots.start(id);
                    debug_assert_eq!(started, Start::Run);
                    thread.expired.push((id, payload));
                }
                if !thread.expired.is_empty() {
                    self.publish_next_expiry(base);
                    return None;
                }
                empty_passes += 1;
                assert!(
                    empty_passes <= MAX_EMPTY_PASSES,
                    "a linux-wheel round makes no progress: {MAX_EMPTY_PASSES} passes ran no \
                     bucket"
                );
            }
            // As a CPU goes idle: the next expiry made fresh, the clock forwarded.
            if base.wheel.next_expiry_recalc {
                base.wheel.next_expiry = base.wheel.next_timer_interrupt();
            }
            base.wheel.forward_at_idle(jiffies);
            self.publish_next_expiry(base);
            let until_ns = base.wheel.timers_pending.then(|| {
                let jiffy = base
                    .wheel
                    .next_expiry
                    .min(i64::MAX as u64 / JIFFY_NS as u64);
                jiffy as i64 * JIFFY_NS
            });
            Some(Sleep {
                until_ns,
                seen_signals: self.signals.load(SeqCst),
                stopped: false,
            })
        })
    }
}

impl<S: Primitives, P: Send, V: KernelProtocol> TimerDesign<P> for LinuxWheel<S, P, V> {
    type ThreadState = LinuxWheelThread<P>;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        1
    }

    fn new_thread_state(&self, _thread: usize) -> LinuxWheelThread<P> {
        LinuxWheelThread {
            pass: Vec::new(),
            expired: Vec::new(),
            freed: Vec::new(),
        }
    }

    fn schedule(
        &self,
        now_ns: i64,
        deadline_ns: i64,
        payload: P,
        _caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let seen_next_expiry =
            (!V::NEXT_EXPIRY_READ_UNDER_LOCK).then(|| self.next_expiry_copy.load(SeqCst));
        self.base.with(|base| {
            if base.stopped {
                return Err(ScheduleError::Stopped);
            }
            let slot = base
                .free
                .pop()
                .or_else(|| self.slots.mint())
                .ok_or(ScheduleError::Full)?;
            let id = self.slots.id_for(slot);
            let jiffies = jiffies_at(now_ns);
            if V::FORWARD_BASE_ON_ENQUEUE
                && base.wheel.forward(jiffies, V::FORWARD_STOPS_AT_NEXT_EXPIRY)
            {
                base.filed_behind += 1;
            }
            let (bucket_expiry, earlier) =
                base.wheel.enqueue(slot, expires_for(deadline_ns), payload);
            self.publish_next_expiry(base);
            let earlier = seen_next_expiry.map_or(earlier, |seen| bucket_expiry < seen);
            let wake = earlier && V::WAKE_FOR_EARLIER;
            if wake {
                self.signals.fetch_add(1, SeqCst);
            }
            Ok(Scheduled {
                id,
                thread: 0,
                took_global_lock: true,
                wake,
            })
        })
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.base.with(|base| {
            let outcome = self.slots.cancel(id);
            if outcome == Unscheduled::Cancelled && base.wheel.detach(id.slot()).is_some() {
                base.free.push(id.slot());
            }
            outcome
        })
    }

    fn run_round(
        &self,
        thread: &mut LinuxWheelThread<P>,
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        loop {
            if let Some(sleep) = self.next_step(thread, now_ns) {
                return sleep;
            }
            // Expired outside the lock, as `expire_timers` drops it around each callback.
            for (id, payload) in std::mem::take(&mut thread.expired) {
                now_ns = fire(id, payload);
                self.slots.finish(id);
                thread.freed.push(id.slot());
            }
        }
    }

    fn signals(&self, _thread: usize) -> u64 {
        self.signals.load(SeqCst)
    }

    fn stop(&self) -> bool {
        self.base.with(|base| {
            base.stopped = true;
            self.signals.fetch_add(1, SeqCst);
        });
        true
    }

    fn slots_in_use(&self) -> usize {
        self.slots.minted() - self.base.with(|base| base.free.len())
    }

    fn metric(&self, name: &str) -> Option<u64> {
        (name == FILED_BEHIND.name).then(|| self.base.with(|base| base.filed_behind))
    }
}

/// [`LinuxWheel`] under the name `linux-wheel`.
#[derive(Debug)]
pub struct LinuxWheelDesign;

/// How late the kernel's wheel fires a timer by its own design.
///
/// A timer `t` ahead is filed at distance `delta` jiffies from the base's clock, with `delta`
/// up to `t / jiffy + 2` (the deadline rounded up, the clock rounded down). On level `n >= 1`,
/// whose shortest distance is `63 * 8^(n-1)` and whose granule is `8^n` jiffies, it fires up to
/// a granule late, plus the jiffy the deadline was rounded up by: under `8^n + 1` jiffies for a
/// timeout over `63 * 8^(n-1) - 2`. The share is largest at level 1's bottom: 9 jiffies late for
/// a 61-jiffy timeout, 9/61 = 14.754%. On level 0 the expiry is rounded up one jiffy and the
/// deadline up to one more: under 2 jiffies.
pub const LINUX_WHEEL_PROMISE: Promise = Promise::ShareOfTimeout {
    ppm: 147_541,
    at_least_ns: 2 * JIFFY_NS as u64,
};

impl BuildTimerDesign for LinuxWheelDesign {
    const NAME: &'static str = "linux-wheel";
    const ABOUT: &'static str = "the Linux kernel's timer wheel since 4.8 at HZ=1000: 9 levels \
         of 64 buckets, each level 8 times coarser, timers filed once and never cascaded";
    const PROMISE: Promise = LINUX_WHEEL_PROMISE;
    /// A timer is a 24-byte node in a table indexed by slot that grows by doubling, beside its
    /// slot: `tests/memory.rs` measures it.
    const BYTES_PER_TIMER: u64 = 96;
    const METRICS: &'static [DesignMetric] = &[FILED_BEHIND];
    type Design<S: Primitives, P: Send + 'static> = LinuxWheel<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> LinuxWheel<S, P> {
        LinuxWheel::new(params.capacity, params.clock)
    }
}
