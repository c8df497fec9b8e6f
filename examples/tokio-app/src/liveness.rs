//! Watching a peer's heartbeats, and declaring it dead once it has been silent too long.

use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::heartbeat::Beat;

/// What "silent for too long" is measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LivenessClock {
    /// The gap between the wall clock now and the last beat's `sent_at`, as a service does when
    /// beats are stored with their timestamps.
    Wall,
    /// The time since the last beat arrived, on tokio's `Instant`.
    Monotonic,
}

/// Watches `beats`, checking every `check_every`, and returns the last beat once the peer has
/// been silent for `timeout` (or `None` if it never beat and the channel closed).
pub async fn watch(
    mut beats: mpsc::UnboundedReceiver<Beat>,
    timeout: Duration,
    check_every: Duration,
    clock: LivenessClock,
    wall: impl Fn() -> SystemTime,
) -> Option<Beat> {
    let mut last: Option<(Beat, Instant)> = None;
    let mut open = true;
    let mut checks = tokio::time::interval(check_every);
    checks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        // Biased, so that a beat and a check due at once are always taken in the same order.
        tokio::select! {
            biased;
            beat = beats.recv(), if open => match beat {
                Some(beat) => last = Some((beat, Instant::now())),
                None if last.is_none() => return None,
                // The sender is gone: that is silence too, which the checks will notice.
                None => open = false,
            },
            _ = checks.tick() => {
                if let Some((beat, arrived)) = last
                    && silent_for(clock, &beat, arrived, &wall) >= timeout
                {
                    return Some(beat);
                }
            }
        }
    }
}

fn silent_for(
    clock: LivenessClock,
    beat: &Beat,
    arrived: Instant,
    wall: &impl Fn() -> SystemTime,
) -> Duration {
    match clock {
        // A wall clock stepped back puts "now" before the beat: that reads as no silence at all.
        LivenessClock::Wall => wall().duration_since(beat.sent_at).unwrap_or_default(),
        LivenessClock::Monotonic => arrived.elapsed(),
    }
}
