//! A request to a backend with a timeout on each attempt and a pause between attempts.

use std::future::Future;
use std::time::Duration;

/// Every attempt timed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GaveUp {
    pub attempts: u32,
}

/// Calls `call` up to `attempts` times, each given `timeout` to answer, pausing `backoff`
/// between them. Returns the first answer and the attempt (from 1) that got it.
pub async fn call_with_retries<T, Fut: Future<Output = T>>(
    attempts: u32,
    timeout: Duration,
    backoff: Duration,
    mut call: impl FnMut() -> Fut,
) -> Result<(T, u32), GaveUp> {
    for attempt in 1..=attempts {
        if let Ok(answer) = tokio::time::timeout(timeout, call()).await {
            return Ok((answer, attempt));
        }
        if attempt < attempts {
            tokio::time::sleep(backoff).await;
        }
    }
    Err(GaveUp { attempts })
}
