//! The libc entry points through which a program reads its clocks and sleeps, defined in
//! ticklab itself so that the linker binds the program's calls here instead of to libc: std's
//! `Instant::now()`, `SystemTime::now()` and `thread::sleep`, and any library that calls libc.
//! A binary that links ticklab with the `os-clocks` feature (a default one) exports them, so
//! every call in the process comes here, in a harness run or not.
//!
//! While no thread in the process is in a harness run, a call goes straight on to libc's own
//! function: one relaxed load of a count ([`answer::any_thread_in_run`]), one of libc's function
//! ([`libc_fns`]), and a jump, with no stack frame, no panic guard and no lock, so that a read
//! costs what it costs in a binary without ticklab (BENCHMARKS.md measures the two). Everything
//! else is out of that path, in [`inside`]: while some thread is in a run, a read of the calling
//! thread's own run flag, then libc's function or the simulated machine's answer; and the first
//! call to each function, which looks libc's up. `pthread_create` is here
//! too: a thread the code under test starts learns which run it comes from ([`super::lineage`]),
//! so that its panic fails that run. This module and its two children are the only ones with
//! unsafe code in `ticklab::tokio`: the pointers libc's callers pass are read and written here,
//! and nowhere else.
//!
//! A panic must not unwind out of an `extern "C"` function: the answers are computed by code
//! that records a failure in the run instead, and should one panic all the same, the process
//! stops with a message rather than unwind into libc's caller.
//!
//! Other libc functions read the clocks through libc's internal aliases and are not seen here:
//! `ftime`, the deadlines of `pthread_cond_timedwait` and `sem_timedwait`, and the timeouts of
//! `poll`, `select` and `epoll_wait`. The book (docs/book/src/harness.md) lists them.

#![allow(unsafe_code)]

mod inside;
mod libc_fns;

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Weak;

use libc::{clockid_t, time_t, timespec, timeval};

use super::answer::{self, RunClocks};
use super::lineage;
use inside::{NS_PER_S, guarded};
use libc_fns::{
    CLOCK_GETTIME, CLOCK_NANOSLEEP, EPOLL_WAIT, GETTIMEOFDAY, NANOSLEEP, PTHREAD_CREATE, SLEEP,
    StartRoutine, TIME, TIMESPEC_GET, USLEEP,
};

/// Reads `clockid` from libc itself, whoever calls.
pub(crate) fn real_clock_ns(clockid: clockid_t) -> i128 {
    let mut now = timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write.
    unsafe { CLOCK_GETTIME.get()(clockid, &mut now) };
    i128::from(now.tv_sec) * NS_PER_S + i128::from(now.tv_nsec)
}

/// # Safety
///
/// As libc's `clock_gettime`: `tp` is null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clock_gettime(clockid: clockid_t, tp: *mut timespec) -> c_int {
    if !answer::any_thread_in_run()
        && let Some(real) = CLOCK_GETTIME.looked_up()
    {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { real(clockid, tp) };
    }
    // SAFETY: the caller's arguments, as libc's function takes them.
    unsafe { inside::clock_gettime(clockid, tp) }
}

/// # Safety
///
/// As libc's `gettimeofday`: `tv` and `tz` are null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
    if !answer::any_thread_in_run()
        && let Some(real) = GETTIMEOFDAY.looked_up()
    {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { real(tv, tz) };
    }
    // SAFETY: the caller's arguments, as libc's function takes them.
    unsafe { inside::gettimeofday(tv, tz) }
}

/// # Safety
///
/// As libc's `time`: `t` is null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn time(t: *mut time_t) -> time_t {
    if !answer::any_thread_in_run()
        && let Some(real) = TIME.looked_up()
    {
        // SAFETY: the caller's argument, passed on as it came.
        return unsafe { real(t) };
    }
    // SAFETY: the caller's argument, as libc's function takes it.
    unsafe { inside::time(t) }
}

/// # Safety
///
/// As C11's `timespec_get`: `ts` is valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn timespec_get(ts: *mut timespec, base: c_int) -> c_int {
    if !answer::any_thread_in_run()
        && let Some(real) = TIMESPEC_GET.looked_up()
    {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { real(ts, base) };
    }
    // SAFETY: the caller's arguments, as libc's function takes them.
    unsafe { inside::timespec_get(ts, base) }
}

/// # Safety
///
/// As libc's `nanosleep`: `req` is valid to read, `rem` null or valid to write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nanosleep(req: *const timespec, rem: *mut timespec) -> c_int {
    if !answer::any_thread_in_run()
        && let Some(real) = NANOSLEEP.looked_up()
    {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { real(req, rem) };
    }
    // SAFETY: the caller's arguments, as libc's function takes them.
    unsafe { inside::nanosleep(req, rem) }
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
    if !answer::any_thread_in_run()
        && let Some(real) = CLOCK_NANOSLEEP.looked_up()
    {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { real(clockid, flags, req, rem) };
    }
    // SAFETY: the caller's arguments, as libc's function takes them.
    unsafe { inside::clock_nanosleep(clockid, flags, req, rem) }
}

/// # Safety
///
/// As libc's `sleep`, which glibc implements with its own `nanosleep`, out of reach otherwise.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sleep(seconds: c_uint) -> c_uint {
    if !answer::any_thread_in_run()
        && let Some(real) = SLEEP.looked_up()
    {
        // SAFETY: the caller's argument, passed on as it came.
        return unsafe { real(seconds) };
    }
    inside::sleep(seconds)
}

/// # Safety
///
/// As libc's `usleep`, which glibc implements with its own `nanosleep`, out of reach otherwise.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn usleep(microseconds: libc::useconds_t) -> c_int {
    if !answer::any_thread_in_run()
        && let Some(real) = USLEEP.looked_up()
    {
        // SAFETY: the caller's argument, passed on as it came.
        return unsafe { real(microseconds) };
    }
    inside::usleep(microseconds)
}

/// How long a runtime would block for its next timer: a service run steps each host's runtime
/// until it would park, and learns from the timeout when its next timer falls due.
///
/// # Safety
///
/// As libc's `epoll_wait`: `events` is valid to write `maxevents` events to.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn epoll_wait(
    epfd: c_int,
    events: *mut libc::epoll_event,
    maxevents: c_int,
    timeout_ms: c_int,
) -> c_int {
    if !answer::any_thread_in_run()
        && let Some(real) = EPOLL_WAIT.looked_up()
    {
        // SAFETY: the caller's arguments, passed on as they came.
        return unsafe { real(epfd, events, maxevents, timeout_ms) };
    }
    let timeout_ms = guarded("libc's epoll_wait", || super::park::on_wait(timeout_ms));
    // SAFETY: the caller's arguments, with the timeout the run allows.
    unsafe { EPOLL_WAIT.get()(epfd, events, maxevents, timeout_ms) }
}

/// A thread that the code under test starts, and the run it comes from.
struct Start {
    routine: StartRoutine,
    arg: *mut c_void,
    run: Weak<RunClocks>,
}

/// Not on a clock read's path, so it asks the lineage on every call: a thread outside any run may
/// still have been started by a run's code, and the threads it starts belong to that run too.
///
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
    let real = PTHREAD_CREATE.get();
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
