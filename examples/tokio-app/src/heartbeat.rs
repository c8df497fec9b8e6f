//! The heartbeat a service sends its peers every period.

use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

/// One heartbeat: its number and the sender's wall clock when it was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beat {
    pub seq: u64,
    pub sent_at: SystemTime,
}

/// Sends a beat every `period` until the receiver goes away. `behavior` is what the interval does
/// with ticks it missed: tokio's default, `Burst`, sends them all at once.
pub async fn heartbeat(
    period: Duration,
    behavior: MissedTickBehavior,
    wall: impl Fn() -> SystemTime,
    peer: mpsc::UnboundedSender<Beat>,
) {
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(behavior);
    for seq in 0.. {
        interval.tick().await;
        let beat = Beat {
            seq,
            sent_at: wall(),
        };
        if peer.send(beat).is_err() {
            return;
        }
    }
}
