//! # ticklab-models: the designs under test
//!
//! Each design is a sans-time core: it never reads a clock, sleeps or spawns. It takes `now` and
//! says what comes next: an interval core its next deadline ([`Wait`]), a timer design how its
//! thread sleeps ([`timer::Sleep`]: until when, and the signal count it saw), the executor's
//! scheduler where a task goes and whether a worker parks. Drivers (the simulator, real threads,
//! loom, shuttle, a tokio task) do the waiting. That is what lets one implementation run under
//! every harness.
//!
//! ```
//! use ticklab_models::interval::{IntervalCore, MissedTick};
//!
//! const S: i64 = 1_000_000_000;
//! // A 1 s tokio-0.1-style interval, created at 0, whose process was frozen until 400 s.
//! let mut naive = IntervalCore::created_at(MissedTick::Naive, 0, S);
//! let mut fixed = IntervalCore::created_at(MissedTick::Fixed, 0, S);
//! let burst = std::iter::from_fn(|| naive.tick(400 * S)).count();
//! let once = std::iter::from_fn(|| fixed.tick(400 * S)).count();
//! assert_eq!((burst, once), (400, 1));
//! ```

pub mod detector;
pub mod executor;
pub mod idle;
pub mod interval;
pub mod lock;
pub mod sync;
pub mod timer;
mod wait;

pub use wait::Wait;
