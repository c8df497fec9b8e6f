//! A lease holder that trusts the wall clock, as code that stores an expiry time does: the lease
//! is held while `SystemTime::now()` is before it.

use std::time::{Duration, SystemTime};

/// A lease granted until a wall-clock time.
#[derive(Debug)]
pub struct Lease<W: Fn() -> SystemTime = fn() -> SystemTime> {
    length: Duration,
    expires_at: SystemTime,
    wall: W,
}

impl Lease {
    /// A lease on the OS's wall clock, granted now for `length`.
    pub fn on_system_time(length: Duration) -> Self {
        Lease::on(length, SystemTime::now)
    }
}

impl<W: Fn() -> SystemTime> Lease<W> {
    /// A lease on the wall clock `wall` reads, granted now for `length`.
    pub fn on(length: Duration, wall: W) -> Self {
        let expires_at = wall() + length;
        Lease {
            length,
            expires_at,
            wall,
        }
    }

    /// The lease was granted again, now.
    pub fn renew(&mut self) {
        self.expires_at = (self.wall)() + self.length;
    }

    /// Whether the holder believes it still holds the lease.
    pub fn is_held(&self) -> bool {
        (self.wall)() < self.expires_at
    }
}
