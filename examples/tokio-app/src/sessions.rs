//! Sessions that expire a fixed time after they open, each on a `sleep` of its own.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

/// Open sessions. Each expires `ttl` after it opened; expired ids are sent to the receiver
/// [`Sessions::new`] returns, in the order they expire.
#[derive(Debug)]
pub struct Sessions {
    ttl: Duration,
    live: Arc<Mutex<BTreeSet<u64>>>,
    expired: mpsc::UnboundedSender<u64>,
}

impl Sessions {
    pub fn new(ttl: Duration) -> (Sessions, mpsc::UnboundedReceiver<u64>) {
        let (expired, receiver) = mpsc::unbounded_channel();
        let sessions = Sessions {
            ttl,
            live: Arc::default(),
            expired,
        };
        (sessions, receiver)
    }

    /// Opens session `id`; it expires after the ttl. Must be called inside a tokio runtime.
    pub fn open(&self, id: u64) {
        self.live.lock().expect("not poisoned").insert(id);
        let live = Arc::clone(&self.live);
        let expired = self.expired.clone();
        let ttl = self.ttl;
        tokio::spawn(async move {
            tokio::time::sleep(ttl).await;
            if live.lock().expect("not poisoned").remove(&id) {
                // Nobody listening is fine: the session is gone either way.
                let _ = expired.send(id);
            }
        });
    }

    /// Closes session `id` before it expires.
    pub fn close(&self, id: u64) -> bool {
        self.live.lock().expect("not poisoned").remove(&id)
    }

    pub fn is_live(&self, id: u64) -> bool {
        self.live.lock().expect("not poisoned").contains(&id)
    }
}
