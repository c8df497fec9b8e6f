//! What the simulated machine answers when a harness thread reads an OS clock or sleeps.
//!
//! A thread belongs to a run while [`Scope`] is entered on it: the thread that calls
//! `Harness::run`, which polls every task, and the runtime's blocking-pool threads. Everything
//! else keeps the real clocks, so the test runner and other tests running beside are untouched.
//!
//! A read never touches tokio's clock: tokio reads std's `Instant` while it holds its own clock's
//! lock (in `resume`), and reading tokio's clock from here would wait on that lock for ever.
//! tokio's paused clock moves on its own only while its thread parks, and the run's timeline is
//! brought up to it as the thread unparks, so the timeline is what a read answers from.

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ticklab_sim::Compact;

use crate::tokio::context::hold;
use crate::tokio::shared::Shared;

/// A clock as the caller named it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Clock {
    /// `CLOCK_MONOTONIC` and its variants: what std's `Instant` reads on Linux, and so the
    /// simulated platform's `Instant` clock.
    Instant,
    Boottime,
    /// `CLOCK_REALTIME` and its variants: `SystemTime`.
    Wall,
    /// International Atomic Time: the wall clock plus the 37 leap seconds since 1972.
    Tai,
    /// A clock the simulated machine does not have, such as a CPU-time clock.
    Other(i32),
}

/// A sleep as the caller asked for it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sleep {
    /// For this long of running time: Linux measures a relative sleep on `CLOCK_MONOTONIC`, so it
    /// stops while the process cannot run.
    For { ns: i128 },
    /// Until `clock` reads `ns`.
    Until { clock: Clock, ns: i128 },
}

const TAI_MINUS_UTC_NS: i128 = 37_000_000_000;
/// Sleeps past the end of the run, with no await between them, before the process is stopped.
const SLEEPS_PAST_THE_END: u32 = 1_000;

/// What the simulated `CLOCK_MONOTONIC` and `CLOCK_BOOTTIME` read as a run begins: a century.
/// It is the same in every run, so that two runs of the same code read the same `Instant`s; and
/// it is past any real machine's uptime, so that a deadline the kernel takes from it (std's timed
/// waits hand the futex call one) lies in the kernel's future: such a wait lasts until it is
/// woken, and a wait nobody wakes is a standstill the stall watch names, rather than one that
/// ends at a moment unrelated to the simulation. An `Instant` taken before the run is earlier
/// than any taken in it.
const CLOCK_BASE_NS: i128 = 100 * 365 * 86_400 * 1_000_000_000;

/// The clocks of a service run's hosts, as the host whose code runs now reads them.
pub(crate) trait HostClocks: Send + Sync + std::fmt::Debug {
    /// What that host's `Instant` and boottime read (ns since the run began) and its wall clock
    /// (ns since the Unix epoch); `Err` with the reason where no host's code may read a clock.
    fn now(&self) -> Result<(u64, u64, i64), String>;
    /// Fails the run with `why`, which names what the code did: the run adds which host did it.
    fn fail(&self, why: String);
    /// Holds the thread of the host whose code runs now until `sleep` ends on its clocks; `Err`
    /// with the reason where it cannot.
    fn sleep(&self, sleep: Sleep) -> Result<(), String>;
    /// A task of the code panicked (`why` says where, and with what): it fails the run unless
    /// the run leaves task panics to tokio.
    fn panicked(&self, why: String) {
        self.fail(why);
    }
}

/// What a run's clocks read before its first instant, and the run once it exists.
#[derive(Debug)]
pub(crate) struct RunClocks {
    wall_start_ns: i64,
    pub(crate) shared: OnceLock<Arc<Shared>>,
    /// A service run's hosts, which answer in place of a harness run's state.
    pub(crate) hosts: OnceLock<Arc<dyn HostClocks>>,
    /// Why the run must fail, when it was found before the run's state existed.
    early_failure: Mutex<Option<String>>,
    /// The runtime's blocking-pool threads alive now.
    pub(crate) blocking_threads: AtomicUsize,
}

impl RunClocks {
    pub(crate) fn new(wall_start_ns: i64) -> Arc<RunClocks> {
        Arc::new(RunClocks {
            wall_start_ns,
            shared: OnceLock::new(),
            hosts: OnceLock::new(),
            early_failure: Mutex::new(None),
            blocking_threads: AtomicUsize::new(0),
        })
    }

    pub(crate) fn take_early_failure(&self) -> Option<String> {
        self.early_failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }
}

/// Which harness thread this is: sleeping means something different on each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The thread that polls every task.
    Runtime,
    /// A `spawn_blocking` thread, which runs beside the tasks and cannot move simulated time.
    Blocking,
}

/// Threads whose `IN_RUN` is set now, in the whole process. A thread that ends without leaving
/// its run stays counted, which only sends the other threads' calls the longer way.
static THREADS_IN_RUNS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread belongs to a run: read first once some thread is in a run, and
    /// needing no destructor, so that a clock read on any other thread touches nothing that must
    /// be set up or torn down.
    static IN_RUN: Cell<bool> = const { Cell::new(false) };
    static SCOPE: RefCell<Option<(Arc<RunClocks>, Role)>> = const { RefCell::new(None) };
    /// How many of ticklab's own locks on the run's state this thread holds: a clock read then
    /// comes from ticklab or tokio's internals, never from the code under test.
    static IN_HARNESS: Cell<u32> = const { Cell::new(0) };
    /// Sleeps asked for since the run ended.
    static SLEPT_PAST_THE_END: Cell<u32> = const { Cell::new(0) };
}

/// Makes this thread a harness thread of `clocks`'s run until dropped.
#[derive(Debug)]
pub(crate) struct Scope(());

impl Scope {
    pub(crate) fn enter(clocks: &Arc<RunClocks>, role: Role) -> Scope {
        enter_thread(clocks, role);
        Scope(())
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        leave_thread();
    }
}

/// Makes a blocking-pool thread a harness thread for the rest of its life, which the runtime's
/// thread hooks bound.
pub(crate) fn enter_thread(clocks: &Arc<RunClocks>, role: Role) {
    SCOPE.with_borrow_mut(|scope| *scope = Some((Arc::clone(clocks), role)));
    SLEPT_PAST_THE_END.with(|count| count.set(0));
    // Counted before the flag is set, and uncounted after it is cleared: while the flag is set,
    // this thread's own reads of the count see it.
    if !IN_RUN.get() {
        THREADS_IN_RUNS.fetch_add(1, Ordering::Relaxed);
        IN_RUN.set(true);
    }
}

pub(crate) fn leave_thread() {
    // `IN_RUN` has no destructor, so it is there to clear even as the thread's locals go.
    if IN_RUN.try_with(|in_run| in_run.replace(false)) == Ok(true) {
        THREADS_IN_RUNS.fetch_sub(1, Ordering::Relaxed);
    }
    // `try_with`: a blocking-pool thread may leave its run while its thread-locals go.
    let _ = SCOPE.try_with(|scope| {
        if let Ok(mut scope) = scope.try_borrow_mut() {
            *scope = None;
        }
    });
}

/// Marks that this thread holds the run's state, while the guard lives.
#[derive(Debug)]
pub(crate) struct InHarness(());

impl InHarness {
    pub(crate) fn enter() -> InHarness {
        IN_HARNESS.with(|depth| depth.set(depth.get() + 1));
        InHarness(())
    }
}

impl Drop for InHarness {
    fn drop(&mut self) {
        let _ = IN_HARNESS.try_with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Whether this thread holds the run's state now.
pub(crate) fn holds_state() -> bool {
    IN_HARNESS.try_with(Cell::get).unwrap_or(1) > 0
}

/// Whether any thread in the process is in a run now: all that a clock read or sleep asks
/// before going on to libc while none is, one relaxed load. A thread-local would not do as well:
/// rustc compiles a library's thread-local read as a call to `__tls_get_addr`, which the linker
/// turns into a plain read only in an executable, too late to spare the caller the stack frame
/// it keeps its arguments in across the call.
///
/// Relaxed is enough: a thread whose `IN_RUN` is set counted itself first, and a thread always
/// sees its own writes, so it never reads 0 here; another thread reading a stale count only goes
/// on to read its own flag, which is not set.
#[cfg(all(
    feature = "os-clocks",
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
))]
#[inline(always)]
pub(crate) fn any_thread_in_run() -> bool {
    THREADS_IN_RUNS.load(Ordering::Relaxed) != 0
}

/// Whether this thread is in a run: its own flag, which is set up as a constant and has no
/// destructor, so nothing is initialised or registered to read it.
#[inline(always)]
pub(crate) fn in_run() -> bool {
    IN_RUN.try_with(Cell::get).unwrap_or(false)
}

/// The run this thread belongs to, unless the call comes from ticklab's own code.
pub(super) fn current() -> Option<(Arc<RunClocks>, Role)> {
    if !in_run() || holds_state() {
        return None;
    }
    SCOPE
        .try_with(|scope| scope.try_borrow().ok().and_then(|scope| scope.clone()))
        .ok()
        .flatten()
}

/// This thread's part in a run, if it has one.
pub(crate) fn role() -> Option<Role> {
    if !in_run() {
        return None;
    }
    SCOPE
        .try_with(|scope| Some(scope.try_borrow().ok()?.as_ref()?.1))
        .ok()
        .flatten()
}

/// The run that this thread belongs to, if any: a panic here fails it.
pub(crate) fn current_run() -> Option<Arc<Shared>> {
    if !in_run() {
        return None;
    }
    SCOPE
        .try_with(|scope| {
            let scope = scope.try_borrow().ok()?;
            scope.as_ref()?.0.shared.get().cloned()
        })
        .ok()
        .flatten()
}

/// The hosts of the service run this thread belongs to, if any: a panic here fails it.
pub(crate) fn current_hosts() -> Option<Arc<dyn HostClocks>> {
    if !in_run() {
        return None;
    }
    SCOPE
        .try_with(|scope| {
            let scope = scope.try_borrow().ok()?;
            scope.as_ref()?.0.hosts.get().cloned()
        })
        .ok()
        .flatten()
}

/// Fails the run with `why`: at once if it has begun, or as it begins.
pub(crate) fn fail(clocks: &RunClocks, why: String) {
    if let Some(hosts) = clocks.hosts.get() {
        hosts.fail(why);
        return;
    }
    match clocks.shared.get() {
        Some(shared) => shared.fail(why),
        None => {
            let mut failure = clocks
                .early_failure
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            failure.get_or_insert(why);
        }
    }
}

/// Stops the process: for what no answer can make right, where a panic cannot unwind.
pub(crate) fn fatal(why: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "ticklab::tokio: {why}");
    std::process::abort()
}

/// What `clock` reads now on this thread's simulated machine, in ns; `None` for a thread outside
/// a run, whose call goes on to libc.
pub(crate) fn read(clock: Clock, call: &str) -> Option<i128> {
    let (clocks, role) = current()?;
    if let Some(hosts) = clocks.hosts.get() {
        return read_on_host(hosts.as_ref(), clock, call);
    }
    if let Some(shared) = clocks.shared.get() {
        // The runtime thread reads for the code under test only while it polls.
        let reader = match role {
            Role::Runtime => "the runtime thread",
            Role::Blocking => "a spawn_blocking thread",
        };
        shared.standstill.on_read(reader, || {
            role == Role::Blocking || shared.stretches.current().is_some()
        });
    }
    if let Clock::Other(id) = clock {
        fail(
            &clocks,
            format!(
                "the code under test called {call} on clock {id}, a clock the simulated machine \
                 does not have (a CPU-time clock, or one read through a file descriptor); it \
                 read the real clock, so the run cannot be trusted"
            ),
        );
        return None;
    }
    Some(now_on(&clocks, clock))
}

/// What `clock` reads on the service host whose code runs now.
fn read_on_host(hosts: &dyn HostClocks, clock: Clock, call: &str) -> Option<i128> {
    if let Clock::Other(id) = clock {
        hosts.fail(format!(
            "called {call} on clock {id}, a clock the simulated machine does not have (a \
             CPU-time clock, or one read through a file descriptor); it read the real clock, so \
             the run cannot be trusted"
        ));
        return None;
    }
    match hosts.now() {
        Ok((instant_ns, boot_ns, wall_ns)) => Some(reading(clock, instant_ns, boot_ns, wall_ns)),
        Err(why) => {
            hosts.fail(format!("called {call} {why}"));
            None
        }
    }
}

/// What `clock` reads now, from the run's timeline as last brought up to tokio's clock.
fn now_on(clocks: &RunClocks, clock: Clock) -> i128 {
    let Some(shared) = clocks.shared.get() else {
        return reading(clock, 0, 0, clocks.wall_start_ns);
    };
    let state = shared.lock();
    let timeline = &state.timeline;
    reading(
        clock,
        timeline.instant_ns(),
        timeline.boottime_ns(),
        timeline.wall().0,
    )
}

/// What a reading of `clock` as the OS functions give it (`ns`) is on the simulated machine:
/// `Instant` and boottime since the run began, the wall clock since the Unix epoch; `None` for a
/// clock the machine does not have.
pub(crate) fn from_clock_base_ns(clock: Clock, ns: i128) -> Option<i64> {
    let ns = match clock {
        Clock::Instant | Clock::Boottime => ns - CLOCK_BASE_NS,
        Clock::Wall => ns,
        Clock::Tai => ns - TAI_MINUS_UTC_NS,
        Clock::Other(_) => return None,
    };
    Some(i64::try_from(ns).unwrap_or(if ns < 0 { i64::MIN } else { i64::MAX }))
}

fn reading(clock: Clock, instant_ns: u64, boot_ns: u64, wall_ns: i64) -> i128 {
    match clock {
        Clock::Instant => CLOCK_BASE_NS + i128::from(instant_ns),
        Clock::Boottime => CLOCK_BASE_NS + i128::from(boot_ns),
        Clock::Wall => i128::from(wall_ns),
        Clock::Tai => i128::from(wall_ns) + TAI_MINUS_UTC_NS,
        Clock::Other(_) => unreachable!("answered by the real clock"),
    }
}

/// Sleeps on the simulated machine; `false` for a thread outside a run, whose call goes on to
/// libc, and for a sleep that must be real (the run then fails, naming it).
pub(crate) fn sleep(sleep: Sleep, call: &str) -> bool {
    let Some((clocks, role)) = current() else {
        return false;
    };
    if let Some(hosts) = clocks.hosts.get() {
        // The host's thread is held in simulated time: the call returns at once, and the host
        // runs nothing more until its clock reads the sleep's end.
        if let Err(why) = hosts.sleep(sleep) {
            hosts.fail(format!("called {call} {why}"));
        }
        return true;
    }
    let Some(shared) = clocks.shared.get().cloned() else {
        return false;
    };
    let outside = if role == Role::Blocking {
        Some(
            "on a spawn_blocking thread, which runs beside the tasks and cannot move simulated time",
        )
    } else if tokio::runtime::Handle::try_current().is_err() {
        Some("outside the runtime, where tokio's clock cannot move")
    } else if let Sleep::Until {
        clock: Clock::Other(_),
        ..
    } = sleep
    {
        Some("until a time on a clock the simulated machine does not have")
    } else {
        None
    };
    if let Some(where_) = outside {
        fail(
            &clocks,
            format!(
                "the code under test called {call} {where_}; it slept in real time, so the run \
                 cannot be trusted. Sleep with tokio::time::sleep in a task instead"
            ),
        );
        return false;
    }
    let until = match sleep {
        Sleep::For { ns } => {
            hold_or_return(&shared, ns, call);
            return true;
        }
        Sleep::Until { clock, ns } => (clock, ns),
    };
    // An absolute sleep ends when its clock reaches the time, which a suspend may bring nearer
    // and a wall step back push away: hold until the clock itself says so.
    loop {
        let now_ns = now_on(&clocks, until.0);
        if now_ns >= until.1 || !hold_or_return(&shared, until.1 - now_ns, call) {
            return true;
        }
    }
}

/// Holds the runtime thread for `ns` of running time; `false` if the run is over, when the sleep
/// returns at once so that the task may reach an await and be dropped. A task that keeps sleeping
/// past the end without awaiting would hold the thread for ever; as no panic can leave a libc
/// call, the process stops with the reason.
fn hold_or_return(shared: &Shared, ns: i128, call: &str) -> bool {
    let hold_ns = u64::try_from(ns.max(0)).unwrap_or(u64::MAX);
    let mut state = shared.lock();
    crate::tokio::context::sync(shared, &mut state);
    let Err(end_ns) = hold(shared, &mut state, hold_ns, true) else {
        return true;
    };
    drop(state);
    let past = SLEPT_PAST_THE_END.with(|count| {
        count.set(count.get() + 1);
        count.get()
    });
    if past >= SLEEPS_PAST_THE_END {
        fatal(&format!(
            "the code under test called {call} {past} times after the run ended at {} without \
             awaiting: the task would hold the runtime thread for ever",
            Compact(end_ns as i64)
        ));
    }
    false
}
