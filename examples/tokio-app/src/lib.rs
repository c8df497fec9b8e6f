//! A small service's timing code, written as an application writes it: a heartbeat it sends to
//! its peers, a watch that declares a silent peer dead, sessions that expire, and requests with a
//! timeout and retries.
//!
//! Nothing here knows it is under test. The one seam is the wall clock: code that stamps or
//! compares wall time takes it as a `Fn() -> SystemTime`, which production passes as
//! `SystemTime::now` and the tests as `ticklab::tokio::wall_now`.

pub mod heartbeat;
pub mod liveness;
pub mod request;
pub mod sessions;

pub use heartbeat::{Beat, heartbeat};
pub use liveness::{LivenessClock, watch};
pub use request::{GaveUp, call_with_retries};
pub use sessions::Sessions;
