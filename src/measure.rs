//! What a timer design holds per timer, measured: the figure to give as
//! [`BuildTimerDesign::BYTES_PER_TIMER`], which a run's memory bound counts each timer at.
//!
//! The bound refuses a run whose live state could pass it before the run starts, and stops one
//! that does while it runs, so the figure must cover what a timer really costs, its share of the
//! design's growing storage included, and not be far above it, or a run that fits is refused.
//! Measure it with an allocator that counts every byte, in a test binary of its own (the count is
//! the whole process's):
//!
//! ```no_run
//! use ticklab::measure::{CountingAllocator, bytes_per_timer};
//! # use ticklab::models::timer::builtin::GlobalHeapDesign as MyDesign;
//! use ticklab::models::timer::BuildTimerDesign;
//!
//! #[global_allocator]
//! static ALLOCATOR: CountingAllocator = CountingAllocator;
//!
//! #[test]
//! fn bytes_per_timer_covers_what_a_timer_holds() {
//!     let measured = bytes_per_timer::<MyDesign>(100_000);
//!     assert!(measured.per_timer <= MyDesign::BYTES_PER_TIMER, "{measured}");
//! }
//! ```
//!
//! [`bytes_per_timer`] arms that many timers on the design, spread over five minutes, runs one
//! round of each timer thread (which is where a design such as brpc's moves them into its own
//! heap), and divides the most the process held at once, above what it held before, by the
//! timers. ticklab's own designs are measured so in `tests/memory.rs`.
#![allow(
    unsafe_code,
    reason = "a global allocator is an unsafe trait; it only counts, and hands every call on to \
              the system allocator unchanged"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use ticklab_models::sync::StdPrimitives;
use ticklab_models::timer::{BuildTimerDesign, TimerClock, TimerDesign, TimerParams};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting the bytes live and the most live since the last reset. Make
/// it the `#[global_allocator]` of the test binary that measures.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call hands its arguments on to the system allocator unchanged; the counters are
// plain atomics.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract, which is `System`'s.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            grew(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: `block` came from `alloc` or `realloc` above, which are `System`'s.
        unsafe { System.dealloc(block, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `alloc` and `dealloc`.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            if new_size > layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        moved
    }
}

/// Bytes live now, as the [`CountingAllocator`] counts them.
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Starts counting the most live from now on.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// The most bytes live since the last [`reset_peak`].
pub fn peak_bytes() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// What [`bytes_per_timer`] measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    pub design: &'static str,
    pub timers: usize,
    /// The most the process held at once while the design held them, above what it held
    /// before.
    pub held_bytes: u64,
    /// `held_bytes` per timer, rounded up.
    pub per_timer: u64,
    /// What the design declares.
    pub declared: u64,
}

impl fmt::Display for Measured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} held {} bytes for {} timers: {} per timer, against the {} it declares",
            self.design, self.held_bytes, self.timers, self.per_timer, self.declared
        )
    }
}

/// How long the measured timers' deadlines are spread over, as RPC timeouts would be.
const SPREAD_NS: i64 = 300_000_000_000;

/// Measures what design `B` holds per timer with `timers` of them armed: see the module's
/// documentation.
///
/// # Panics
/// If the test binary's global allocator is not a [`CountingAllocator`], which would measure
/// nothing.
pub fn bytes_per_timer<B: BuildTimerDesign>(timers: usize) -> Measured {
    let probe = vec![0u8; 4096];
    let counting = live_bytes() >= probe.len();
    drop(probe);
    assert!(
        counting,
        "no bytes were counted: make `ticklab::measure::CountingAllocator` the \
         #[global_allocator] of this test binary"
    );
    let params = TimerParams::new(TimerClock::Monotonic, timers.max(1));
    let before = live_bytes();
    reset_peak();
    let design = B::build::<StdPrimitives, u32>(&params);
    let mut states: Vec<_> = (0..design.timer_threads())
        .map(|thread| design.new_thread_state(thread))
        .collect();
    let step_ns = SPREAD_NS / timers.max(1) as i64;
    for timer in 0..timers {
        let deadline_ns = 1 + step_ns * timer as i64;
        design
            .schedule(0, deadline_ns, timer as u32, timer as u64)
            .unwrap_or_else(|error| panic!("{}: timer {timer}: {error:?}", B::NAME));
    }
    for state in &mut states {
        design.run_round(state, 0, &mut |_, _| 0);
    }
    let held_bytes = (peak_bytes().saturating_sub(before)) as u64;
    drop(states);
    drop(design);
    Measured {
        design: B::NAME,
        timers,
        held_bytes,
        per_timer: held_bytes.div_ceil(timers.max(1) as u64),
        declared: B::BYTES_PER_TIMER,
    }
}
