//! A token bucket, as rate-limiting crates write it: on std's `Instant`, read straight from the
//! OS. The same logic runs on tokio's `Instant` too, for comparison.

use std::ops::Add;
use std::time::Duration;

/// A point in time the bucket can read and count from.
pub trait Moment: Copy + Add<Duration, Output = Self> {
    fn now() -> Self;
    fn since(self, earlier: Self) -> Duration;
}

impl Moment for std::time::Instant {
    fn now() -> Self {
        std::time::Instant::now()
    }

    fn since(self, earlier: Self) -> Duration {
        self.saturating_duration_since(earlier)
    }
}

impl Moment for tokio::time::Instant {
    fn now() -> Self {
        tokio::time::Instant::now()
    }

    fn since(self, earlier: Self) -> Duration {
        self.saturating_duration_since(earlier)
    }
}

/// Admits a burst of up to `capacity`, refilled by one token every `refill_every`.
#[derive(Debug)]
pub struct TokenBucket<M: Moment = std::time::Instant> {
    capacity: u32,
    refill_every: Duration,
    tokens: u32,
    /// When the last token counted so far was earned.
    earned_at: M,
}

impl<M: Moment> TokenBucket<M> {
    /// A full bucket.
    pub fn new(capacity: u32, refill_every: Duration) -> Self {
        assert!(!refill_every.is_zero(), "a bucket must refill at some pace");
        TokenBucket {
            capacity,
            refill_every,
            tokens: capacity,
            earned_at: M::now(),
        }
    }

    /// Takes a token if there is one.
    pub fn try_acquire(&mut self) -> bool {
        let now = M::now();
        let earned = now.since(self.earned_at).as_nanos() / self.refill_every.as_nanos();
        if earned > 0 {
            let earned = u32::try_from(earned).unwrap_or(u32::MAX);
            self.tokens = self.tokens.saturating_add(earned).min(self.capacity);
            // A full bucket earns nothing more while it waits.
            self.earned_at = if self.tokens == self.capacity {
                now
            } else {
                self.earned_at + self.refill_every * earned
            };
        }
        if self.tokens == 0 {
            return false;
        }
        self.tokens -= 1;
        true
    }
}
