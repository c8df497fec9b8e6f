//! Timer threads: many threads arm and cancel timeouts, one or more timer threads run the due ones.
//!
//! Every design shares one API, [`TimerDesign`]:
//!
//! - [`GlobalHeap`]: one mutex around one min-heap; the timer thread is woken whenever the earliest
//!   deadline changes.
//! - [`Bucketed`]: brpc's `TimerThread`. Schedulers push into one of several buckets and take the
//!   global lock only when they beat their bucket's nearest deadline; the single timer thread
//!   drains the buckets into a heap only it touches.
//! - [`Hashed`]: K independent timer threads, each a global heap, picked by hashing the caller:
//!   the "more timer threads" alternative brpc rejects because each of them needs waking.
//! - [`TokioWheel`]: tokio 1.x's time driver, a hierarchical wheel of 1 ms ticks behind one lock.
//! - [`GoTimers`]: Go's runtime timers, a 4-ary heap per P, with one P polling for all of them.
//!
//! Every design is a sans-time core generic over the [sync facade](crate::sync). Scheduling
//! threads call [`schedule`](TimerDesign::schedule) and [`unschedule`](TimerDesign::unschedule);
//! a timer thread calls [`run_round`](TimerDesign::run_round) with the current time, which runs
//! what is due and says how long to sleep and which signal count to sleep on. Waking the timer
//! thread when `schedule` asks for it, and sleeping, are the driver's job.
//!
//! ```
//! use ticklab_models::sync::StdPrimitives;
//! use ticklab_models::timer::{Bucketed, TimerClock, TimerDesign, Unscheduled};
//!
//! let timers: Bucketed<StdPrimitives, &str> = Bucketed::new(13, 1024, TimerClock::Monotonic);
//! let mut thread = timers.new_thread_state(0);
//! let call = timers.schedule(100, "rpc 1 timed out", 7).unwrap();
//! let other = timers.schedule(100, "rpc 2 timed out", 7).unwrap();
//! assert_eq!(timers.unschedule(call.id), Unscheduled::Cancelled);
//!
//! let mut fired = Vec::new();
//! let sleep = timers.run_round(&mut thread, 150, &mut |_, payload| {
//!     fired.push(payload);
//!     150
//! });
//! assert_eq!(fired, ["rpc 2 timed out"]);
//! assert_eq!(sleep.until_ns, None);
//! assert_eq!(timers.unschedule(other.id), Unscheduled::NotFound);
//! ```

mod bucketed;
mod global_heap;
pub mod go_timers;
mod hashed;
pub mod hashed_wheel;
mod promise;
mod slots;
pub mod tokio_wheel;

pub use bucketed::{Brpc, Bucketed, BucketedThread, Protocol, Reclaim};
pub use global_heap::{GlobalHeap, GlobalHeapThread};
pub use go_timers::{
    Go, GoTimeout, GoTimers, GoTimersDesign, GoTimersThread, GoVersion, RuntimeProtocol,
};
pub use hashed::{Hashed, HashedThread};
pub use hashed_wheel::{HashedWheel, HashedWheelDesign, HashedWheelThread, Netty, WheelProtocol};
pub use promise::Promise;
pub use slots::{MAX_CAPACITY, TimerId, Unscheduled};
pub use tokio_wheel::{DriverProtocol, Tokio, TokioWheel, TokioWheelDesign, TokioWheelThread};

/// The clock a timer instance keeps its deadlines on. The core never reads it; it tells the
/// driver which clock to pass as `now`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerClock {
    /// Wall-clock time, as brpc's `TimerThread` uses (`gettimeofday`): steps and slews move it.
    Wall,
    Monotonic,
}

impl TimerClock {
    pub const ALL: [TimerClock; 2] = [TimerClock::Wall, TimerClock::Monotonic];
    pub const NAMES: &'static [&'static str] = &["wall", "monotonic"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// A timer that was scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scheduled {
    pub id: TimerId,
    /// The timer thread that will run it.
    pub thread: usize,
    /// Whether scheduling took the lock every scheduler shares.
    pub took_global_lock: bool,
    /// Whether the timer thread must be woken (its signal count was bumped).
    pub wake: bool,
}

/// Why a timer could not be scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// The timer threads are stopping.
    Stopped,
    /// Every slot is in use.
    Full,
}

/// What a timer thread does after a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sleep {
    /// Sleep until the clock reads this, or forever if `None`, unless signalled.
    pub until_ns: Option<i64>,
    /// Sleep only while the thread's signal count still equals this (a futex wait).
    pub seen_signals: u64,
    /// The design was stopped: the thread should exit.
    pub stopped: bool,
}

/// The API every timer design offers.
pub trait TimerDesign<P: Send>: Send + Sync {
    /// What one timer thread keeps to itself between rounds.
    type ThreadState: Send;

    fn clock(&self) -> TimerClock;

    /// How many timer threads the design runs.
    fn timer_threads(&self) -> usize;

    fn new_thread_state(&self, thread: usize) -> Self::ThreadState;

    /// Arms a timer for `deadline_ns` on the design's clock. `caller` identifies the calling thread,
    /// which designs hash to spread contention.
    fn schedule(
        &self,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError>;

    /// Cancels a timer, with brpc's semantics: see [`Unscheduled`].
    fn unschedule(&self, id: TimerId) -> Unscheduled;

    /// One pass of a timer thread at time `now_ns`: runs every due timer, calling `fire` with its
    /// id and payload (`fire` returns the time after the callback, which may have taken long),
    /// and says how to sleep.
    fn run_round(
        &self,
        state: &mut Self::ThreadState,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep;

    /// Another timer thread that the last round of the thread with `state` bumped the signal
    /// count of, which the driver must wake now, as Go's `wakep` hands the clock to an idle P
    /// while this one runs callbacks. Designs whose threads never wake each other keep the
    /// default.
    fn woken_by_round(&self, state: &mut Self::ThreadState) -> Option<usize> {
        let _ = state;
        None
    }

    /// The signal count of timer thread `thread`: the word it sleeps on.
    fn signals(&self, thread: usize) -> u64;

    /// Stops every timer thread: `schedule` fails from now on, and each thread's next round frees
    /// everything and reports `stopped`. Returns whether threads must be woken.
    fn stop(&self) -> bool;

    /// Slots in use: scheduled timers, and cancelled or finished ones not yet freed.
    fn slots_in_use(&self) -> usize;
}

/// What a scenario can set on a timer design. Each design reads the parts it declares in
/// [`BuildTimerDesign::KEYS`]; the rest keep their defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerParams {
    pub clock: TimerClock,
    /// The most timers the whole design holds at once, scheduled or cancelled and not yet freed.
    pub capacity: usize,
    /// Buckets, for designs that spread schedulers over buckets (`buckets`).
    pub buckets: usize,
    /// Timer threads, for designs that run several (`timer_threads`).
    pub timer_threads: usize,
    /// The heap size from which cancelled timers are swept out (`heap_sweep_min_size`), for
    /// designs with brpc's reclaim fix.
    pub heap_sweep_min_size: usize,
    /// The longest a timer thread sleeps while it holds timers (`max_wakeup_interval`); `None`
    /// sleeps until the earliest deadline.
    pub max_wakeup_interval_ns: Option<u64>,
    /// Ps, for Go's timers (`gomaxprocs`).
    pub gomaxprocs: usize,
    /// The Go release whose timers are modelled (`go_version`).
    pub go_version: GoVersion,
    /// How the Go program's calls arm their timeouts (`go_timeout`).
    pub go_timeout: GoTimeout,
}

impl TimerParams {
    /// `capacity` timers on `clock`, every other setting at its default.
    pub fn new(clock: TimerClock, capacity: usize) -> Self {
        TimerParams {
            clock,
            capacity,
            buckets: 13,
            timer_threads: 4,
            heap_sweep_min_size: 4096,
            max_wakeup_interval_ns: None,
            gomaxprocs: 4,
            go_version: GoVersion::Go1_23,
            go_timeout: GoTimeout::Context,
        }
    }
}

/// A design-specific key of a timer scenario, read by the designs that declare it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DesignKey {
    /// `buckets`: [`TimerParams::buckets`].
    Buckets,
    /// `timer_threads`: [`TimerParams::timer_threads`].
    TimerThreads,
    /// `heap_sweep_min_size`: [`TimerParams::heap_sweep_min_size`].
    HeapSweepMinSize,
    /// `max_wakeup_interval`: [`TimerParams::max_wakeup_interval_ns`].
    MaxWakeupInterval,
    /// `gomaxprocs`: [`TimerParams::gomaxprocs`].
    Gomaxprocs,
    /// `go_version`: [`TimerParams::go_version`].
    GoVersion,
    /// `go_timeout`: [`TimerParams::go_timeout`].
    GoTimeout,
}

impl DesignKey {
    pub fn name(self) -> &'static str {
        match self {
            DesignKey::Buckets => "buckets",
            DesignKey::TimerThreads => "timer_threads",
            DesignKey::HeapSweepMinSize => "heap_sweep_min_size",
            DesignKey::MaxWakeupInterval => "max_wakeup_interval",
            DesignKey::Gomaxprocs => "gomaxprocs",
            DesignKey::GoVersion => "go_version",
            DesignKey::GoTimeout => "go_timeout",
        }
    }
}

/// A timer design that can be built on any [`Primitives`](crate::sync::Primitives) and for any
/// payload: the one implementation that the simulator runs on std's primitives, loom and
/// shuttle on theirs, and the benchmarks on real threads.
///
/// The built-in designs implement it, and so can a design in any other crate; registering the
/// type by name (`ticklab::Registry::with_timer_design`) lets scenario files name it.
///
/// ```
/// use ticklab_models::sync::{Primitives, StdPrimitives};
/// use ticklab_models::timer::{BuildTimerDesign, GlobalHeap, TimerClock, TimerDesign, TimerParams};
///
/// /// One locked heap, under the name "one-heap".
/// struct OneHeap;
///
/// impl BuildTimerDesign for OneHeap {
///     const NAME: &'static str = "one-heap";
///     const ABOUT: &'static str = "one mutex around one min-heap";
///     type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;
///
///     fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
///         GlobalHeap::new(params.capacity, params.clock)
///     }
/// }
///
/// let params = TimerParams::new(TimerClock::Monotonic, 8);
/// let timers = OneHeap::build::<StdPrimitives, &str>(&params);
/// assert_eq!(timers.timer_threads(), 1);
/// ```
pub trait BuildTimerDesign: 'static {
    /// The name scenario files give it: `design = "<NAME>"`.
    const NAME: &'static str;
    /// One line on what the design is, for listings and errors.
    const ABOUT: &'static str;
    /// The design-specific keys it reads from a scenario.
    const KEYS: &'static [DesignKey] = &[];
    /// The preemptions loom explores in the battery unless `LOOM_MAX_PREEMPTIONS` says
    /// otherwise. A design whose every round touches every timer thread's state has far more
    /// interleavings per preemption; it may lower this so that CI's run stays short, and be
    /// checked deeper on demand.
    const LOOM_PREEMPTION_BOUND: usize = 2;
    /// What one timer the design holds costs in memory at most, its share of the design's
    /// growing storage included: a run's memory bound counts [`TimerDesign::slots_in_use`] at
    /// this much each. The built-in designs stay within the default (ticklab's
    /// `tests/memory.rs` measures them); a design that keeps more per timer should say so.
    const BYTES_PER_TIMER: u64 = 64;
    /// How late it may fire a timer by its own design, once its thread runs: every run holds it
    /// to this, and reports a timer it has not fired by then as a violation. A heap keeps the
    /// default, [`Promise::Exact`].
    const PROMISE: Promise = Promise::Exact;
    /// The design on primitives `S`, carrying payloads `P`.
    type Design<S: crate::sync::Primitives, P: Send + 'static>: TimerDesign<P>;

    fn build<S: crate::sync::Primitives, P: Send + 'static>(
        params: &TimerParams,
    ) -> Self::Design<S, P>;
}

/// The built-in designs, as [`BuildTimerDesign`]s.
pub mod builtin {
    use super::*;
    use crate::sync::Primitives;

    /// [`GlobalHeap`]: one mutex, one min-heap.
    #[derive(Debug)]
    pub struct GlobalHeapDesign;

    impl BuildTimerDesign for GlobalHeapDesign {
        const NAME: &'static str = "global-heap";
        const ABOUT: &'static str = "one mutex around one min-heap, shared by every scheduler";
        type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;

        fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
            GlobalHeap::new(params.capacity, params.clock)
        }
    }

    /// [`Bucketed`] with brpc's protocol.
    #[derive(Debug)]
    pub struct BucketedDesign;

    impl BuildTimerDesign for BucketedDesign {
        const NAME: &'static str = "bucketed";
        const ABOUT: &'static str = "brpc's TimerThread before its reclaim fix: buckets picked \
             by the caller, one timer thread with its own heap, cancelled timers freed at their \
             deadlines";
        const KEYS: &'static [DesignKey] = &[DesignKey::Buckets];
        type Design<S: Primitives, P: Send + 'static> = Bucketed<S, P>;

        fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Bucketed<S, P> {
            Bucketed::new(params.buckets, params.capacity, params.clock)
        }
    }

    /// [`Bucketed`] with brpc #3384's reclaim fix: the heap swept of cancelled timers, and
    /// optionally a cap on the timer thread's sleep.
    #[derive(Debug)]
    pub struct BucketedReclaimDesign;

    impl BuildTimerDesign for BucketedReclaimDesign {
        const NAME: &'static str = "bucketed-reclaim";
        const ABOUT: &'static str = "brpc's TimerThread after its reclaim fix (#3384): cancelled \
             timers swept out of the heap, and an optional periodic drain of the buckets";
        const KEYS: &'static [DesignKey] = &[
            DesignKey::Buckets,
            DesignKey::HeapSweepMinSize,
            DesignKey::MaxWakeupInterval,
        ];
        type Design<S: Primitives, P: Send + 'static> = Bucketed<S, P>;

        fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Bucketed<S, P> {
            let reclaim = Reclaim {
                heap_sweep_min_size: Some(params.heap_sweep_min_size),
                max_wakeup_interval_ns: params
                    .max_wakeup_interval_ns
                    .map(|ns| i64::try_from(ns).unwrap_or(i64::MAX)),
            };
            Bucketed::with_reclaim(params.buckets, params.capacity, params.clock, reclaim)
        }
    }

    /// [`Hashed`]: several timer threads, each a heap, picked by hashing the caller.
    #[derive(Debug)]
    pub struct HashedDesign;

    impl BuildTimerDesign for HashedDesign {
        const NAME: &'static str = "hashed";
        const ABOUT: &'static str =
            "K timer threads with a heap each, picked by hashing the caller";
        const KEYS: &'static [DesignKey] = &[DesignKey::TimerThreads];
        type Design<S: Primitives, P: Send + 'static> = Hashed<S, P>;

        fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Hashed<S, P> {
            Hashed::new(params.timer_threads, params.capacity, params.clock)
        }
    }
}

/// Spreads caller ids over buckets or threads (MurmurHash3's 64-bit finaliser, as brpc uses on
/// thread ids).
pub(crate) fn fmix64(mut key: u64) -> u64 {
    key ^= key >> 33;
    key = key.wrapping_mul(0xff51_afd7_ed55_8ccd);
    key ^= key >> 33;
    key = key.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    key ^ (key >> 33)
}

#[cfg(test)]
mod tests;
