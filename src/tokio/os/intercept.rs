//! The libc entry points through which a program reads its clocks and sleeps, defined in
//! ticklab itself so that the linker binds the program's calls here instead of to libc: std's
//! `Instant::now()`, `SystemTime::now()` and `thread::sleep`, and any library that calls libc.
//!
//! Every call from a thread outside a harness run goes straight on to libc's own function, found
//! with `dlsym(RTLD_NEXT)`; a harness thread gets the simulated machine's answer from
//! [`super::answer`]. `pthread_create` is here too: a thread the code under test starts learns
//! which run it comes from ([`super::lineage`]), so that its panic fails that run. This is the
//! only module with unsafe code in `ticklab::tokio`: the pointers libc's callers pass are read
//! and written here, and nowhere else.
//!
//! A panic must not unwind out of an `extern "C"` function: the answers are computed by code
//! that records a failure in the run instead, and should one panic all the same, the process
//! stops with a message rather than unwind into libc's caller.
//!
//! Other libc functions read the clocks through libc's internal aliases and are not seen here:
//! `ftime`, the deadlines of `pthread_cond_timedwait` and `sem_timedwait`, and the timeouts of
//! `poll`, `select` and `epoll_wait`. The book (docs/book/src/harness.md) lists them.

#![allow(unsafe_code)]

use std::ffi::{CStr, c_int, c_uint, c_void};
use std::panic::AssertUnwindSafe;
use std::sync::{OnceLock, Weak};

use libc::{clockid_t, time_t, timespec, timeval};

use super::answer::{self, Clock, RunClocks, Sleep};
use super::lineage;

const NS_PER_S: i128 = 1_000_000_000;

/// libc's own function named `name`, the next definition after this program's.
fn real<F: Copy>(slot: &OnceLock<usize>, name: &CStr) -> F {
    let address = *slot.get_or_init(|| {
        // SAFETY: `name` is NUL-terminated and RTLD_NEXT is a valid pseudo-handle.
        unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) as usize }
    });
    if address == 0 {
        // Without libc's function there is no clock at all; carrying on would give garbage.
        answer::fatal(&format!(
            "libc's {} cannot be found with dlsym(RTLD_NEXT)",
            name.to_string_lossy()
        ));
    }
    // SAFETY: `F` is the function pointer type of the libc function named `name`.
    unsafe { std::mem::transmute_copy::<usize, F>(&address) }
}

type ClockGettime = unsafe extern "C" fn(clockid_t, *mut timespec) -> c_int;
type Gettimeofday = unsafe extern "C" fn(*mut timeval, *mut c_void) -> c_int;
type Time = unsafe extern "C" fn(*mut time_t) -> time_t;
type SleepSeconds = unsafe extern "C" fn(c_uint) -> c_uint;
type Usleep = unsafe extern "C" fn(libc::useconds_t) -> c_int;
type TimespecGet = unsafe extern "C" fn(*mut timespec, c_int) -> c_int;
type Nanosleep = unsafe extern "C" fn(*const timespec, *mut timespec) -> c_int;
type ClockNanosleep =
    unsafe extern "C" fn(clockid_t, c_int, *const timespec, *mut timespec) -> c_int;

static CLOCK_GETTIME: OnceLock<usize> = OnceLock::new();
static GETTIMEOFDAY: OnceLock<usize> = OnceLock::new();
static TIME: OnceLock<usize> = OnceLock::new();
static NANOSLEEP: OnceLock<usize> = OnceLock::new();
static SLEEP: OnceLock<usize> = OnceLock::new();
static USLEEP: OnceLock<usize> = OnceLock::new();
static TIMESPEC_GET: OnceLock<usize> = OnceLock::new();
static CLOCK_NANOSLEEP: OnceLock<usize> = OnceLock::new();
static PTHREAD_CREATE: OnceLock<usize> = OnceLock::new();

/// Reads `clockid` from libc itself, whoever calls.
pub(crate) fn real_clock_ns(clockid: clockid_t) -> i128 {
    let mut now = timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let clock_gettime: ClockGettime = real(&CLOCK_GETTIME, c"clock_gettime");
    // SAFETY: `now` is a valid timespec to write.
    unsafe { clock_gettime(clockid, &mut now) };
    i128::from(now.tv_sec) * NS_PER_S + i128::from(now.tv_nsec)
}

/// What the simulated machine says `clockid` reads on this thread, if it is a harness thread.
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
fn guarded<T>(call: &str, answer: impl FnOnce() -> T) -> T {
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

/// # Safety
///
/// As libc's `clock_gettime`: `tp` is null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clock_gettime(clockid: clockid_t, tp: *mut timespec) -> c_int {
    match read(clock_of(clockid), CLOCK_GETTIME_CALL) {
        Some(ns) if !tp.is_null() => {
            // SAFETY: the caller passes a valid timespec to write.
            unsafe { tp.write(to_timespec(ns)) };
            0
        }
        _ => {
            let real: ClockGettime = real(&CLOCK_GETTIME, c"clock_gettime");
            // SAFETY: the caller's arguments, passed on as they came.
            unsafe { real(clockid, tp) }
        }
    }
}

/// # Safety
///
/// As libc's `gettimeofday`: `tv` and `tz` are null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
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
        _ => {
            let real: Gettimeofday = real(&GETTIMEOFDAY, c"gettimeofday");
            // SAFETY: the caller's arguments, passed on as they came.
            unsafe { real(tv, tz) }
        }
    }
}

/// # Safety
///
/// As libc's `time`: `t` is null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn time(t: *mut time_t) -> time_t {
    match read(Clock::Wall, "libc's time") {
        Some(ns) => {
            let seconds = ns.div_euclid(NS_PER_S) as time_t;
            if !t.is_null() {
                // SAFETY: the caller passes a valid time_t to write.
                unsafe { t.write(seconds) };
            }
            seconds
        }
        None => {
            let real: Time = real(&TIME, c"time");
            // SAFETY: the caller's argument, passed on as it came.
            unsafe { real(t) }
        }
    }
}

/// # Safety
///
/// As C11's `timespec_get`: `ts` is valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn timespec_get(ts: *mut timespec, base: c_int) -> c_int {
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
    let real: TimespecGet = real(&TIMESPEC_GET, c"timespec_get");
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { real(ts, base) }
}

/// # Safety
///
/// As libc's `nanosleep`: `req` is valid to read, `rem` null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nanosleep(req: *const timespec, rem: *mut timespec) -> c_int {
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
    let real: Nanosleep = real(&NANOSLEEP, c"nanosleep");
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { real(req, rem) }
}

/// # Safety
///
/// As libc's `clock_nanosleep`: `req` is valid to read, `rem` null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clock_nanosleep(
    clockid: clockid_t,
    flags: c_int,
    req: *const timespec,
    rem: *mut timespec,
) -> c_int {
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
                    return pass_on(clockid, flags, req, rem);
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
    pass_on(clockid, flags, req, rem)
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

/// libc's own `clock_nanosleep`, with the caller's arguments.
fn pass_on(clockid: clockid_t, flags: c_int, req: *const timespec, rem: *mut timespec) -> c_int {
    let real: ClockNanosleep = real(&CLOCK_NANOSLEEP, c"clock_nanosleep");
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { real(clockid, flags, req, rem) }
}

/// # Safety
///
/// As libc's `sleep`, which glibc implements with its own `nanosleep`, out of reach otherwise.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sleep(seconds: c_uint) -> c_uint {
    let ns = i128::from(seconds) * NS_PER_S;
    if sleep_on(Sleep::For { ns }, "libc's sleep") {
        return 0;
    }
    let real: SleepSeconds = real(&SLEEP, c"sleep");
    // SAFETY: the caller's argument, passed on as it came.
    unsafe { real(seconds) }
}

/// # Safety
///
/// As libc's `usleep`, which glibc implements with its own `nanosleep`, out of reach otherwise.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn usleep(microseconds: libc::useconds_t) -> c_int {
    let ns = i128::from(microseconds) * 1_000;
    if sleep_on(Sleep::For { ns }, "libc's usleep") {
        return 0;
    }
    let real: Usleep = real(&USLEEP, c"usleep");
    // SAFETY: the caller's argument, passed on as it came.
    unsafe { real(microseconds) }
}

type StartRoutine = extern "C" fn(*mut c_void) -> *mut c_void;
type PthreadCreate = unsafe extern "C" fn(
    *mut libc::pthread_t,
    *const libc::pthread_attr_t,
    StartRoutine,
    *mut c_void,
) -> c_int;

/// A thread that the code under test starts, and the run it comes from.
struct Start {
    routine: StartRoutine,
    arg: *mut c_void,
    run: Weak<RunClocks>,
}

/// # Safety
///
/// As libc's `pthread_create`: `thread` is valid to write, `attr` null or valid to read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pthread_create(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    routine: StartRoutine,
    arg: *mut c_void,
) -> c_int {
    let real: PthreadCreate = real(&PTHREAD_CREATE, c"pthread_create");
    let Some(run) = guarded(
        "libc's pthread_create",
        lineage::on_create::run_for_new_thread,
    ) else {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { real(thread, attr, routine, arg) };
    };
    let start = Box::into_raw(Box::new(Start { routine, arg, run }));
    // SAFETY: the caller's arguments, with a start routine that takes `start` and calls theirs.
    let created = unsafe { real(thread, attr, start_in_run, start.cast()) };
    if created != 0 {
        // SAFETY: no thread was created, so `start` is still this call's alone.
        drop(unsafe { Box::from_raw(start) });
    }
    created
}

/// The new thread's first steps: it learns its run, then runs what the caller asked for.
extern "C" fn start_in_run(start: *mut c_void) -> *mut c_void {
    // SAFETY: `pthread_create` made `start` from a box, handed to this thread alone.
    let Start { routine, arg, run } = *unsafe { Box::from_raw(start.cast::<Start>()) };
    guarded("a new thread's start", || {
        lineage::on_create::started_by(run)
    });
    routine(arg)
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
