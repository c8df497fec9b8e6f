//! tokio 1.x's time driver: one hierarchical timing wheel behind one driver lock.
//!
//! - Deadlines are rounded up to the millisecond, so no timer fires early; the wheel's ticks are
//!   milliseconds of the design's clock.
//! - Every schedule and every cancel takes the driver lock: a cancel takes the timer out of its
//!   slot at once (tokio's `TimerEntry::drop`), so cancelled timers hold no memory.
//! - A schedule wakes the driver only if its tick is earlier than the one the driver last said it
//!   would wake at (`next_wake`); one already due goes to the pending list and wakes it too.
//! - The driver (the timer thread here: the worker that parks on the time driver in tokio) polls
//!   the wheel up to the current tick, fires what is due in batches of 32 outside the lock, as
//!   tokio wakes its wakers, and sleeps for the ticks left until the next expiration, counted from
//!   the current tick rounded down, as tokio's `park_timeout` does.
//!
//! The `wheel` module holds the wheel itself: six levels of 64 slots, cascading.

pub(crate) mod wheel;

use std::sync::atomic::Ordering::SeqCst;

use super::slots::{Slots, Start};
use super::{
    BuildTimerDesign, Promise, ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId,
    TimerParams, Unscheduled,
};
use crate::sync::{Atomic64, Lock, Primitives};
pub use wheel::MAX_DURATION_TICKS;
use wheel::Wheel;

/// One tick of the wheel: a millisecond.
pub const TICK_NS: i64 = 1_000_000;
/// tokio wakes at most this many timers per pass before it takes the lock again (`WakeList`).
const BATCH: usize = 32;

/// The tick a deadline falls due at: rounded up to the millisecond.
fn deadline_tick(deadline_ns: i64) -> u64 {
    if deadline_ns <= 0 {
        return 0;
    }
    (deadline_ns as u64).div_ceil(TICK_NS as u64)
}

/// The tick `now_ns` is in: rounded down.
fn now_tick(now_ns: i64) -> u64 {
    (now_ns.max(0) as u64) / TICK_NS as u64
}

/// The steps of the driver's protocol that are easy to get wrong, as switches. [`Tokio`] keeps
/// every one; the model checks flip one each and prove loom catches it.
pub trait DriverProtocol: Send + Sync + 'static {
    /// Unpark the driver for a timer earlier than the tick it said it would wake at.
    const UNPARK_FOR_EARLIER: bool = true;
    /// Read the signal count the driver sleeps on under the same lock as its next wake: read
    /// after unlocking, it may already count a schedule the wake does not.
    const SIGNALS_READ_UNDER_LOCK: bool = true;
}

/// tokio's protocol, every step as it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tokio;

impl DriverProtocol for Tokio {}

/// tokio's time driver on primitives `S`, carrying payloads `P`.
pub struct TokioWheel<S: Primitives, P: Send, V: DriverProtocol = Tokio> {
    driver: S::Mutex<Driver<P>>,
    slots: Slots<S>,
    /// Bumped, under the driver lock, when a schedule must wake the driver: its futex word.
    signals: S::AtomicU64,
    clock: TimerClock,
    _protocol: std::marker::PhantomData<V>,
}

struct Driver<P> {
    wheel: Wheel<P>,
    /// Slots freed by cancels or returned by the driver thread, reused before new ones.
    free: Vec<u32>,
    /// The tick the driver said it would wake at; `None` while it sleeps until signalled.
    next_wake: Option<u64>,
    stopped: bool,
}

/// The driver thread's own state: timers it took to fire, and slots it has yet to return.
pub struct TokioWheelThread<P> {
    batch: Vec<(TimerId, P)>,
    freed: Vec<u32>,
}

impl<P> std::fmt::Debug for TokioWheelThread<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokioWheelThread")
            .field("freed", &self.freed.len())
            .finish_non_exhaustive()
    }
}

impl<S: Primitives, P: Send, V: DriverProtocol> std::fmt::Debug for TokioWheel<S, P, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokioWheel")
            .field("slots", &self.slots.minted())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

impl<S: Primitives, P: Send, V: DriverProtocol> TokioWheel<S, P, V> {
    /// A driver with room for `capacity` timers (at most [`MAX_CAPACITY`](super::MAX_CAPACITY)),
    /// its wheel starting at tick 0 of `clock`.
    pub fn new(capacity: usize, clock: TimerClock) -> Self {
        Self::starting_at(capacity, clock, 0)
    }

    /// The same, its wheel starting at `start_tick`: a runtime that has run that long.
    pub fn starting_at(capacity: usize, clock: TimerClock, start_tick: u64) -> Self {
        TokioWheel {
            driver: S::Mutex::new(Driver {
                wheel: Wheel::starting_at(start_tick),
                free: Vec::new(),
                next_wake: None,
                stopped: false,
            }),
            slots: Slots::new(capacity),
            signals: S::AtomicU64::new(0),
            clock,
            _protocol: std::marker::PhantomData,
        }
    }
}

/// What the driver does next, decided under the lock.
enum Step {
    Fire,
    Sleep(Sleep),
}

impl<S: Primitives, P: Send, V: DriverProtocol> TimerDesign<P> for TokioWheel<S, P, V> {
    type ThreadState = TokioWheelThread<P>;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        1
    }

    fn new_thread_state(&self, _thread: usize) -> TokioWheelThread<P> {
        TokioWheelThread {
            batch: Vec::with_capacity(BATCH),
            freed: Vec::new(),
        }
    }

    fn schedule(
        &self,
        _now_ns: i64,
        deadline_ns: i64,
        payload: P,
        _caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let when = deadline_tick(deadline_ns);
        self.driver.with(|driver| {
            if driver.stopped {
                return Err(ScheduleError::Stopped);
            }
            let slot = driver
                .free
                .pop()
                .or_else(|| self.slots.mint())
                .ok_or(ScheduleError::Full)?;
            let id = self.slots.id_for(slot);
            driver.wheel.insert(slot, when, payload);
            let due = when <= driver.wheel.elapsed();
            let wake = due || driver.next_wake.is_none_or(|next_wake| when < next_wake);
            let wake = wake && V::UNPARK_FOR_EARLIER;
            if wake {
                // As tokio's unpark: `next_wake` stays until the driver parks again.
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
        self.driver.with(|driver| {
            let outcome = self.slots.cancel(id);
            if outcome == Unscheduled::Cancelled && driver.wheel.remove(id.slot()).is_some() {
                driver.free.push(id.slot());
            }
            outcome
        })
    }

    fn run_round(
        &self,
        state: &mut TokioWheelThread<P>,
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        loop {
            let step = self.driver.with(|driver| {
                driver.free.append(&mut state.freed);
                if driver.stopped {
                    let held = driver.wheel.drain_slots();
                    driver.free.extend(held);
                    return Step::Sleep(Sleep {
                        until_ns: None,
                        seen_signals: 0,
                        stopped: true,
                    });
                }
                let tick = now_tick(now_ns);
                while state.batch.len() < BATCH {
                    let Some((slot, payload)) = driver.wheel.poll(tick) else {
                        break;
                    };
                    let id = self.slots.id_for(slot);
                    // Cancels take timers out under this lock, so a timer still here runs.
                    let started = self.slots.start(id);
                    debug_assert_eq!(started, Start::Run);
                    state.batch.push((id, payload));
                }
                if !state.batch.is_empty() {
                    return Step::Fire;
                }
                let next = driver.wheel.poll_at();
                driver.next_wake = next;
                Step::Sleep(Sleep {
                    // tokio parks for the ticks left, counted from the current tick.
                    until_ns: next.map(|when| {
                        let ticks_left = when.saturating_sub(tick).min(i64::MAX as u64 / 2);
                        now_ns.saturating_add(ticks_left as i64 * TICK_NS)
                    }),
                    seen_signals: self.signals.load(SeqCst),
                    stopped: false,
                })
            });
            match step {
                Step::Fire => {
                    // A pass that fires nothing and does not sleep would repeat for ever.
                    assert!(
                        !state.batch.is_empty(),
                        "a tokio-wheel round makes no progress: a pass fired nothing and did not sleep"
                    );
                    for (id, payload) in state.batch.drain(..) {
                        now_ns = fire(id, payload);
                        self.slots.finish(id);
                        state.freed.push(id.slot());
                    }
                }
                Step::Sleep(sleep) if V::SIGNALS_READ_UNDER_LOCK || sleep.stopped => return sleep,
                Step::Sleep(sleep) => {
                    return Sleep {
                        seen_signals: self.signals.load(SeqCst),
                        ..sleep
                    };
                }
            }
        }
    }

    fn signals(&self, _thread: usize) -> u64 {
        self.signals.load(SeqCst)
    }

    fn stop(&self) -> bool {
        self.driver.with(|driver| {
            driver.stopped = true;
            self.signals.fetch_add(1, SeqCst);
        });
        true
    }

    fn slots_in_use(&self) -> usize {
        self.slots.minted() - self.driver.with(|driver| driver.free.len())
    }
}

/// [`TokioWheel`] under the name `tokio-wheel`.
#[derive(Debug)]
pub struct TokioWheelDesign;

impl BuildTimerDesign for TokioWheelDesign {
    const NAME: &'static str = "tokio-wheel";
    const ABOUT: &'static str = "tokio 1.x's time driver: a 6-level hierarchical wheel of 1 ms \
         ticks behind one driver lock; cancels leave the wheel at once";
    /// A deadline is rounded up to the next millisecond tick, and the driver sleeps for the
    /// ticks left counted from the current tick rounded down: up to 2 ms late in all.
    const PROMISE: Promise = Promise::Within {
        late_ns: 2 * TICK_NS as u64,
    };
    /// A timer's entry in a slab that grows by doubling: `tests/memory.rs` measures 80 bytes
    /// at worst, just after the slab doubled.
    const BYTES_PER_TIMER: u64 = 88;
    type Design<S: Primitives, P: Send + 'static> = TokioWheel<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> TokioWheel<S, P> {
        TokioWheel::new(params.capacity, params.clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::StdPrimitives;

    fn round(
        timers: &TokioWheel<StdPrimitives, &'static str>,
        thread: &mut TokioWheelThread<&'static str>,
        now_ns: i64,
    ) -> (Vec<&'static str>, Sleep) {
        let mut fired = Vec::new();
        let sleep = timers.run_round(thread, now_ns, &mut |_, payload| {
            fired.push(payload);
            now_ns
        });
        (fired, sleep)
    }

    #[test]
    fn deadlines_round_up_to_the_millisecond_and_sleeps_count_from_the_tick_rounded_down() {
        let timers = TokioWheel::<StdPrimitives, &str>::new(8, TimerClock::Monotonic);
        let mut thread = timers.new_thread_state(0);
        let scheduled = timers.schedule(0, 10 * TICK_NS + 1, "a", 0).unwrap();
        assert!(scheduled.wake && scheduled.took_global_lock);
        // At 0.7 ms the timer is 11 ticks away from tick 0: tokio parks 11 ms, to 11.7 ms.
        let (fired, sleep) = round(&timers, &mut thread, 700_000);
        assert!(fired.is_empty());
        assert_eq!(sleep.until_ns, Some(11 * TICK_NS + 700_000));
        let (fired, _) = round(&timers, &mut thread, 11 * TICK_NS - 1);
        assert!(fired.is_empty(), "tick 10 is not tick 11");
        let (fired, sleep) = round(&timers, &mut thread, 11 * TICK_NS);
        assert_eq!(fired, ["a"]);
        assert_eq!(sleep.until_ns, None);
    }

    #[test]
    fn a_later_timer_does_not_wake_the_driver_and_a_cancel_frees_its_slot_at_once() {
        let timers = TokioWheel::<StdPrimitives, &str>::new(8, TimerClock::Monotonic);
        let mut thread = timers.new_thread_state(0);
        timers.schedule(0, 5 * TICK_NS, "early", 0).unwrap();
        round(&timers, &mut thread, 0);
        let later = timers.schedule(0, 9 * TICK_NS, "later", 0).unwrap();
        assert!(!later.wake);
        let earlier = timers.schedule(0, 2 * TICK_NS, "earlier", 0).unwrap();
        assert!(earlier.wake);
        assert_eq!(timers.slots_in_use(), 3);
        assert_eq!(timers.unschedule(later.id), Unscheduled::Cancelled);
        assert_eq!(timers.slots_in_use(), 2);
        assert_eq!(timers.unschedule(later.id), Unscheduled::NotFound);
        let (fired, _) = round(&timers, &mut thread, 10 * TICK_NS);
        assert_eq!(fired, ["earlier", "early"]);
    }

    #[test]
    fn a_stopped_driver_fires_nothing_and_frees_every_slot() {
        let timers = TokioWheel::<StdPrimitives, &str>::new(8, TimerClock::Monotonic);
        let mut thread = timers.new_thread_state(0);
        for (deadline_ns, name) in [(0, "due"), (5 * TICK_NS, "soon"), (1 << 50, "later")] {
            timers.schedule(0, deadline_ns, name, 0).unwrap();
        }
        let cancelled = timers.schedule(0, 7 * TICK_NS, "cancelled", 0).unwrap();
        assert_eq!(timers.unschedule(cancelled.id), Unscheduled::Cancelled);
        assert_eq!(timers.slots_in_use(), 3);
        assert!(timers.stop());
        assert_eq!(
            timers.schedule(0, TICK_NS, "late", 0),
            Err(ScheduleError::Stopped)
        );
        let (fired, sleep) = round(&timers, &mut thread, 20 * TICK_NS);
        assert!(fired.is_empty() && sleep.stopped);
        assert_eq!(timers.slots_in_use(), 0, "every held slot is free again");
    }

    #[test]
    fn a_timer_already_due_fires_on_the_next_round() {
        let timers = TokioWheel::<StdPrimitives, &str>::new(8, TimerClock::Monotonic);
        let mut thread = timers.new_thread_state(0);
        round(&timers, &mut thread, 50 * TICK_NS);
        let late = timers.schedule(0, 3 * TICK_NS, "late", 0).unwrap();
        assert!(late.wake);
        let (fired, _) = round(&timers, &mut thread, 50 * TICK_NS);
        assert_eq!(fired, ["late"]);
    }
}
