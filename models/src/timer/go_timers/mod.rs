//! Go's runtime timers since Go 1.14: a 4-ary heap per P, no timer thread.
//!
//! - A goroutine arms a timer in the heap of the P it runs on (here: the caller, hashed to a P),
//!   under that P's lock only. If the new timer is earlier than the time the network poller
//!   sleeps until, the poller is woken (`wakeNetPoller`); otherwise nothing is signalled.
//! - Each timer thread here is a P. A P that looks for work (`findRunnable`) runs its own due
//!   timers, then steals: it runs every other P's due timers too, reading their earliest deadline
//!   without a lock first (`timer0When`, `ts.wakeTime`) and locking only those with one due.
//! - A P that finds nothing to do becomes the poller if nobody is, and sleeps until the earliest
//!   timer of every P (`sched.pollUntil`); otherwise it parks until woken. So one P watches the
//!   clock for all of them.
//! - A timer's callback runs as a goroutine. When one runs long (over 50 µs), its P stops
//!   running timers and wakes a parked P, or else the poller (`wakep`), which runs the other due
//!   timers and watches the clock until the long callback ends and its P looks for work again.
//! - Stopping a timer leaves it in its heap as a zombie. Zombies are dropped when they reach the
//!   top of the heap, and all at once when they exceed a quarter of it, by the P that owns the
//!   heap at one of its scheduling points: here, when it runs a round, and when a goroutine on it
//!   arms a timer (that goroutine parks right after, waiting for its answer, and its P checks its
//!   timers then).
//! - Go 1.23 changes timing in one place this design sees ([`GoTimeout::TimeAfter`]): a
//!   `time.After` timer in a `select` that returned some other way is no longer referenced, so
//!   Go 1.23 drops it like a stopped one, while Go 1.14 to 1.22 keep it until it fires into a
//!   channel nobody reads (golang/go #37196, #61542).
//!
//! What is left out: short callbacks of timers due together run on the P that found them, one
//! after another, where Go might spread their goroutines over Ps; and due timers run only when a
//! P runs a round, not also at the scheduling points of goroutines this model does not see.

mod heap4;

use std::sync::atomic::Ordering::SeqCst;

use super::slots::{MAX_CAPACITY, Slots, Start};
use super::{
    BuildTimerDesign, DesignKey, ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId,
    TimerParams, Unscheduled, fmix64,
};
use crate::sync::{Atomic64, Lock, Primitives};
use heap4::{Entry, Heap4};

/// The most Ps: the P is kept in the top bits of a timer's slot number.
pub const MAX_PROCS: usize = 64;
/// Bits of a slot number that number the slot within its P.
const LOCAL_BITS: u32 = MAX_CAPACITY.trailing_zeros();
const LOCAL_MASK: u32 = (1 << LOCAL_BITS) - 1;
/// A callback longer than this keeps its P, and the rest of the due timers go to another P:
/// each callback is a goroutine, and while one runs, a spinning P steals the others from the
/// run queue. The bound is about how long a parked P takes to wake and steal.
const HAND_OVER_AFTER_NS: i64 = 50_000;
/// No P polls.
const NO_P: u64 = u64::MAX;
/// No timer: the encoded "earliest deadline" of an empty heap.
const NEVER: u64 = u64::MAX;
/// The poller is working out its deadline (Go's `sched.pollUntil == 0`): wake it for any timer.
const UNSET: u64 = 0;

/// A deadline as an unsigned number in the same order, for atomics.
fn encode(when_ns: i64) -> u64 {
    (when_ns.max(i64::MIN + 1) as u64) ^ (1 << 63)
}

fn decode(encoded: u64) -> Option<i64> {
    (encoded != NEVER).then_some((encoded ^ (1 << 63)) as i64)
}

/// The Go release whose timers are modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GoVersion {
    /// Go 1.14 to 1.22: per-P heaps; unreferenced `time.After` timers stay until they fire.
    Go1_22,
    /// Go 1.23 and later: unreferenced timers are dropped as zombies.
    Go1_23,
}

impl GoVersion {
    pub const ALL: [GoVersion; 2] = [GoVersion::Go1_22, GoVersion::Go1_23];
    pub const NAMES: &'static [&'static str] = &["1.22", "1.23"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Every release a scenario may name: those before 1.23 behave as 1.22, the later ones as
    /// 1.23.
    pub const RELEASES: &'static [&'static str] = &[
        "1.14", "1.15", "1.16", "1.17", "1.18", "1.19", "1.20", "1.21", "1.22", "1.23", "1.24",
        "1.25", "1.26",
    ];

    /// The behaviour of release `release`, one of [`Self::RELEASES`].
    pub fn named(release: &str) -> Self {
        let minor: u32 = release
            .strip_prefix("1.")
            .and_then(|minor| minor.parse().ok())
            .unwrap_or(23);
        if minor < 23 {
            GoVersion::Go1_22
        } else {
            GoVersion::Go1_23
        }
    }
}

/// How the program's calls arm and drop their timeouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GoTimeout {
    /// `context.WithTimeout` (an `AfterFunc` timer) whose cancel stops the timer when the answer
    /// comes: gRPC's and net/http's deadlines.
    Context,
    /// `select` on the answer and `time.After(timeout)`; the timer is never stopped.
    TimeAfter,
}

impl GoTimeout {
    pub const ALL: [GoTimeout; 2] = [GoTimeout::Context, GoTimeout::TimeAfter];
    pub const NAMES: &'static [&'static str] = &["context", "time-after"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The way named `name`, one of [`Self::NAMES`].
    pub fn named(name: &str) -> Self {
        if name == "time-after" {
            GoTimeout::TimeAfter
        } else {
            GoTimeout::Context
        }
    }
}

/// What a P is doing, as the scheduler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ProcState {
    /// In a round, or woken for one: whatever it last did, it ends its round again.
    Awake,
    /// Asleep in the network poller until the earliest timer of every P.
    Polling,
    /// Asleep until another P wakes it.
    Parked,
    /// Running a long callback; it ends its round again when the callback ends.
    Busy,
}

/// The scheduler's view of the Ps: taken at the start and end of rounds, never by a schedule.
struct Sched {
    states: Vec<ProcState>,
    stopped: bool,
}

/// One P's timers.
struct Proc<S: Primitives, P: Send> {
    timers: S::Mutex<ProcTimers<P>>,
    /// The earliest deadline in the heap, zombies included, encoded; written under the lock and
    /// read without it by the poller and by stealing Ps (Go's `timer0When`).
    earliest: S::AtomicU64,
    /// Stopped timers still in the heap, as an `i64`: a stop counts its zombie after the stop,
    /// so a round that drops it first leaves the count briefly below zero (Go's `ts.zombies`).
    zombies: S::AtomicU64,
    /// The P's futex word.
    signals: S::AtomicU64,
    slots: Slots<S>,
}

struct ProcTimers<P> {
    heap: Heap4<P>,
    /// Slots this P's timers used and freed, reused before new ones are made.
    free: Vec<u32>,
    stopped: bool,
    /// The earliest deadline last stored in `Proc::earliest`.
    published: u64,
}

/// Go's runtime timers on primitives `S`, carrying payloads `P`.
/// The step of the poller handshake that is easy to get wrong, as a switch. [`Go`] keeps it; the
/// model checks flip it and prove loom catches it.
pub trait RuntimeProtocol: Send + Sync + 'static {
    /// A full fence between publishing a deadline and reading the poller, and between becoming
    /// the poller and reading the deadlines: without them each side may miss the other's store
    /// (Go's atomics are sequentially consistent, which gives it the same guarantee).
    const FENCED_HANDSHAKE: bool = true;
}

/// Go's runtime, every step as it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Go;

impl RuntimeProtocol for Go {}

pub struct GoTimers<S: Primitives, P: Send, V: RuntimeProtocol = Go> {
    procs: Box<[Proc<S, P>]>,
    /// The P asleep in the network poller, or [`NO_P`] (Go's `sched.lastpoll == 0`).
    poller: S::AtomicU64,
    /// When the poller wakes by itself, encoded; [`UNSET`] while it works that out.
    poll_until: S::AtomicU64,
    sched: S::Mutex<Sched>,
    /// Slots made by every P together, against `capacity`: counted only when a P has none
    /// free, so a schedule that reuses a slot touches nothing shared.
    minted: S::AtomicU64,
    capacity: u64,
    /// Whether a stopped or abandoned timer is a zombie (dropped early) rather than kept until
    /// it fires: false only for `time.After` before Go 1.23.
    drops_abandoned: bool,
    clock: TimerClock,
    _protocol: std::marker::PhantomData<V>,
}

impl<S: Primitives, P: Send, V: RuntimeProtocol> std::fmt::Debug for GoTimers<S, P, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoTimers")
            .field("procs", &self.procs.len())
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

/// One P's own state between rounds.
#[derive(Debug, Default)]
pub struct GoTimersThread {
    proc: usize,
    rounds: u64,
    /// The P the last round woke to watch the clock, for the driver to wake.
    woke: Option<usize>,
}

impl<S: Primitives, P: Send, V: RuntimeProtocol> GoTimers<S, P, V> {
    /// `procs` Ps (`GOMAXPROCS`, at most [`MAX_PROCS`]) with room for `capacity` timers in all
    /// (at most [`MAX_CAPACITY`]).
    pub fn new(
        procs: usize,
        capacity: usize,
        clock: TimerClock,
        version: GoVersion,
        timeout: GoTimeout,
    ) -> Self {
        let procs = procs.clamp(1, MAX_PROCS);
        GoTimers {
            procs: (0..procs)
                .map(|_| Proc {
                    timers: S::Mutex::new(ProcTimers {
                        heap: Heap4::default(),
                        free: Vec::new(),
                        stopped: false,
                        published: NEVER,
                    }),
                    earliest: S::AtomicU64::new(NEVER),
                    zombies: S::AtomicU64::new(0),
                    signals: S::AtomicU64::new(0),
                    slots: Slots::new(capacity),
                })
                .collect(),
            poller: S::AtomicU64::new(NO_P),
            poll_until: S::AtomicU64::new(UNSET),
            sched: S::Mutex::new(Sched {
                states: vec![ProcState::Awake; procs],
                stopped: false,
            }),
            minted: S::AtomicU64::new(0),
            capacity: capacity.min(MAX_CAPACITY) as u64,
            drops_abandoned: !(version == GoVersion::Go1_22 && timeout == GoTimeout::TimeAfter),
            clock,
            _protocol: std::marker::PhantomData,
        }
    }

    /// The earliest deadline of every P, zombies included, read without their locks.
    fn earliest_of_all(&self) -> u64 {
        self.procs
            .iter()
            .map(|proc| proc.earliest.load(SeqCst))
            .min()
            .unwrap_or(NEVER)
    }

    /// Runs the due timers of P `index` at `now_ns`, as Go's `ts.check`; sweeps its zombies if it
    /// is the calling P's own heap. Stops after a callback longer than [`HAND_OVER_AFTER_NS`].
    /// `None` if the calling P's own timers are stopped.
    fn check(
        &self,
        index: usize,
        own: bool,
        mut now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Option<Checked> {
        let proc = &self.procs[index];
        let mut freed = None;
        loop {
            let due = proc.timers.with(|timers| {
                timers.free.extend(freed.take());
                if own && timers.stopped {
                    return Err(());
                }
                let due = self.take_due(proc, timers, now_ns);
                if own {
                    self.sweep_if_many(proc, timers);
                }
                self.publish(proc, timers);
                Ok(due)
            });
            let Some(entry) = due.ok()? else {
                return Some(Checked {
                    now_ns,
                    slow: false,
                });
            };
            let local = TimerId::new(entry.slot, entry.version);
            let id = TimerId::new(global_slot(index, entry.slot), entry.version);
            let started_ns = now_ns;
            now_ns = fire(id, entry.payload);
            proc.slots.finish(local);
            if now_ns.saturating_sub(started_ns) > HAND_OVER_AFTER_NS {
                proc.timers.with(|timers| timers.free.push(entry.slot));
                return Some(Checked { now_ns, slow: true });
            }
            freed = Some(entry.slot);
        }
    }

    /// Drops zombies from the top of the heap and takes the first due timer that is to run.
    fn take_due(
        &self,
        proc: &Proc<S, P>,
        timers: &mut ProcTimers<P>,
        now_ns: i64,
    ) -> Option<Entry<P>> {
        while let Some(top) = timers.heap.peek() {
            let local = TimerId::new(top.slot, top.version);
            let abandoned = proc.slots.is_cancelled(local);
            let zombie = abandoned && self.drops_abandoned;
            if !zombie && top.when_ns > now_ns {
                break;
            }
            let entry = timers.heap.pop().expect("peeked");
            let counted_zombie = if zombie {
                true
            } else if proc.slots.start(local) == Start::Run {
                return Some(entry);
            } else {
                // Stopped since `is_cancelled` looked: the stop counts it as a zombie too.
                self.drops_abandoned
            };
            if counted_zombie {
                proc.zombies.fetch_add(u64::MAX, SeqCst);
            }
            // A zombie, or (before Go 1.23) an abandoned `time.After` that fires into a channel
            // nobody reads.
            timers.free.push(entry.slot);
        }
        None
    }

    /// Drops every zombie at once when they are more than a quarter of the heap (Go's
    /// `ts.adjust(now, force)`).
    fn sweep_if_many(&self, proc: &Proc<S, P>, timers: &mut ProcTimers<P>) {
        if !self.drops_abandoned || timers.heap.is_empty() {
            return;
        }
        let zombies = proc.zombies.load(SeqCst) as i64;
        if zombies <= (timers.heap.len() / 4) as i64 {
            return;
        }
        let slots = &proc.slots;
        let free = &mut timers.free;
        let mut swept = 0u64;
        timers.heap.retain(
            |entry| !slots.is_cancelled(TimerId::new(entry.slot, entry.version)),
            |entry| {
                free.push(entry.slot);
                swept += 1;
            },
        );
        proc.zombies.fetch_add(swept.wrapping_neg(), SeqCst);
    }

    /// Publishes the heap's earliest deadline for readers without the lock, if it moved.
    fn publish(&self, proc: &Proc<S, P>, timers: &mut ProcTimers<P>) {
        let earliest = timers.heap.peek().map_or(NEVER, |top| encode(top.when_ns));
        if earliest != timers.published {
            timers.published = earliest;
            proc.earliest.store(earliest, SeqCst);
        }
    }

    /// Go's `wakeNetPoller`: wakes the poller if the new timer is earlier than its sleep.
    /// Returns the P woken.
    fn wake_poller_for(&self, when_ns: i64) -> Option<usize> {
        // The timer's deadline was published; the fence pairs with the one in `end_round`, so
        // either this sees the new poller or the poller sees the deadline.
        if V::FENCED_HANDSHAKE {
            S::fence(SeqCst);
        }
        let poller = self.poller.load(SeqCst);
        if poller == NO_P {
            // No P polls, so one is in a round and reads every P's earliest before it sleeps.
            return None;
        }
        let until = self.poll_until.load(SeqCst);
        if until != UNSET && until <= encode(when_ns) {
            return None;
        }
        self.procs[poller as usize].signals.fetch_add(1, SeqCst);
        Some(poller as usize)
    }

    /// The end of P `index`'s round, under the scheduler's view: poll, park, or (having run
    /// timers) make sure another P watches the clock first.
    fn end_round(&self, state: &mut GoTimersThread, slow: bool) -> Sleep {
        let index = state.proc;
        let sleep = self.sched.with(|sched| {
            if sched.stopped {
                // Stopped during the round: its signal may already be spent.
                return None;
            }
            let seen_signals = self.procs[index].signals.load(SeqCst);
            if slow {
                // Go's `wakep`: this P runs a long goroutine, so a parked P comes to run the
                // other due timers and watch the clock; or else the poller, which sleeps past
                // them. This P looks for work again once its callback ends.
                let poller = self.poller.load(SeqCst);
                let count = sched.states.len();
                let parked = (1..count)
                    .map(|step| (index + step) % count)
                    .find(|&other| sched.states[other] == ProcState::Parked);
                let polling = (poller != NO_P && poller != index as u64).then_some(poller as usize);
                if let Some(other) = parked.or(polling) {
                    sched.states[other] = ProcState::Awake;
                    self.procs[other].signals.fetch_add(1, SeqCst);
                    state.woke = Some(other);
                }
                sched.states[index] = ProcState::Busy;
                self.procs[index].signals.fetch_add(1, SeqCst);
                return Some(Sleep {
                    until_ns: None,
                    seen_signals,
                    stopped: false,
                });
            }
            if self
                .poller
                .compare_exchange(NO_P, index as u64, SeqCst, SeqCst)
                .is_ok()
            {
                sched.states[index] = ProcState::Polling;
                if V::FENCED_HANDSHAKE {
                    S::fence(SeqCst);
                }
                let earliest = self.earliest_of_all();
                self.poll_until.store(earliest, SeqCst);
                return Some(Sleep {
                    until_ns: decode(earliest),
                    seen_signals,
                    stopped: false,
                });
            }
            sched.states[index] = ProcState::Parked;
            Some(Sleep {
                until_ns: None,
                seen_signals,
                stopped: false,
            })
        });
        sleep.unwrap_or_else(|| self.drain(index))
    }

    /// A slot never used before for `proc`, while every P together has made fewer than
    /// `capacity`.
    fn mint(&self, proc: &Proc<S, P>) -> Option<u32> {
        if self.minted.fetch_add(1, SeqCst) >= self.capacity {
            return None;
        }
        proc.slots.mint()
    }

    /// P `index` leaves the poller, if it was in it.
    fn start_round(&self, index: usize) {
        self.sched.with(|sched| {
            sched.states[index] = ProcState::Awake;
            if self.poller.load(SeqCst) == index as u64 {
                self.poll_until.store(UNSET, SeqCst);
                self.poller.store(NO_P, SeqCst);
            }
        });
    }

    /// Frees every timer of P `index` once stopped.
    fn drain(&self, index: usize) -> Sleep {
        let proc = &self.procs[index];
        proc.timers.with(|timers| {
            let slots: Vec<u32> = timers.heap.drain().map(|entry| entry.slot).collect();
            timers.free.extend_from_slice(&slots);
            self.publish(proc, timers);
        });
        Sleep {
            until_ns: None,
            seen_signals: 0,
            stopped: true,
        }
    }
}

/// What a P's check of one heap did.
struct Checked {
    /// The time after its callbacks.
    now_ns: i64,
    /// It stopped after a slow callback, leaving any other due timers to another P.
    slow: bool,
}

/// The slot number a timer of P `proc` is known by outside it.
fn global_slot(proc: usize, local: u32) -> u32 {
    ((proc as u32) << LOCAL_BITS) | local
}

impl<S: Primitives, P: Send, V: RuntimeProtocol> TimerDesign<P> for GoTimers<S, P, V> {
    type ThreadState = GoTimersThread;

    fn clock(&self) -> TimerClock {
        self.clock
    }

    fn timer_threads(&self) -> usize {
        self.procs.len()
    }

    fn new_thread_state(&self, thread: usize) -> GoTimersThread {
        GoTimersThread {
            proc: thread,
            ..GoTimersThread::default()
        }
    }

    fn schedule(
        &self,
        _now_ns: i64,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let index = (fmix64(caller) % self.procs.len() as u64) as usize;
        let proc = &self.procs[index];
        let armed = proc.timers.with(|timers| {
            if timers.stopped {
                return Err(ScheduleError::Stopped);
            }
            // The arming goroutine parks for its answer next: its P checks its heap then, and
            // drops zombies at the top (`cleanHead`) or, past a quarter, all of them.
            self.take_due(proc, timers, i64::MIN);
            self.sweep_if_many(proc, timers);
            let slot = timers.free.pop().or_else(|| self.mint(proc));
            let armed = slot.map(|slot| {
                let local = proc.slots.id_for(slot);
                timers.heap.push(Entry {
                    when_ns: deadline_ns,
                    slot,
                    version: local.version(),
                    payload,
                });
                TimerId::new(global_slot(index, slot), local.version())
            });
            self.publish(proc, timers);
            armed.ok_or(ScheduleError::Full)
        });
        let id = armed?;
        let woken = self.wake_poller_for(deadline_ns);
        Ok(Scheduled {
            id,
            thread: woken.unwrap_or(index),
            took_global_lock: false,
            wake: woken.is_some(),
        })
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        let index = (id.slot() >> LOCAL_BITS) as usize;
        let Some(proc) = self.procs.get(index) else {
            return Unscheduled::NotFound;
        };
        let outcome = proc
            .slots
            .cancel(TimerId::new(id.slot() & LOCAL_MASK, id.version()));
        if outcome == Unscheduled::Cancelled && self.drops_abandoned {
            proc.zombies.fetch_add(1, SeqCst);
        }
        outcome
    }

    fn run_round(
        &self,
        state: &mut GoTimersThread,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        let index = state.proc;
        self.start_round(index);
        // Its own heap first, then every other P's, from a starting point that moves each round
        // as Go's random steal order does.
        let Some(own) = self.check(index, true, now_ns, fire) else {
            return self.drain(index);
        };
        let (mut now_ns, mut slow) = (own.now_ns, own.slow);
        let count = self.procs.len();
        state.rounds += 1;
        let start = (fmix64(state.rounds ^ ((index as u64) << 32)) % count as u64) as usize;
        for step in 0..count {
            if slow {
                break;
            }
            let other = (start + step) % count;
            if other == index {
                continue;
            }
            let earliest = self.procs[other].earliest.load(SeqCst);
            if decode(earliest).is_none_or(|when_ns| when_ns > now_ns) {
                continue;
            }
            let Some(stolen) = self.check(other, false, now_ns, fire) else {
                continue;
            };
            now_ns = stolen.now_ns;
            slow = stolen.slow;
        }
        self.end_round(state, slow)
    }

    fn woken_by_round(&self, state: &mut GoTimersThread) -> Option<usize> {
        state.woke.take()
    }

    fn signals(&self, thread: usize) -> u64 {
        self.procs[thread].signals.load(SeqCst)
    }

    fn stop(&self) -> bool {
        self.sched.with(|sched| sched.stopped = true);
        for proc in self.procs.iter() {
            proc.timers.with(|timers| timers.stopped = true);
            proc.signals.fetch_add(1, SeqCst);
        }
        true
    }

    fn slots_in_use(&self) -> usize {
        self.procs
            .iter()
            .map(|proc| proc.slots.minted() - proc.timers.with(|timers| timers.free.len()))
            .sum()
    }
}

/// [`GoTimers`] under the name `go-timers`.
#[derive(Debug)]
pub struct GoTimersDesign;

impl BuildTimerDesign for GoTimersDesign {
    const NAME: &'static str = "go-timers";
    const ABOUT: &'static str = "Go's runtime timers since 1.14: a 4-ary heap per P, run by \
         their P and stolen by idle Ps, one P polling for the earliest of all";
    /// Every round reads both Ps and the scheduler: 2 preemptions take about 70 s per setup in
    /// a release build (`LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom`), too long
    /// for CI's debug run.
    const LOOM_PREEMPTION_BOUND: usize = 1;
    /// Ps run and steal each other's due timers, and one polls for all.
    const THREADS_SHARE_TIMERS: bool = true;
    const KEYS: &'static [DesignKey] = &[GOMAXPROCS, GO_VERSION, GO_TIMEOUT];
    type Design<S: Primitives, P: Send + 'static> = GoTimers<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GoTimers<S, P> {
        // As Go's GOMAXPROCS defaults to the CPU count.
        let procs = params
            .count(&GOMAXPROCS)
            .map_or(params.cores, |procs| procs as usize);
        GoTimers::new(
            procs.clamp(1, MAX_PROCS),
            params.capacity,
            params.clock,
            GoVersion::named(params.choice(&GO_VERSION)),
            GoTimeout::named(params.choice(&GO_TIMEOUT)),
        )
    }
}

/// The Go program's Ps.
pub const GOMAXPROCS: DesignKey = DesignKey::count(
    "gomaxprocs",
    "the Go program's Ps (GOMAXPROCS), each with its own heap and each a thread on the \
     machine's cores; leave it out for one per core of the machine",
    1,
    MAX_PROCS as i64,
    None,
);

/// The Go release whose timers are modelled.
pub const GO_VERSION: DesignKey = DesignKey::choice(
    "go_version",
    "the Go release: before 1.23, a `time.After` timer nobody waits on any more stays in its \
     heap until it fires",
    GoVersion::RELEASES,
    "1.23",
);

/// How each call arms its timeout.
pub const GO_TIMEOUT: DesignKey = DesignKey::choice(
    "go_timeout",
    "how each call arms its timeout: \"context\" (context.WithTimeout, whose cancel stops the \
     timer when the answer comes) or \"time-after\" (a select on the answer and time.After, \
     never stopped)",
    GoTimeout::NAMES,
    "context",
);

#[cfg(test)]
mod tests;
