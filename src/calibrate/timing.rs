//! The figures of sleeping, yielding and waiting: each call timed on the monotonic clock.

use std::hint::black_box;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::stats::{Samples, per_unit};

/// The timeout whose overshoot the condvar and epoll figures measure.
const TIMEOUT: Duration = Duration::from_millis(1);

fn ns(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// How far past [`TIMEOUT`] a wait that began at `start` ended.
fn overshoot_ns(start: Instant) -> u64 {
    ns(start.elapsed().saturating_sub(TIMEOUT))
}

/// Wall time per `sched_yield()`.
pub(super) fn sched_yield(calls: u64, bar: &ProgressBar) -> io::Result<Samples> {
    let mut samples = Samples::new();
    for _ in 0..calls {
        let start = Instant::now();
        // SAFETY: sched_yield takes no arguments and touches no memory of ours.
        let result = unsafe { libc::sched_yield() };
        let elapsed = start.elapsed();
        if result != 0 {
            return Err(io::Error::last_os_error());
        }
        samples.record(ns(elapsed));
        bar.inc(1);
    }
    Ok(samples)
}

/// `nanosleep` with a zero timespec: wall time per call, and CPU time per call over each batch.
#[derive(Debug)]
pub(super) struct SleepZero {
    pub wall: Samples,
    pub cpu: Samples,
}

/// Both `nanosleep(0)` figures from the same calls, which halves the time they take. The two
/// clock reads around each call add tens of ns of CPU time to calls that take microseconds.
pub(super) fn nanosleep_zero(
    batches: u64,
    calls_per_batch: u64,
    bar: &ProgressBar,
) -> io::Result<SleepZero> {
    let zero = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let mut figures = SleepZero {
        wall: Samples::new(),
        cpu: Samples::new(),
    };
    for _ in 0..batches {
        let cpu_before_ns = thread_cpu_ns()?;
        for _ in 0..calls_per_batch {
            let start = Instant::now();
            // SAFETY: `zero` is a valid timespec that outlives the call; a null remainder is
            // allowed.
            let result = unsafe { libc::nanosleep(&zero, std::ptr::null_mut()) };
            let elapsed = start.elapsed();
            if result != 0 {
                return Err(io::Error::last_os_error());
            }
            figures.wall.record(ns(elapsed));
        }
        let cpu_ns = thread_cpu_ns()?.saturating_sub(cpu_before_ns);
        figures.cpu.record(per_unit(cpu_ns, calls_per_batch));
        bar.inc(1);
    }
    Ok(figures)
}

/// User plus system CPU time of the calling thread. `getrusage` reports whole microseconds, which
/// is why the CPU figure comes from batches rather than single calls.
fn thread_cpu_ns() -> io::Result<u64> {
    // SAFETY: rusage is integers and timevals, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage that getrusage fills in.
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let timeval_ns = |time: libc::timeval| {
        (time.tv_sec.max(0) as u64) * 1_000_000_000 + (time.tv_usec.max(0) as u64) * 1_000
    };
    Ok(timeval_ns(usage.ru_utime) + timeval_ns(usage.ru_stime))
}

/// The calling thread's timer slack, `prctl(PR_GET_TIMERSLACK)`, which threads inherit.
pub(super) fn timer_slack_ns() -> io::Result<u64> {
    // SAFETY: PR_GET_TIMERSLACK reads no arguments and returns the slack in ns.
    let slack_ns = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    u64::try_from(slack_ns).map_err(|_| io::Error::last_os_error())
}

/// Time per iteration of an empty loop, from batches: one iteration is below the clock's
/// resolution. `black_box` keeps the compiler from removing the loop.
pub(super) fn spin_iteration(batches: u64, iterations: u64, bar: &ProgressBar) -> Samples {
    let mut samples = Samples::new();
    for _ in 0..batches {
        let start = Instant::now();
        for iteration in 0..iterations {
            black_box(iteration);
        }
        samples.record(per_unit(ns(start.elapsed()), iterations));
        bar.inc(1);
    }
    samples
}

/// How late `Condvar::wait_timeout` of [`TIMEOUT`] returns when nobody signals.
pub(super) fn condvar_timeout_overshoot(waits: u64, bar: &ProgressBar) -> Samples {
    let lock = Mutex::new(());
    let condvar = Condvar::new();
    let mut samples = Samples::new();
    let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
    while samples.len() < waits {
        let start = Instant::now();
        let (returned, result) = condvar
            .wait_timeout(guard, TIMEOUT)
            .unwrap_or_else(PoisonError::into_inner);
        let overshoot_ns = overshoot_ns(start);
        guard = returned;
        // Nobody notifies, but a wait may still end early (a spurious wake-up); that is no
        // timeout, so it is not a sample.
        if result.timed_out() {
            samples.record(overshoot_ns);
            bar.inc(1);
        }
    }
    samples
}

/// What the waiting thread and the notifying one share.
#[derive(Debug, Default)]
struct Handoff {
    /// Bumped by the notifier for each wake; the waiter waits for it to change.
    round: u64,
    /// The waiter is inside (or entering) its wait for the next round.
    waiting: bool,
    done: bool,
}

fn lock(state: &Mutex<Handoff>) -> MutexGuard<'_, Handoff> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// From `notify_one` to the waiting thread running again.
pub(super) fn condvar_signal_to_wake(wakes: u64, bar: &ProgressBar) -> io::Result<Samples> {
    // Long enough for the waiter to get from the condvar's unlock into its futex wait, so that
    // each sample wakes a sleeping thread rather than one still on its way to sleep.
    const SETTLE: Duration = Duration::from_micros(50);
    let state = Mutex::new(Handoff::default());
    let wake = Condvar::new();
    let ready = Condvar::new();
    let (woke_tx, woke_rx) = mpsc::channel();
    let mut samples = Samples::new();
    thread::scope(|scope| {
        thread::Builder::new()
            .name("calibrate-waiter".to_string())
            .spawn_scoped(scope, || waiter(&state, &wake, &ready, woke_tx))?;
        for _ in 0..wakes {
            drop(
                ready
                    .wait_while(lock(&state), |handoff| !handoff.waiting)
                    .unwrap_or_else(PoisonError::into_inner),
            );
            thread::sleep(SETTLE);
            lock(&state).round += 1;
            // Notified after the lock is released, so that the waiter does not wake only to wait
            // for the mutex.
            let sent_at = Instant::now();
            wake.notify_one();
            // The channel, not the mutex, so that the notifier does not compete with the waiter
            // for the lock it is taking back.
            let Ok(woke_at) = woke_rx.recv() else {
                break;
            };
            samples.record(ns(woke_at.saturating_duration_since(sent_at)));
            bar.inc(1);
        }
        lock(&state).done = true;
        wake.notify_one();
        Ok(samples)
    })
}

fn waiter(state: &Mutex<Handoff>, wake: &Condvar, ready: &Condvar, woke: mpsc::Sender<Instant>) {
    let mut handoff = lock(state);
    loop {
        let seen = handoff.round;
        handoff.waiting = true;
        ready.notify_one();
        handoff = wake
            .wait_while(handoff, |handoff| handoff.round == seen && !handoff.done)
            .unwrap_or_else(PoisonError::into_inner);
        let woke_at = Instant::now();
        if handoff.done || woke.send(woke_at).is_err() {
            return;
        }
        handoff.waiting = false;
    }
}

/// How late `epoll_wait` on an empty epoll set returns with a [`TIMEOUT`] timeout.
pub(super) fn epoll_timeout_overshoot(waits: u64, bar: &ProgressBar) -> io::Result<Samples> {
    // SAFETY: epoll_create1 takes only flags and returns a new descriptor or -1.
    let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a new, open descriptor that nothing else owns; `epoll` closes it once.
    let epoll = unsafe { OwnedFd::from_raw_fd(fd) };
    let timeout_ms = TIMEOUT.as_millis() as libc::c_int;
    let mut events = [libc::epoll_event { events: 0, u64: 0 }];
    let mut samples = Samples::new();
    while samples.len() < waits {
        let start = Instant::now();
        // SAFETY: `events` has room for the one event `maxevents` allows, and `epoll` is open.
        let ready =
            unsafe { libc::epoll_wait(epoll.as_raw_fd(), events.as_mut_ptr(), 1, timeout_ms) };
        let overshoot_ns = overshoot_ns(start);
        match ready {
            0 => {
                samples.record(overshoot_ns);
                bar.inc(1);
            }
            // A signal cut the wait short; that is no timeout, so it is not a sample.
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            -1 => return Err(io::Error::last_os_error()),
            _ => return Err(io::Error::other("an empty epoll set reported an event")),
        }
    }
    Ok(samples)
}
