//! The OS clocks and sleeps of the code under test, brought inside the simulation: on 64-bit Linux
//! with glibc, ticklab defines libc's `clock_gettime`, `gettimeofday`, `time`, `timespec_get`,
//! `nanosleep`, `clock_nanosleep`, `sleep` and `usleep` itself, so that std's `Instant`,
//! `SystemTime` and `thread::sleep`, and any
//! library calling libc, read and sleep on the simulated machine inside a harness run, and on the
//! real one everywhere else. It defines `pthread_create` too, so that a thread the code under
//! test starts is known to come from the run, and its panic fails the run.
//!
//! Elsewhere (32-bit glibc reads its clocks through `__clock_gettime64`), or without the
//! `os-clocks` feature, those calls cannot be seen, and a harness run
//! refuses to start unless told that the code reads only tokio's clock.

pub(crate) mod answer;
#[cfg(all(
    feature = "os-clocks",
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
))]
mod intercept;
pub(crate) mod lineage;
pub(crate) mod park;

use ticklab_sim::ClockId;

/// Whether this build brings the OS clocks inside a harness run.
pub(crate) const INTERCEPTED: bool = cfg!(all(
    feature = "os-clocks",
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
));

/// What the host's own `clock` reads now, in ns, from any thread.
#[cfg(all(
    feature = "os-clocks",
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
))]
pub(crate) fn real_clock_ns(clock: ClockId) -> i128 {
    intercept::real_clock_ns(match clock {
        ClockId::Monotonic => libc::CLOCK_MONOTONIC,
        ClockId::Boottime => libc::CLOCK_BOOTTIME,
        ClockId::Wall => libc::CLOCK_REALTIME,
    })
}

/// What the host's own `clock` reads now, in ns: without interception, std reads the real
/// clocks, and only differences between readings are used.
#[cfg(not(all(
    feature = "os-clocks",
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
)))]
pub(crate) fn real_clock_ns(clock: ClockId) -> i128 {
    use std::sync::OnceLock;
    use std::time::{Instant, SystemTime};
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    match clock {
        ClockId::Wall => SystemTime::UNIX_EPOCH
            .elapsed()
            .map_or(0, |since| since.as_nanos() as i128),
        _ => ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as i128,
    }
}

/// How many files this process may open (its soft limit, as `/proc/self/limits` gives it),
/// where that can be read.
pub(crate) fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    line.trim_start_matches("Max open files")
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The host's `CLOCK_MONOTONIC` now: what warnings about real time measure.
pub(crate) fn real_monotonic_ns() -> i128 {
    real_clock_ns(ClockId::Monotonic)
}

/// Makes the linker keep the definitions above: a program binds its calls to them only if the
/// object that holds them is part of the link, and a harness run is what needs them.
pub(crate) fn keep_linked() {
    #[cfg(all(
        feature = "os-clocks",
        target_os = "linux",
        target_env = "gnu",
        target_pointer_width = "64"
    ))]
    {
        std::hint::black_box(intercept::clock_gettime as *const ());
        std::hint::black_box(intercept::pthread_create as *const ());
        std::hint::black_box(intercept::epoll_wait as *const ());
    }
}

/// The functions through which the code under test reads a clock: a backtrace taken in one
/// shows the code's own frames below them.
const CLOCK_READS: [&str; 4] = ["clock_gettime", "gettimeofday", "time", "timespec_get"];

/// Whether a backtrace's frame named `name` is a clock read: libc's function as ticklab defines
/// it, or the harness thread's answer to it, which that function jumps to rather than calls, so
/// that the answer's frame stands in its place.
pub(crate) fn is_clock_read(name: &str) -> bool {
    let name = name
        .strip_prefix("ticklab::tokio::os::intercept::inside::")
        .unwrap_or(name);
    CLOCK_READS.contains(&name)
}
