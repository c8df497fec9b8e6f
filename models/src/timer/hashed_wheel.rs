//! Netty's `HashedWheelTimer`: one worker thread and a wheel of 512 buckets, each the timers due
//! in one 100 ms tick, with the turns of the wheel each still has to wait.
//!
//! A timer is filed by its deadline's tick since the worker started: bucket `tick % 512`, after
//! `(tick - now's tick) / 512` more turns. New timers wait in a queue that the worker moves into
//! the wheel at each tick, and cancels are queued the same way, taken out of their buckets at the
//! next tick. At tick `k`, once its end has passed, the worker runs the timers of bucket `k %
//! 512` that have no turns left, and counts the others down. So a timer fires at the end of the
//! tick its deadline falls in: up to one tick late, on purpose, which is its promise. A timer
//! whose deadline has passed when the worker first sees it fires at once.
//!
//! Netty's worker ticks for ever. This one sleeps with no deadline while the wheel and the queues
//! are empty, so a timer armed then must wake it: schedule bumps the worker's signal count
//! whenever it finds it idle ([`WheelProtocol::SIGNAL_WHEN_IDLE`]).

use std::marker::PhantomData;
use std::sync::atomic::Ordering::SeqCst;

use super::slots::{Slots, Start};
use super::{ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled};
use crate::sync::{Atomic64, Lock, Primitives};

/// Netty's default tick.
pub const TICK_NS: i64 = 100_000_000;
/// Netty's default wheel: `ticksPerWheel`.
pub const BUCKETS: usize = 512;

/// The wheel's size, as Netty's constructor takes it.
pub const TICKS_PER_WHEEL: super::DesignKey = super::DesignKey::count(
    "ticks_per_wheel",
    "buckets of the wheel, one per 100 ms tick (Netty's ticksPerWheel, 512 by default), rounded \
     up to a power of two as Netty does; a timer further away than one turn waits its turns in \
     its bucket",
    1,
    65_536,
    Some(BUCKETS as i64),
);

/// Netty's cost of a wheel too small for its timeouts: every tick walks its bucket's timers.
pub const TURNS_COUNTED_DOWN: super::DesignMetric = super::DesignMetric {
    name: "turns_counted_down",
    about: "times the worker passed a timer in its bucket that still had turns of the wheel to \
            wait, counting it down",
};

/// The steps of the design that a model check flips one at a time.
pub trait WheelProtocol: Send + Sync + 'static {
    /// Bump the worker's signal count when a timer arrives while it sleeps with no deadline.
    const SIGNAL_WHEN_IDLE: bool = true;
    /// Learn whether the worker sleeps with no deadline under the wheel's lock. Read before
    /// taking it, from a copy the worker keeps, the answer can be stale: a worker that was
    /// ticking when a schedule looked may fire its last timer and go idle before the schedule
    /// files its own, which then never wakes it. Only a battery whose clock moves while
    /// schedulers run lets the worker fire between the two.
    const READ_IDLE_UNDER_LOCK: bool = true;
}

/// The design as it should be.
#[derive(Debug)]
pub struct Netty;

impl WheelProtocol for Netty {}

struct Entry<P> {
    deadline_ns: i64,
    /// Turns of the wheel still to wait once filed.
    rounds: u64,
    id: TimerId,
    payload: P,
}

struct WheelState<P> {
    /// Timers armed since the worker last ticked: Netty's queue of new timeouts.
    arrived: Vec<Entry<P>>,
    buckets: Vec<Vec<Entry<P>>>,
    /// Timers cancelled since the worker last ticked, taken out of the wheel at the next tick.
    cancelled: Vec<TimerId>,
    /// Timers passed over with turns still to wait: [`TURNS_COUNTED_DOWN`].
    counted_down: u64,
    /// Where each held timer waits, by slot, so that a cancel takes it out at once, as
    /// Netty's doubly linked buckets do.
    place: Vec<Place>,
    /// When the worker started, on the design's clock: ticks count from it.
    start_ns: Option<i64>,
    /// The next tick to end.
    tick: u64,
    /// Timers in the wheel and the arrivals queue.
    held: usize,
    /// The worker sleeps with no deadline, and no schedule has woken it yet.
    idle: bool,
    /// The worker went idle, and has not run a round since.
    was_idle: bool,
    free: Vec<u32>,
    stopped: bool,
}

/// Netty's hashed wheel on primitives `S`, carrying payloads `P`, under protocol `W`.
pub struct HashedWheel<S: Primitives, P: Send, W: WheelProtocol = Netty> {
    state: S::Mutex<WheelState<P>>,
    slots: Slots<S>,
    /// The worker's futex word.
    signals: S::AtomicU64,
    /// A copy of `idle` that schedules read without the lock: kept only by a protocol that
    /// does not read `idle` under it ([`WheelProtocol::READ_IDLE_UNDER_LOCK`]).
    idle_copy: S::AtomicU64,
    clock: TimerClock,
    protocol: PhantomData<W>,
}

impl<S: Primitives, P: Send, W: WheelProtocol> std::fmt::Debug for HashedWheel<S, P, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashedWheel")
            .field("slots", &self.slots.minted())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

/// The worker's own state: slots it freed, returned on its next turn with the lock.
#[derive(Debug, Default)]
pub struct HashedWheelThread {
    freed: Vec<u32>,
}

impl<S: Primitives, P: Send, W: WheelProtocol> HashedWheel<S, P, W> {
    /// Netty's default wheel of [`BUCKETS`] buckets.
    pub fn new(capacity: usize, clock: TimerClock) -> Self {
        Self::with_buckets(BUCKETS, capacity, clock)
    }

    /// A wheel of `buckets` buckets, rounded up to a power of two.
    pub fn with_buckets(buckets: usize, capacity: usize, clock: TimerClock) -> Self {
        let buckets = buckets.max(1).next_power_of_two();
        HashedWheel {
            state: S::Mutex::new(WheelState {
                arrived: Vec::new(),
                counted_down: 0,
                buckets: (0..buckets).map(|_| Vec::new()).collect(),
                cancelled: Vec::new(),
                place: Vec::new(),
                start_ns: None,
                tick: 0,
                held: 0,
                idle: false,
                was_idle: false,
                free: Vec::new(),
                stopped: false,
            }),
            slots: Slots::new(capacity),
            signals: S::AtomicU64::new(0),
            // Before its first round the worker has not started: a schedule then wakes it, to
            // no harm.
            idle_copy: S::AtomicU64::new(1),
            clock,
            protocol: PhantomData,
        }
    }
}

/// Where a held timer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Fired, freed, or never held.
    Nowhere,
    /// At this index of the arrivals.
    Arrived(u32),
    /// At this index of this bucket.
    Bucket(u32, u32),
}

/// What the worker does next, decided under the lock.
enum Step<P> {
    Fire(Vec<Entry<P>>),
    Sleep(Sleep),
}

impl<P> WheelState<P> {
    fn set_place(&mut self, id: TimerId, place: Place) {
        let slot = id.slot() as usize;
        if self.place.len() <= slot {
            self.place.resize(slot + 1, Place::Nowhere);
        }
        self.place[slot] = place;
    }

    /// Records where every arrival is, after the queue was reordered.
    fn place_arrivals(&mut self) {
        for at in 0..self.arrived.len() {
            self.set_place(self.arrived[at].id, Place::Arrived(at as u32));
        }
    }

    /// Records where every timer of `bucket` is, after it was reordered.
    fn place_bucket(&mut self, bucket: usize) {
        for at in 0..self.buckets[bucket].len() {
            let id = self.buckets[bucket][at].id;
            self.set_place(id, Place::Bucket(bucket as u32, at as u32));
        }
    }

    /// A timer joins the arrivals.
    fn arrive(&mut self, entry: Entry<P>) {
        self.set_place(entry.id, Place::Arrived(self.arrived.len() as u32));
        self.arrived.push(entry);
        self.held += 1;
    }

    /// Files the arrivals in their buckets, counted from the tick about to end.
    fn file_arrivals(&mut self, start_ns: i64) {
        for mut entry in std::mem::take(&mut self.arrived) {
            let ticks = (entry.deadline_ns.saturating_sub(start_ns).max(0) / TICK_NS) as u64;
            let wheel = self.buckets.len() as u64;
            entry.rounds = ticks.saturating_sub(self.tick) / wheel;
            let bucket = (ticks.max(self.tick) % wheel) as usize;
            let at = self.buckets[bucket].len() as u32;
            self.set_place(entry.id, Place::Bucket(bucket as u32, at));
            self.buckets[bucket].push(entry);
        }
    }

    /// Takes the timer at `place` out, moving the last of its queue into its spot.
    fn take_out(&mut self, place: Place) {
        let moved = match place {
            Place::Nowhere => return,
            Place::Arrived(at) => {
                self.arrived.swap_remove(at as usize);
                self.arrived.get(at as usize).map(|entry| (entry.id, place))
            }
            Place::Bucket(bucket, at) => {
                let entries = &mut self.buckets[bucket as usize];
                entries.swap_remove(at as usize);
                entries.get(at as usize).map(|entry| (entry.id, place))
            }
        };
        if let Some((id, place)) = moved {
            self.set_place(id, place);
        }
        self.held -= 1;
    }

    /// Takes cancelled timers out of the arrivals and the wheel, and frees their slots; a timer
    /// whose cancel won the race with its expiry was taken out already, and is freed here too.
    fn drop_cancelled(&mut self) {
        for id in std::mem::take(&mut self.cancelled) {
            let place = self
                .place
                .get(id.slot() as usize)
                .copied()
                .unwrap_or(Place::Nowhere);
            self.take_out(place);
            self.set_place(id, Place::Nowhere);
            self.free.push(id.slot());
        }
    }

    /// Counts down the bucket of the tick that just ended, and takes out the timers with no
    /// turns left.
    fn expire(&mut self) -> Vec<Entry<P>> {
        let wheel = self.buckets.len() as u64;
        let index = (self.tick % wheel) as usize;
        let (due, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.buckets[index])
            .into_iter()
            .partition(|entry| entry.rounds == 0);
        self.buckets[index] = waiting;
        for entry in &mut self.buckets[index] {
            entry.rounds -= 1;
        }
        self.counted_down += self.buckets[index].len() as u64;
        self.place_bucket(index);
        for entry in &due {
            self.set_place(entry.id, Place::Nowhere);
        }
        self.held -= due.len();
        self.tick += 1;
        due
    }

    /// Takes out the arrivals whose deadline fell in a tick that has already ended, before
    /// `tick_start_ns`.
    fn take_overdue(&mut self, tick_start_ns: i64) -> Vec<Entry<P>> {
        // In place: the worker looks at every sleep, and most of the time nothing is overdue.
        let due: Vec<Entry<P>> = self
            .arrived
            .extract_if(.., |entry| entry.deadline_ns < tick_start_ns)
            .collect();
        if !due.is_empty() {
            self.place_arrivals();
        }
        for entry in &due {
            self.set_place(entry.id, Place::Nowhere);
        }
        self.held -= due.len();
        due
    }

    fn drain(&mut self) {
        let arrived = std::mem::take(&mut self.arrived);
        let filed = self.buckets.iter_mut().flat_map(std::mem::take);
        let slots: Vec<u32> = arrived
            .into_iter()
            .chain(filed)
            .map(|entry| entry.id.slot())
            .collect();
        self.free.extend(slots);
        self.place.clear();
        self.held = 0;
    }
}

impl<S: Primitives, P: Send, W: WheelProtocol> HashedWheel<S, P, W> {
    /// The worker is about to sleep with no deadline: the next schedule must wake it.
    fn go_idle(&self, state: &mut WheelState<P>) {
        state.idle = true;
        if !W::READ_IDLE_UNDER_LOCK {
            self.idle_copy.store(1, SeqCst);
        }
    }

    /// Whether the worker sleeps with no deadline, as a schedule holding the lock learns it,
    /// unless the protocol read it before taking the lock (`seen_before`). Clears it either
    /// way: the schedule that finds the worker idle is the one that wakes it.
    fn take_idle(&self, state: &mut WheelState<P>, seen_before: Option<bool>) -> bool {
        let idle = std::mem::take(&mut state.idle);
        if !W::READ_IDLE_UNDER_LOCK {
            self.idle_copy.store(0, SeqCst);
        }
        seen_before.unwrap_or(idle)
    }

    fn next_step(&self, thread: &mut HashedWheelThread, now_ns: i64) -> Step<P> {
        self.state.with(|state| {
            state.free.append(&mut thread.freed);
            if state.stopped {
                // A cancel that won the race with the expiry of its timer frees the slot here.
                state.drop_cancelled();
                state.drain();
                return Step::Sleep(Sleep {
                    until_ns: None,
                    seen_signals: 0,
                    stopped: true,
                });
            }
            state.drop_cancelled();
            // Ticks count from the first schedule, as Netty's worker starts with the first
            // timeout.
            let Some(start_ns) = state.start_ns else {
                self.go_idle(state);
                return Step::Sleep(Sleep {
                    until_ns: None,
                    seen_signals: self.signals.load(SeqCst),
                    stopped: false,
                });
            };
            // The ticks that passed while the worker was idle held nothing: a worker woken from
            // idle skips to the present, so that it neither replays them nor files its arrivals
            // turns behind.
            if std::mem::take(&mut state.was_idle) {
                let now_tick = (now_ns.saturating_sub(start_ns).max(0) / TICK_NS) as u64;
                state.tick = state.tick.max(now_tick);
            }
            if state.held == 0 {
                self.go_idle(state);
                state.was_idle = true;
                return Step::Sleep(Sleep {
                    until_ns: None,
                    seen_signals: self.signals.load(SeqCst),
                    stopped: false,
                });
            }
            // Every tick that has ended by `now` is expired in turn, each exactly once: the
            // count is fixed before the first, so a tick that failed to advance could not spin.
            let ended_ticks = (now_ns.saturating_sub(start_ns).max(0) / TICK_NS) as u64;
            for _ in state.tick..ended_ticks {
                state.file_arrivals(start_ns);
                let due = state.expire();
                if !due.is_empty() {
                    return Step::Fire(due);
                }
            }
            let tick_end_ns = start_ns.saturating_add((state.tick as i64 + 1) * TICK_NS);
            // A timer whose tick has already ended when the worker first sees it fires at once,
            // as Netty's does at the tick end where it is transferred. This worker also sees
            // arrivals mid-tick, when a schedule wakes it from idle with a deadline already
            // past (see `TimerDesign::schedule`): waiting for the end of the present tick would
            // break its promise for one whose own tick ended long ago. One due in the present
            // tick waits for its end, as any other.
            let tick_start_ns = start_ns.saturating_add(state.tick as i64 * TICK_NS);
            let overdue = state.take_overdue(tick_start_ns);
            if !overdue.is_empty() {
                return Step::Fire(overdue);
            }
            Step::Sleep(Sleep {
                until_ns: Some(tick_end_ns),
                seen_signals: self.signals.load(SeqCst),
                stopped: false,
            })
        })
    }
}

impl<S: Primitives, P: Send, W: WheelProtocol> TimerDesign<P> for HashedWheel<S, P, W> {
    type ThreadState = HashedWheelThread;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        1
    }

    fn new_thread_state(&self, _thread: usize) -> HashedWheelThread {
        HashedWheelThread::default()
    }

    fn schedule(
        &self,
        now_ns: i64,
        deadline_ns: i64,
        payload: P,
        _caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let idle_seen_before = (!W::READ_IDLE_UNDER_LOCK).then(|| self.idle_copy.load(SeqCst) != 0);
        self.state.with(|state| {
            if state.stopped {
                return Err(ScheduleError::Stopped);
            }
            state.start_ns.get_or_insert(now_ns);
            let slot = state
                .free
                .pop()
                .or_else(|| self.slots.mint())
                .ok_or(ScheduleError::Full)?;
            let id = self.slots.id_for(slot);
            state.arrive(Entry {
                deadline_ns,
                rounds: 0,
                id,
                payload,
            });
            let wake = self.take_idle(state, idle_seen_before);
            if wake && W::SIGNAL_WHEN_IDLE {
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
        let outcome = self.slots.cancel(id);
        if outcome == Unscheduled::Cancelled {
            self.state.with(|state| state.cancelled.push(id));
        }
        outcome
    }

    fn run_round(
        &self,
        thread: &mut HashedWheelThread,
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        loop {
            match self.next_step(thread, now_ns) {
                Step::Fire(due) => {
                    // Each step that fires takes its timers out of the wheel, so the rounds
                    // end; one that fired nothing would be asked again for ever.
                    assert!(!due.is_empty(), "a hashed wheel step fired nothing");
                    for entry in due {
                        // A cancel that won the race is still queued: its slot is freed there.
                        if self.slots.start(entry.id) == Start::Run {
                            now_ns = fire(entry.id, entry.payload);
                            self.slots.finish(entry.id);
                            thread.freed.push(entry.id.slot());
                        }
                    }
                }
                Step::Sleep(sleep) => return sleep,
            }
        }
    }

    fn signals(&self, _thread: usize) -> u64 {
        self.signals.load(SeqCst)
    }

    fn stop(&self) -> bool {
        self.state.with(|state| {
            state.stopped = true;
            self.signals.fetch_add(1, SeqCst);
        });
        true
    }

    fn slots_in_use(&self) -> usize {
        self.slots.minted() - self.state.with(|state| state.free.len())
    }

    fn metric(&self, name: &str) -> Option<u64> {
        (name == TURNS_COUNTED_DOWN.name).then(|| self.state.with(|state| state.counted_down))
    }
}

#[cfg(test)]
mod tests;

/// [`HashedWheel`] as scenario files name it.
#[derive(Debug)]
pub struct HashedWheelDesign;

impl super::BuildTimerDesign for HashedWheelDesign {
    const NAME: &'static str = "hashed-wheel";
    const ABOUT: &'static str = "Netty's HashedWheelTimer: one worker, 512 buckets of 100 ms ticks \
         with turns to wait, new timers and cancels queued for the next tick";
    /// A timer fires at the end of the tick its deadline falls in.
    const PROMISE: super::Promise = super::Promise::Within {
        late_ns: TICK_NS as u64,
    };
    /// A timer is a 32-byte entry in a bucket that grows by doubling, and its place (12 bytes,
    /// in a table that grows the same way) beside its slot: `tests/memory.rs` measures it.
    const BYTES_PER_TIMER: u64 = 144;
    const KEYS: &'static [super::DesignKey] = &[TICKS_PER_WHEEL];
    const METRICS: &'static [super::DesignMetric] = &[TURNS_COUNTED_DOWN];
    type Design<S: Primitives, P: Send + 'static> = HashedWheel<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &super::TimerParams) -> HashedWheel<S, P> {
        let buckets = params.count(&TICKS_PER_WHEEL).expect("a default") as usize;
        HashedWheel::with_buckets(buckets, params.capacity, params.clock)
    }
}
