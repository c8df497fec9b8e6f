//! A small distributed service, as its authors would write it on tokio and turmoil's network
//! types: a heartbeat failure detector, and a lock service whose leases expire, with clients that
//! write to storage under a lease, with or without fencing tokens.
//!
//! The code picks its network in one place, [`net`]: ticklab's, with turmoil's API. Its tests
//! run it on hosts with clocks and faults of their own (`tests/`).

pub mod heartbeat;
pub mod lock;

/// The network the service runs on: turmoil's types, as ticklab simulates them.
pub use ticklab::service::net;
