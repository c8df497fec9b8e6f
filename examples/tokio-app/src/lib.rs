//! A small service's timing code, written as an application writes it: a heartbeat it sends to
//! its peers, a watch that declares a silent peer dead, sessions that expire, and requests with a
//! timeout and retries.
//!
//! Nothing here knows it is under test. A token bucket and a lease read `std::time::Instant` and
//! `SystemTime::now()` straight from the OS, as libraries do, and the harness brings those reads
//! inside the simulation. The older parts take the wall clock as a `Fn() -> SystemTime`
//! (`SystemTime::now` in production, `ticklab::tokio::wall_now` in tests), and the tests show
//! that both ways give the same rows.

pub mod heartbeat;
pub mod lease;
pub mod liveness;
pub mod rate_limit;
pub mod request;
pub mod sessions;

pub use heartbeat::{Beat, heartbeat};
pub use lease::Lease;
pub use liveness::{LivenessClock, watch};
pub use rate_limit::{Moment, TokenBucket};
pub use request::{GaveUp, call_with_retries};
pub use sessions::Sessions;
