//! The built-in timer designs with one protocol step flipped, as `BuildTimerDesign`s the
//! batteries can run: `tests/loom.rs` and `tests/shuttle.rs` both include this file. Each wrapper
//! builds its design as the built-in one does, under protocol `V`, and keeps the built-in
//! design's promise, so that a mutant fails for its flipped step and nothing else.

#![allow(dead_code)]

use std::marker::PhantomData;

use ticklab::models::sync::Primitives;
use ticklab::models::timer::builtin::BUCKETS;
use ticklab::models::timer::go_timers::{GOMAXPROCS, GoTimeout, GoVersion};
use ticklab::models::timer::{
    Bucketed, BuildTimerDesign, DesignKey, DriverProtocol, GoTimers, HashedWheel,
    HashedWheelDesign, KernelProtocol, LinuxWheel, LinuxWheelDesign, Promise, Protocol,
    RuntimeProtocol, TimerParams, TokioWheel, TokioWheelDesign, WheelProtocol,
};

/// brpc's bucketed design under protocol `V`.
pub struct BucketedWith<V>(PhantomData<V>);

impl<V: Protocol> BuildTimerDesign for BucketedWith<V> {
    const NAME: &'static str = "bucketed-mutant";
    const ABOUT: &'static str = "brpc's design with one protocol step flipped";
    const KEYS: &'static [DesignKey] = &[BUCKETS];
    type Design<S: Primitives, P: Send + 'static> = Bucketed<S, P, V>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Bucketed<S, P, V> {
        let buckets = params.count(&BUCKETS).expect("a default") as usize;
        Bucketed::new(buckets, params.capacity, params.clock)
    }
}

/// tokio's wheel under driver protocol `V`.
pub struct TokioWheelWith<V>(PhantomData<V>);

impl<V: DriverProtocol> BuildTimerDesign for TokioWheelWith<V> {
    const NAME: &'static str = "tokio-wheel-mutant";
    const ABOUT: &'static str = "tokio's time driver with one protocol step flipped";
    const PROMISE: Promise = <TokioWheelDesign as BuildTimerDesign>::PROMISE;
    type Design<S: Primitives, P: Send + 'static> = TokioWheel<S, P, V>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> TokioWheel<S, P, V> {
        TokioWheel::new(params.capacity, params.clock)
    }
}

/// Go's runtime timers under protocol `V`.
pub struct GoTimersWith<V>(PhantomData<V>);

impl<V: RuntimeProtocol> BuildTimerDesign for GoTimersWith<V> {
    const NAME: &'static str = "go-timers-mutant";
    const ABOUT: &'static str = "Go's runtime timers with one protocol step flipped";
    const LOOM_PREEMPTION_BOUND: usize = 1;
    type Design<S: Primitives, P: Send + 'static> = GoTimers<S, P, V>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GoTimers<S, P, V> {
        let procs = params
            .count(&GOMAXPROCS)
            .map_or(params.cores, |procs| procs as usize);
        GoTimers::new(
            procs,
            params.capacity,
            params.clock,
            GoVersion::Go1_23,
            GoTimeout::Context,
        )
    }
}

/// Netty's wheel under protocol `V`: a coarse design, which fires up to a tick late on purpose.
pub struct HashedWheelWith<V>(PhantomData<V>);

impl<V: WheelProtocol> BuildTimerDesign for HashedWheelWith<V> {
    const NAME: &'static str = "hashed-wheel-mutant";
    const ABOUT: &'static str = "Netty's wheel with one protocol step flipped";
    const PROMISE: Promise = <HashedWheelDesign as BuildTimerDesign>::PROMISE;
    type Design<S: Primitives, P: Send + 'static> = HashedWheel<S, P, V>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> HashedWheel<S, P, V> {
        HashedWheel::new(params.capacity, params.clock)
    }
}

/// Netty's wheel whose schedules read whether the worker is idle before taking the lock.
pub struct ReadsIdleOutsideTheLock;

impl WheelProtocol for ReadsIdleOutsideTheLock {
    const READ_IDLE_UNDER_LOCK: bool = false;
}

/// Netty's wheel that never wakes its idle worker.
pub struct ForgetsToWakeTheIdleWorker;

impl WheelProtocol for ForgetsToWakeTheIdleWorker {
    const SIGNAL_WHEN_IDLE: bool = false;
}

/// The Linux kernel's wheel under protocol `V`: it fires a due timer a jiffy or more after its
/// deadline, never at it.
pub struct LinuxWheelWith<V>(PhantomData<V>);

impl<V: KernelProtocol> BuildTimerDesign for LinuxWheelWith<V> {
    const NAME: &'static str = "linux-wheel-mutant";
    const ABOUT: &'static str = "the Linux kernel's wheel with one protocol step flipped";
    const PROMISE: Promise = <LinuxWheelDesign as BuildTimerDesign>::PROMISE;
    type Design<S: Primitives, P: Send + 'static> = LinuxWheel<S, P, V>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> LinuxWheel<S, P, V> {
        LinuxWheel::new(params.capacity, params.clock)
    }
}

/// The kernel's wheel whose schedules compare with `next_expiry` read before taking the lock.
pub struct ReadsNextExpiryOutsideTheLock;

impl KernelProtocol for ReadsNextExpiryOutsideTheLock {
    const NEXT_EXPIRY_READ_UNDER_LOCK: bool = false;
}

/// The kernel's wheel that never wakes its thread for an earlier timer.
pub struct NeverWakesForEarlier;

impl KernelProtocol for NeverWakesForEarlier {
    const WAKE_FOR_EARLIER: bool = false;
}

/// The kernel's wheel that forwards its base's clock past expiries it has not yet run.
pub struct ForwardsPastUnrunExpiries;

impl KernelProtocol for ForwardsPastUnrunExpiries {
    const FORWARD_STOPS_AT_NEXT_EXPIRY: bool = false;
}
