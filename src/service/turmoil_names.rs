//! turmoil's free functions about time, answered from the host whose code calls them: code that
//! logs `turmoil::elapsed()` runs unchanged, and reads its own host's clocks.

use std::time::Duration;

use super::notes::on_current_host;

/// Whether the caller is a service host's code, as `turmoil::in_simulation`.
pub fn in_simulation() -> bool {
    on_current_host(|_, _| ()).is_some()
}

/// How long the calling host has been running by its own `Instant`, as `turmoil::elapsed`: it
/// stops while the host's monotonic clock stops (a system suspend, where its platform's does)
/// and runs at its crystal's rate.
///
/// # Panics
///
/// Outside a service host's code.
pub fn elapsed() -> Duration {
    on_current_host(|clockwork, host| {
        let now_ns = clockwork.reading(host).instant_ns;
        Duration::from_nanos(now_ns.saturating_sub(clockwork.start_instant_ns[host]))
    })
    .expect("ticklab::elapsed was called outside a service host's code")
}

/// Physical time since the run began, as `turmoil::sim_elapsed`; `None` outside a host's code.
pub fn sim_elapsed() -> Option<Duration> {
    on_current_host(|clockwork, _| Duration::from_nanos(clockwork.now_ns))
}

/// The calling host's wall clock, since the Unix epoch, as `turmoil::since_epoch`; `None`
/// outside a host's code, or if the host's wall clock reads before the epoch.
pub fn since_epoch() -> Option<Duration> {
    on_current_host(|clockwork, host| {
        let wall_ns = clockwork.reading(host).wall_ns;
        u64::try_from(wall_ns).ok().map(Duration::from_nanos)
    })
    .flatten()
}
