//! # ticklab-sim: the world a timer lives in
//!
//! A simulated machine with one physical clock, in nanoseconds, and the three clocks a program can
//! read, all derived from it. Faults (system and process suspends, wall-clock steps and slews)
//! change those clocks and stop the process, and a seeded event queue decides what runs when.
//!
//! The world knows nothing about any model. A runner asks for wakes and reacts to them:
//!
//! ```
//! use ticklab_sim::{Fault, Platform, Step, World, WorldConfig, NS_PER_SEC};
//!
//! // A Windows laptop sleeps from 15.5 s to 407 s.
//! let mut world: World<()> = World::new(WorldConfig {
//!     platform: Platform::Windows,
//!     instant_clock: Platform::Windows.instant_clock(),
//!     wall_start_ns: 0,
//!     run_for_ns: 480 * NS_PER_SEC,
//!     faults: vec![Fault::SystemSuspend { at_ns: 15_500_000_000, duration_ns: 391_500_000_000 }],
//! });
//!
//! // A program waits until `Instant::now()` reads 16 s.
//! world.wake_at(world.instant_deadline(16 * NS_PER_SEC as i64), ());
//! loop {
//!     match world.next_step() {
//!         Step::Wake { .. } => break,
//!         Step::Fault { .. } => continue,
//!         Step::End => unreachable!(),
//!     }
//! }
//! // Windows' Instant counted the sleep, so the wake is long overdue when the machine resumes.
//! assert_eq!(world.now_ns(), 407 * NS_PER_SEC);
//! assert_eq!(world.instant_ns(), 407 * NS_PER_SEC as i64);
//! ```
//!
//! Everything is deterministic: the same configuration and the same sequence of requests give the
//! same steps, byte for byte. Randomness comes from [`SimRng`], seeded and split by purpose.

mod bins;
mod clock;
mod cores;
mod cpu;
mod drift;
mod fault;
mod machine;
mod meter;
mod platform;
mod queue;
mod radix;
mod rng;
mod time;
mod world;

pub use bins::{BusyBins, MAX_BINS};
pub use clock::{ClockId, Clocks};
pub use cores::{
    CoreTime, Cores, CpuKind, DEFAULT_SLICE_NS, SliceEnd, SliceTicket, default_slice_ns,
};
pub use cpu::{SimThread, ThreadCpu, ThreadId};
pub use drift::{Drift, MAX_DRIFT_PPB};
pub use fault::{Edge, FULL_SHARE_PPM, Fault, FaultEdge, FaultKind, FaultSchedule, Rate};
pub use machine::{EdgeEffect, LoadEdge, Machine};
pub use meter::BusyTime;
pub use platform::Platform;
pub use queue::{Deadline, MAX_PENDING as MAX_PENDING_WAKES};
pub use radix::{RadixQueue, SLOT_BITS as RADIX_SLOT_BITS};
pub use rng::SimRng;
pub use time::{Approx, Compact, NS_PER_MS, NS_PER_SEC, NS_PER_US, Secs};
pub use world::{Step, World, WorldConfig};
