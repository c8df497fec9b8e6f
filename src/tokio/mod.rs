//! Your own tokio code through the same suspends, freezes and clock steps as ticklab's models.
//!
//! A [`Harness`] holds a platform and a list of faults, read from a scenario file or built in
//! code. [`Harness::run`] runs your async code on a paused current-thread tokio runtime whose
//! clock ticklab moves as that platform's `Instant` would:
//!
//! - a system suspend jumps tokio's clock only where `Instant` counts it: on Windows, and on
//!   `android-aosp` (code built with AOSP's toolchain, whose `Instant` reads `CLOCK_BOOTTIME`).
//!   Elsewhere, `android` included (an app built with upstream Rust reads `CLOCK_MONOTONIC`),
//!   tokio's clock stands still while physical and wall time move on;
//! - a process freeze always jumps it;
//! - no task runs during a jump, so every timer that fell due completes at once.
//!
//! Between faults, tokio's clock moves as paused time always does: straight to the next timer
//! whenever every task waits. Your code reads the OS clocks as it always does: inside a run,
//! `std::time::Instant::now()` reads the platform's `Instant` (equal to tokio's), `SystemTime::now()`
//! the machine's wall clock, and `std::thread::sleep` holds the runtime thread in simulated time,
//! for any library that calls libc too (the `os-clocks` feature, Linux with glibc). [`busy`] marks
//! CPU-bound sections, and [`note`] records what the code did; the notes go into a trace with
//! physical time, `Instant` and wall time, which [`Run::snapshot`] renders for insta. A task's
//! panic fails the run.
//!
//! ```
//! use std::time::Duration;
//! use ticklab::sim::Platform;
//! use ticklab::tokio::Harness;
//!
//! // A 1 s heartbeat on a Windows laptop that sleeps for 392 s.
//! let harness = Harness::on(Platform::Windows)
//!     .run_for(Duration::from_secs(600))
//!     .system_suspend(Duration::from_millis(15_500), Duration::from_secs(392))
//!     .build()
//!     .unwrap();
//! let run = harness.run(|| async {
//!     let mut interval = tokio::time::interval(Duration::from_secs(1));
//!     loop {
//!         interval.tick().await;
//!         ticklab::tokio::note("beat");
//!     }
//! });
//! // `Burst` replays every second the laptop slept, all at once on waking.
//! assert!(run.most_within("beat", Duration::from_secs(1)) > 390);
//! ```
//!
//! [`Sweep`] searches random fault schedules around a harness for a case that breaks an
//! invariant of your own, shrinks it, and writes it as a scenario file that the same test
//! replays.
//!
//! What the harness cannot do: run a multi-thread runtime (paused time needs current-thread), see
//! clocks read without libc (`quanta`, raw system calls) or from threads the code starts itself,
//! charge time for blocking it is not told about (a long real-time stall is a warning), or end a
//! std timed wait where simulated time stands still (on a `spawn_blocking` thread, or holding the
//! runtime thread): a run whose simulated time stands still for a minute of real time is stopped,
//! naming the wait.
//! The book (docs/book/src/harness.md) says what to do instead.

mod context;
mod driver;
mod events;
mod harness;
pub(crate) mod os;
pub(crate) mod panics;
mod picture;
mod picture_notes;
pub(crate) mod regressions;
mod replay_command;
mod run;
mod runtime;
mod shared;
mod stall_watch;
mod standstill;
mod stretches;
mod summary;
mod sweep;
mod timeline;

pub use context::{busy, note, note_with, physical_now, started_at, wall_now};
pub use events::{Busy, Note};
pub use harness::{Builder, Harness};
pub use run::{Ended, Run};
pub use sweep::{Sweep, SweepFailure};

/// What traces call a harness run's model.
const KIND: &str = "tokio";
