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
//! - [`TokioAlt`]: tokio's alternative timer (`tokio_unstable`), a wheel per worker, before and
//!   after the fix of its cancelled-entry leak (#8252).
//! - [`GoTimers`]: Go's runtime timers, a 4-ary heap per P, with one P polling for all of them.
//! - [`HashedWheel`]: Netty's `HashedWheelTimer`, 512 buckets of 100 ms ticks and one worker.
//! - [`LinuxWheel`]: the Linux kernel's wheel since 4.8, nine levels of 64 buckets, each level
//!   eight times coarser, timers filed once and never cascaded.
//!
//! A design may add keys of its own to a scenario and metrics of its own to a run's summary:
//! see [`DesignKey`] and [`DesignMetric`].
//!
//! Every design is a sans-time core generic over the [sync facade](crate::sync). Scheduling
//! threads call [`schedule`](TimerDesign::schedule) with the time they read and the deadline,
//! and [`unschedule`](TimerDesign::unschedule);
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
//! // Armed at 0 for 100 ns later, by the thread whose id is 7.
//! let call = timers.schedule(0, 100, "rpc 1 timed out", 7).unwrap();
//! let other = timers.schedule(0, 100, "rpc 2 timed out", 7).unwrap();
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
mod keys;
pub mod linux_wheel;
mod promise;
mod slots;
pub mod tokio_alt;
pub mod tokio_wheel;

pub use bucketed::{Brpc, Bucketed, BucketedThread, Protocol, Reclaim};
pub use global_heap::{GlobalHeap, GlobalHeapThread};
pub use go_timers::{
    Go, GoTimeout, GoTimers, GoTimersDesign, GoTimersThread, GoVersion, RuntimeProtocol,
};
pub use hashed::{Hashed, HashedThread};
pub use hashed_wheel::{HashedWheel, HashedWheelDesign, HashedWheelThread, Netty, WheelProtocol};
pub use keys::{DesignKey, DesignMetric, KeyKind, KeyValue, TimerParams};
pub use linux_wheel::{KernelProtocol, Linux, LinuxWheel, LinuxWheelDesign, LinuxWheelThread};
pub use promise::Promise;
pub use slots::{MAX_CAPACITY, TimerId, Unscheduled};
pub use tokio_alt::{TokioAlt, TokioAltBefore8252Design, TokioAltDesign, TokioAltThread};
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

    /// Arms a timer for `deadline_ns` on the design's clock, which reads `now_ns` as the caller
    /// arms it (a design that files timers relative to the present needs it, as the Linux
    /// kernel's wheel moves its base forward when a timer is queued). `caller` identifies the
    /// calling thread, which designs hash to spread contention.
    ///
    /// `now_ns` may be earlier than a timer thread has already seen, and the deadline may have
    /// passed by then: on real threads a caller can be held up between reading the clock and
    /// taking the lock, and in the simulator a round's callbacks run ahead of the schedules made
    /// while they ran. The design must still fire such a timer within its promise.
    fn schedule(
        &self,
        now_ns: i64,
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

    /// The value of the metric named `name`, one of those the design declares in
    /// [`BuildTimerDesign::METRICS`], read once at the end of a run. A declared metric the
    /// design does not answer fails the run.
    fn metric(&self, name: &str) -> Option<u64> {
        let _ = name;
        None
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
    /// The keys of its own it reads from a scenario's `[model]`, handed to
    /// [`build`](Self::build) in [`TimerParams`]. A scenario that sets one for a design that
    /// does not declare it is refused.
    const KEYS: &'static [DesignKey] = &[];
    /// The metrics of its own it reports at the end of a run, through
    /// [`TimerDesign::metric`]: the run's summary shows them, `[expect]` can bound them and
    /// `compare` lists them.
    const METRICS: &'static [DesignMetric] = &[];
    /// The preemptions loom explores in the battery unless `LOOM_MAX_PREEMPTIONS` says
    /// otherwise. A design whose every round touches every timer thread's state has far more
    /// interleavings per preemption; it may lower this so that CI's run stays short, and be
    /// checked deeper on demand.
    const LOOM_PREEMPTION_BOUND: usize = 2;
    /// What one timer the design holds costs in memory at most, its share of the design's
    /// growing storage included: a run's memory bound counts [`TimerDesign::slots_in_use`] at
    /// this much each. Most built-in designs stay within the default (ticklab's
    /// `tests/memory.rs` measures them); a design that keeps more per timer should say so.
    const BYTES_PER_TIMER: u64 = 64;
    /// How late it may fire a timer by its own design, once its thread runs: every run holds it
    /// to this, and reports a timer it has not fired by then as a violation. A heap keeps the
    /// default, [`Promise::Exact`].
    const PROMISE: Promise = Promise::Exact;
    /// Whether a timer thread may run timers another thread was given, as Go's Ps steal from
    /// each other. A run excuses a late timer while the thread it was given to is held back
    /// (busy, waiting for a core, or about to take a wake); for a design that shares, while
    /// any of its threads is.
    const THREADS_SHARE_TIMERS: bool = false;
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
        const KEYS: &'static [DesignKey] = &[BUCKETS];
        /// A timer's 24-byte queue entry and 8-byte version, and its place in the timer thread's
        /// heap, which grows by doubling while the buckets it drains still hold their lists:
        /// `tests/memory.rs` measures 65 bytes at worst.
        const BYTES_PER_TIMER: u64 = 68;
        type Design<S: Primitives, P: Send + 'static> = Bucketed<S, P>;

        fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Bucketed<S, P> {
            Bucketed::new(buckets(params), params.capacity, params.clock)
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
        const KEYS: &'static [DesignKey] = &[BUCKETS, HEAP_SWEEP_MIN_SIZE, MAX_WAKEUP_INTERVAL];
        /// A timer's 24-byte queue entry and 8-byte version, and its place in the timer thread's
        /// heap, which grows by doubling while the buckets it drains still hold their lists:
        /// `tests/memory.rs` measures 65 bytes at worst.
        const BYTES_PER_TIMER: u64 = 68;
        type Design<S: Primitives, P: Send + 'static> = Bucketed<S, P>;

        fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Bucketed<S, P> {
            let reclaim = Reclaim {
                heap_sweep_min_size: params.count(&HEAP_SWEEP_MIN_SIZE).map(|size| size as usize),
                max_wakeup_interval_ns: params
                    .duration_ns(&MAX_WAKEUP_INTERVAL)
                    .map(|ns| i64::try_from(ns).unwrap_or(i64::MAX)),
            };
            Bucketed::with_reclaim(buckets(params), params.capacity, params.clock, reclaim)
        }
    }

    /// [`Hashed`]: several timer threads, each a heap, picked by hashing the caller.
    #[derive(Debug)]
    pub struct HashedDesign;

    impl BuildTimerDesign for HashedDesign {
        const NAME: &'static str = "hashed";
        const ABOUT: &'static str =
            "K timer threads with a heap each, picked by hashing the caller";
        const KEYS: &'static [DesignKey] = &[TIMER_THREADS];
        type Design<S: Primitives, P: Send + 'static> = Hashed<S, P>;

        fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Hashed<S, P> {
            let threads = params.count(&TIMER_THREADS).expect("a default") as usize;
            Hashed::new(threads, params.capacity, params.clock)
        }
    }

    /// brpc's buckets: `brpc_timer_num_buckets`.
    pub const BUCKETS: DesignKey = DesignKey::count(
        "buckets",
        "buckets the schedulers are spread over (brpc allows 1 to 1024; 13 by default)",
        1,
        1024,
        Some(13),
    );

    /// The reclaim fix's sweep threshold: `brpc_timer_heap_sweep_min_size`.
    pub const HEAP_SWEEP_MIN_SIZE: DesignKey = DesignKey::count(
        "heap_sweep_min_size",
        "the heap is swept of cancelled timers once it holds this many and has doubled since \
         the last sweep (brpc_timer_heap_sweep_min_size, 4096 by default)",
        1,
        MAX_CAPACITY as i64,
        Some(4096),
    );

    /// The reclaim fix's optional cap on the timer thread's sleep.
    pub const MAX_WAKEUP_INTERVAL: DesignKey = DesignKey::duration(
        "max_wakeup_interval",
        "the longest the timer thread sleeps while it holds timers, such as \"1s\"; leave it \
         out to sleep until the earliest deadline",
        1,
        None,
    );

    /// Threads of the hashed design.
    pub const TIMER_THREADS: DesignKey = DesignKey::count(
        "timer_threads",
        "timer threads, each with a heap of its own (4 by default)",
        1,
        64,
        Some(4),
    );

    fn buckets(params: &TimerParams) -> usize {
        params.count(&BUCKETS).expect("a default") as usize
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
