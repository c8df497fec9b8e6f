//! The calls the entry points in [`super`] do not hand straight on to libc: those made while
//! some thread in the process is in a harness run, and the first call to each function, before
//! libc's is looked up. A thread outside a run goes on to libc after one more read, of its own
//! run flag; a harness thread reads or sleeps on the simulated machine through
//! [`crate::tokio::os::answer`], and goes on to libc where the machine has no answer (ticklab's
//! own reads while it holds the run's state, a clock it does not have, a null pointer).
//!
//! Each is `extern "C"`, as the entry point that calls it: Rust takes such a function never to
//! unwind (a panic in one stops the process), so the entry point can jump to it rather than call
//! it, and keeps no stack frame of its own for the calls that go straight on to libc.

#![allow(unsafe_code)]

use std::ffi::{c_int, c_uint, c_void};
use std::panic::AssertUnwindSafe;

use libc::{clockid_t, time_t, timespec, timeval};

use super::libc_fns::{
    CLOCK_GETTIME, CLOCK_NANOSLEEP, GETTIMEOFDAY, NANOSLEEP, SLEEP, TIME, TIMESPEC_GET, USLEEP,
};
use crate::tokio::os::answer::{self, Clock, Sleep};

pub(super) const NS_PER_S: i128 = 1_000_000_000;

/// C's `struct timezone`, which the libc crate leaves opaque on Linux.
#[repr(C)]
#[derive(Default)]
struct Timezone {
    minutes_west: c_int,
    dst_time: c_int,
}

/// C11's `TIME_UTC`.
const TIME_UTC: c_int = 1;

const CLOCK_GETTIME_CALL: &str =
    "libc's clock_gettime (which Instant::now and SystemTime::now call)";
const CLOCK_NANOSLEEP_CALL: &str = "libc's clock_nanosleep (which std::thread::sleep calls)";

/// What the simulated machine calls the clock `clockid`.
fn clock_of(clockid: clockid_t) -> Clock {
    match clockid {
        libc::CLOCK_MONOTONIC | libc::CLOCK_MONOTONIC_RAW | libc::CLOCK_MONOTONIC_COARSE => {
            Clock::Instant
        }
        libc::CLOCK_BOOTTIME | libc::CLOCK_BOOTTIME_ALARM => Clock::Boottime,
        libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_COARSE | libc::CLOCK_REALTIME_ALARM => {
            Clock::Wall
        }
        libc::CLOCK_TAI => Clock::Tai,
        _ => Clock::Other(clockid),
    }
}

fn to_timespec(ns: i128) -> timespec {
    timespec {
        tv_sec: ns.div_euclid(NS_PER_S) as time_t,
        tv_nsec: ns.rem_euclid(NS_PER_S) as _,
    }
}

fn from_timespec(ts: &timespec) -> Option<i128> {
    let valid = (0..NS_PER_S).contains(&i128::from(ts.tv_nsec));
    valid.then(|| i128::from(ts.tv_sec) * NS_PER_S + i128::from(ts.tv_nsec))
}

/// Runs an answer; a panic in it stops the process, as it must not unwind into libc's caller.
pub(super) fn guarded<T>(call: &str, answer: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(AssertUnwindSafe(answer)).unwrap_or_else(|_| {
        answer::fatal(&format!(
            "ticklab panicked while answering {call} (the message is above); a panic cannot \
             leave a libc call, so the process stops"
        ))
    })
}

fn read(clock: Clock, call: &str) -> Option<i128> {
    guarded(call, || answer::read(clock, call))
}

fn sleep_on(sleep: Sleep, call: &str) -> bool {
    guarded(call, || answer::sleep(sleep, call))
}

/// # Safety
///
/// As libc's `clock_gettime`: `tp` is null or valid to write.
#[cold]
pub(super) unsafe extern "C" fn clock_gettime(clockid: clockid_t, tp: *mut timespec) -> c_int {
    if !answer::in_run() {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { CLOCK_GETTIME.get()(clockid, tp) };
    }
    match read(clock_of(clockid), CLOCK_GETTIME_CALL) {
        Some(ns) if !tp.is_null() => {
            // SAFETY: the caller passes a valid timespec to write.
            unsafe { tp.write(to_timespec(ns)) };
            0
        }
        // SAFETY: the caller's arguments, passed on as they came.
        _ => unsafe { CLOCK_GETTIME.get()(clockid, tp) },
    }
}

/// # Safety
///
/// As libc's `gettimeofday`: `tv` and `tz` are null or valid to write.
#[cold]
pub(super) unsafe extern "C" fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
    if !answer::in_run() {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { GETTIMEOFDAY.get()(tv, tz) };
    }
    match read(Clock::Wall, "libc's gettimeofday") {
        Some(ns) if !tv.is_null() => {
            let now = timeval {
                tv_sec: ns.div_euclid(NS_PER_S) as time_t,
                tv_usec: (ns.rem_euclid(NS_PER_S) / 1_000) as _,
            };
            // SAFETY: the caller passes a valid timeval to write.
            unsafe { tv.write(now) };
            if !tz.is_null() {
                // As glibc does: the obsolete time zone reads as UTC.
                // SAFETY: the caller passes a valid `struct timezone` to write.
                unsafe { tz.cast::<Timezone>().write(Timezone::default()) };
            }
            0
        }
        // SAFETY: the caller's arguments, passed on as they came.
        _ => unsafe { GETTIMEOFDAY.get()(tv, tz) },
    }
}

/// # Safety
///
/// As libc's `time`: `t` is null or valid to write.
#[cold]
pub(super) unsafe extern "C" fn time(t: *mut time_t) -> time_t {
    if !answer::in_run() {
        // SAFETY: the caller's argument, passed on as it came.
        return unsafe { TIME.get()(t) };
    }
    let Some(ns) = read(Clock::Wall, "libc's time") else {
        // SAFETY: the caller's argument, passed on as it came.
        return unsafe { TIME.get()(t) };
    };
    let seconds = ns.div_euclid(NS_PER_S) as time_t;
    if !t.is_null() {
        // SAFETY: the caller passes a valid time_t to write.
        unsafe { t.write(seconds) };
    }
    seconds
}

/// # Safety
///
/// As C11's `timespec_get`: `ts` is valid to write.
#[cold]
pub(super) unsafe extern "C" fn timespec_get(ts: *mut timespec, base: c_int) -> c_int {
    if !answer::in_run() {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { TIMESPEC_GET.get()(ts, base) };
    }
    let clock = match base {
        TIME_UTC => Some(Clock::Wall),
        // C23's TIME_MONOTONIC, which glibc reads from CLOCK_MONOTONIC.
        2 => Some(Clock::Instant),
        _ => None,
    };
    if let (Some(clock), false) = (clock, ts.is_null())
        && let Some(ns) = read(clock, "libc's timespec_get")
    {
        // SAFETY: the caller passes a valid timespec to write.
        unsafe { ts.write(to_timespec(ns)) };
        return base;
    }
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { TIMESPEC_GET.get()(ts, base) }
}

/// # Safety
///
/// As libc's `nanosleep`: `req` is valid to read, `rem` null or valid to write.
#[cold]
pub(super) unsafe extern "C" fn nanosleep(req: *const timespec, rem: *mut timespec) -> c_int {
    if !answer::in_run() {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { NANOSLEEP.get()(req, rem) };
    }
    // SAFETY: the caller passes a valid timespec to read, or null.
    let asked = unsafe { req.as_ref() }.and_then(from_timespec);
    // A negative or malformed request goes on to libc, which refuses it with EINVAL.
    if let Some(ns) = asked.filter(|ns| *ns >= 0)
        && sleep_on(Sleep::For { ns }, "libc's nanosleep")
    {
        if !rem.is_null() {
            // SAFETY: the caller passes a valid timespec to write.
            unsafe { rem.write(to_timespec(0)) };
        }
        return 0;
    }
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { NANOSLEEP.get()(req, rem) }
}

/// # Safety
///
/// As libc's `clock_nanosleep`: `req` is valid to read, `rem` null or valid to write.
#[cold]
pub(super) unsafe extern "C" fn clock_nanosleep(
    clockid: clockid_t,
    flags: c_int,
    req: *const timespec,
    rem: *mut timespec,
) -> c_int {
    if !answer::in_run() {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { CLOCK_NANOSLEEP.get()(clockid, flags, req, rem) };
    }
    // SAFETY: the caller passes a valid timespec to read, or null.
    let asked = unsafe { req.as_ref() }.and_then(from_timespec);
    let absolute = flags & libc::TIMER_ABSTIME != 0;
    if let (Some(ns), Some(clock)) = (asked, sleepable(clockid))
        && (absolute || ns >= 0)
    {
        let sleep = match (absolute, clock) {
            (true, _) => Sleep::Until { clock, ns },
            // A relative sleep on boottime counts a suspend; on the others, the time the
            // process runs.
            (false, Clock::Boottime) => {
                let Some(now_ns) = read(Clock::Boottime, CLOCK_NANOSLEEP_CALL) else {
                    // SAFETY: the caller's arguments, passed on as they came.
                    return unsafe { CLOCK_NANOSLEEP.get()(clockid, flags, req, rem) };
                };
                Sleep::Until {
                    clock,
                    ns: now_ns + ns,
                }
            }
            (false, _) => Sleep::For { ns },
        };
        if sleep_on(sleep, CLOCK_NANOSLEEP_CALL) {
            if !rem.is_null() && !absolute {
                // SAFETY: the caller passes a valid timespec to write.
                unsafe { rem.write(to_timespec(0)) };
            }
            return 0;
        }
    }
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { CLOCK_NANOSLEEP.get()(clockid, flags, req, rem) }
}

/// The clocks the kernel sleeps on; any other goes on to libc, which refuses it.
fn sleepable(clockid: clockid_t) -> Option<Clock> {
    match clockid {
        libc::CLOCK_MONOTONIC => Some(Clock::Instant),
        libc::CLOCK_BOOTTIME | libc::CLOCK_BOOTTIME_ALARM => Some(Clock::Boottime),
        libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_ALARM => Some(Clock::Wall),
        libc::CLOCK_TAI => Some(Clock::Tai),
        _ => None,
    }
}

/// As libc's `sleep`, which glibc implements with its own `nanosleep`, out of reach otherwise.
#[cold]
pub(super) extern "C" fn sleep(seconds: c_uint) -> c_uint {
    if !answer::in_run() {
        // SAFETY: the caller's argument, passed on as it came.
        return unsafe { SLEEP.get()(seconds) };
    }
    let ns = i128::from(seconds) * NS_PER_S;
    if sleep_on(Sleep::For { ns }, "libc's sleep") {
        return 0;
    }
    // SAFETY: the caller's argument, passed on as it came.
    unsafe { SLEEP.get()(seconds) }
}

/// As libc's `usleep`, which glibc implements with its own `nanosleep`, out of reach otherwise.
#[cold]
pub(super) extern "C" fn usleep(microseconds: libc::useconds_t) -> c_int {
    if !answer::in_run() {
        // SAFETY: the caller's argument, passed on as it came.
        return unsafe { USLEEP.get()(microseconds) };
    }
    let ns = i128::from(microseconds) * 1_000;
    if sleep_on(Sleep::For { ns }, "libc's usleep") {
        return 0;
    }
    // SAFETY: the caller's argument, passed on as it came.
    unsafe { USLEEP.get()(microseconds) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_before_the_epoch_keeps_its_nanoseconds_positive() {
        let ts = to_timespec(-1_500_000_000);
        assert_eq!((ts.tv_sec, ts.tv_nsec), (-2, 500_000_000));
        assert_eq!(from_timespec(&ts), Some(-1_500_000_000));
    }
}
