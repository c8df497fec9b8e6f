//! loom model checks of the timer designs: schedule and unschedule race the timer thread's rounds,
//! in every interleaving loom can reach within its preemption bound.
//!
//! Time stands still in these models: a timer at `DUE` is due, a timer at `FAR` never is. The
//! timer thread sleeps on the design's signal count (a futex, emulated with a loom condvar), and
//! the main thread waits for every due timer to run. A lost wake-up therefore leaves both asleep,
//! which loom reports as a deadlock.
//!
//! Invariants:
//! - every scheduled, never-cancelled due timer runs exactly once; no `FAR` timer ever runs;
//! - a timer `unschedule` reported `Cancelled` never runs;
//! - `Running` means it runs once, and `NotFound` means it ran, with the callback's work visible;
//! - after `stop`, every slot is free again (nothing leaks).
//!
//! The bounds suit CI: at most 2 preemptions, unless `LOOM_MAX_PREEMPTIONS` says otherwise
//! (`LOOM_MAX_PREEMPTIONS=3 cargo test --release --test loom` for a deeper run).

use std::sync::atomic::Ordering::Relaxed;

use loom::sync::atomic::AtomicUsize;
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;
use ticklab_models::sync::LoomPrimitives;
use ticklab_models::timer::{
    Bucketed, GlobalHeap, Hashed, Protocol, Scheduled, TimerClock, TimerDesign, TimerId,
    Unscheduled,
};

const NOW: i64 = 100;
const DUE: i64 = 100;
const FAR: i64 = 1_000_000;
/// Payloads are indices into the harness's per-timer records.
const TIMERS: usize = 3;
/// Few slots and buckets keep the state space small; two buckets still let schedulers miss each
/// other.
const SLOTS: usize = 8;
const BUCKETS: usize = 2;

fn model(check: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(check);
}

struct Harness<D> {
    timers: D,
    /// The timer threads' futex: they sleep while their signal count is unchanged.
    sleep: Mutex<()>,
    wake: Condvar,
    /// Runs so far; the main thread waits on it.
    runs: Mutex<usize>,
    ran: Condvar,
    finished: [AtomicUsize; TIMERS],
    /// The callback's own work, written relaxed: a canceller sees it only through the version's
    /// release and acquire.
    effect: [AtomicUsize; TIMERS],
}

impl<D: TimerDesign<usize> + 'static> Harness<D> {
    fn new(timers: D) -> Arc<Self> {
        Arc::new(Harness {
            timers,
            sleep: Mutex::new(()),
            wake: Condvar::new(),
            runs: Mutex::new(0),
            ran: Condvar::new(),
            finished: std::array::from_fn(|_| AtomicUsize::new(0)),
            effect: std::array::from_fn(|_| AtomicUsize::new(0)),
        })
    }

    fn timer_thread(&self, thread: usize) {
        let mut state = self.timers.new_thread_state(thread);
        loop {
            let sleep = self.timers.run_round(&mut state, NOW, &mut |_, timer| {
                self.effect[timer].store(1, Relaxed);
                self.finished[timer].fetch_add(1, Relaxed);
                *self.runs.lock().unwrap() += 1;
                self.ran.notify_all();
                NOW
            });
            if sleep.stopped {
                return;
            }
            if sleep.until_ns.is_some_and(|until| until <= NOW) {
                continue;
            }
            let mut guard = self.sleep.lock().unwrap();
            while self.timers.signals(thread) == sleep.seen_signals {
                guard = self.wake.wait(guard).unwrap();
            }
        }
    }

    /// Schedules a timer from `caller`, waking the timer threads if the design asks to.
    fn schedule(&self, deadline_ns: i64, timer: usize, caller: u64) -> TimerId {
        let scheduled: Scheduled = self
            .timers
            .schedule(deadline_ns, timer, caller)
            .expect("slots to spare");
        if scheduled.wake {
            self.wake_all();
        }
        scheduled.id
    }

    fn wake_all(&self) {
        let _guard = self.sleep.lock().unwrap();
        self.wake.notify_all();
    }

    fn wait_for_runs(&self, expected: usize) {
        let mut runs = self.runs.lock().unwrap();
        while *runs < expected {
            runs = self.ran.wait(runs).unwrap();
        }
    }

    fn stop(&self) {
        if self.timers.stop() {
            self.wake_all();
        }
    }
}

/// Runs `scenario` with `make()`'s design, its timer threads, and `stop` and the leak check at
/// the end.
fn with_timer_threads<D: TimerDesign<usize> + 'static>(
    make: fn() -> D,
    scenario: fn(&Arc<Harness<D>>),
) {
    model(move || {
        let harness = Harness::new(make());
        let threads: Vec<_> = (0..harness.timers.timer_threads())
            .map(|thread| {
                let harness = harness.clone();
                thread::spawn(move || harness.timer_thread(thread))
            })
            .collect();
        scenario(&harness);
        harness.stop();
        threads
            .into_iter()
            .for_each(|thread| thread.join().unwrap());
        assert_eq!(harness.timers.slots_in_use(), 0, "slots leaked");
    });
}

/// Two threads (the main one and another) schedule a due timer each; both run exactly once.
fn due_timers_from_two_threads<D: TimerDesign<usize> + 'static>(harness: &Arc<Harness<D>>) {
    let other = {
        let harness = harness.clone();
        thread::spawn(move || {
            harness.schedule(DUE, 1, 2);
        })
    };
    harness.schedule(DUE, 0, 1);
    other.join().unwrap();
    harness.wait_for_runs(2);
    assert_eq!(harness.finished[0].load(Relaxed), 1);
    assert_eq!(harness.finished[1].load(Relaxed), 1);
}

/// A thread schedules a due timer and cancels it at once, racing the timer thread.
fn cancel_racing_the_run<D: TimerDesign<usize> + 'static>(harness: &Arc<Harness<D>>) {
    let canceller = {
        let harness = harness.clone();
        thread::spawn(move || {
            let id = harness.schedule(DUE, 0, 1);
            let outcome = harness.timers.unschedule(id);
            if outcome == Unscheduled::NotFound {
                assert_eq!(
                    harness.effect[0].load(Relaxed),
                    1,
                    "NotFound, yet the callback's work is not visible"
                );
            }
            outcome
        })
    };
    let outcome = canceller.join().unwrap();
    let expected_runs = usize::from(outcome != Unscheduled::Cancelled);
    harness.wait_for_runs(expected_runs);
    let runs = harness.finished[0].load(Relaxed);
    assert_eq!(
        runs, expected_runs,
        "unschedule returned {outcome:?}, and the timer ran {runs} times"
    );
}

/// The timer thread goes to sleep for a far timer; an earlier one must wake it.
fn earlier_timer_wakes_the_sleeper<D: TimerDesign<usize> + 'static>(harness: &Arc<Harness<D>>) {
    harness.schedule(FAR, 2, 1);
    let early = {
        let harness = harness.clone();
        thread::spawn(move || {
            harness.schedule(DUE, 0, 2);
        })
    };
    early.join().unwrap();
    harness.wait_for_runs(1);
    assert_eq!(harness.finished[0].load(Relaxed), 1);
    assert_eq!(harness.finished[2].load(Relaxed), 0, "a far timer ran");
}

/// A cancelled far timer never runs, while another thread's due timer does.
fn cancelled_far_timer_never_runs<D: TimerDesign<usize> + 'static>(harness: &Arc<Harness<D>>) {
    let other = {
        let harness = harness.clone();
        thread::spawn(move || {
            harness.schedule(DUE, 0, 2);
        })
    };
    let far = harness.schedule(FAR, 2, 1);
    assert_eq!(harness.timers.unschedule(far), Unscheduled::Cancelled);
    other.join().unwrap();
    harness.wait_for_runs(1);
    assert_eq!(
        harness.finished[2].load(Relaxed),
        0,
        "a cancelled timer ran"
    );
}

fn bucketed<V: Protocol>() -> Bucketed<LoomPrimitives, usize, V> {
    Bucketed::new(BUCKETS, SLOTS, TimerClock::Monotonic)
}

fn global_heap() -> GlobalHeap<LoomPrimitives, usize> {
    GlobalHeap::new(SLOTS, TimerClock::Monotonic)
}

fn hashed() -> Hashed<LoomPrimitives, usize> {
    Hashed::new(2, SLOTS, TimerClock::Monotonic)
}

mod bucketed {
    use super::*;
    use ticklab_models::timer::Brpc;

    #[test]
    fn due_timers_from_two_threads_each_run_once() {
        with_timer_threads(bucketed::<Brpc>, due_timers_from_two_threads);
    }

    #[test]
    fn a_cancel_racing_the_run_agrees_with_what_happened() {
        with_timer_threads(bucketed::<Brpc>, cancel_racing_the_run);
    }

    #[test]
    fn an_earlier_timer_wakes_a_thread_sleeping_for_a_later_one() {
        with_timer_threads(bucketed::<Brpc>, earlier_timer_wakes_the_sleeper);
    }

    #[test]
    fn a_cancelled_far_timer_never_runs_and_is_freed() {
        with_timer_threads(bucketed::<Brpc>, cancelled_far_timer_never_runs);
    }
}

mod global_heap {
    use super::*;

    #[test]
    fn due_timers_from_two_threads_each_run_once() {
        with_timer_threads(global_heap, due_timers_from_two_threads);
    }

    #[test]
    fn a_cancel_racing_the_run_agrees_with_what_happened() {
        with_timer_threads(global_heap, cancel_racing_the_run);
    }

    #[test]
    fn an_earlier_timer_wakes_a_thread_sleeping_for_a_later_one() {
        with_timer_threads(global_heap, earlier_timer_wakes_the_sleeper);
    }

    #[test]
    fn a_cancelled_far_timer_never_runs_and_is_freed() {
        with_timer_threads(global_heap, cancelled_far_timer_never_runs);
    }
}

mod hashed {
    use super::*;

    #[test]
    fn due_timers_from_two_threads_each_run_once() {
        with_timer_threads(hashed, due_timers_from_two_threads);
    }

    #[test]
    fn a_cancel_racing_the_run_agrees_with_what_happened() {
        with_timer_threads(hashed, cancel_racing_the_run);
    }

    #[test]
    fn an_earlier_timer_wakes_a_thread_sleeping_for_a_later_one() {
        with_timer_threads(hashed, earlier_timer_wakes_the_sleeper);
    }

    #[test]
    fn a_cancelled_far_timer_never_runs_and_is_freed() {
        with_timer_threads(hashed, cancelled_far_timer_never_runs);
    }
}

/// Deliberately broken variants of brpc's protocol: each flips one step, and loom must catch it
/// for the reason the step exists: a lost wake-up as a deadlock, a wrong answer as the assertion
/// that checks it. A mutant that fails some other way is not caught.
///
/// loom reports a deadlock by panicking in a way that aborts the process, so each mutant's model
/// runs in a child process: the `inner` tests are ignored in normal runs and started by their
/// outer test, which reads the cause from the child's output.
mod mutants {
    use super::*;

    macro_rules! mutant {
        ($name:ident, $switch:ident) => {
            struct $name;
            impl Protocol for $name {
                const $switch: bool = false;
            }
        };
    }

    mutant!(ResetsNearestAfterDraining, RESET_NEAREST_BEFORE_DRAIN);
    mutant!(ForgetsTheSignal, SIGNAL_EARLIER_TIMERS);
    mutant!(CancelsWithoutBumpingTheVersion, CANCEL_BUMPS_VERSION);
    mutant!(SleepsWithoutCheckingTheNearest, CHECK_NEAREST_BEFORE_SLEEP);
    mutant!(FinishesWithoutRelease, RELEASE_ON_FINISH);
    mutant!(SleepsWithoutCheckingForStop, CHECK_STOP_BEFORE_SLEEP);

    /// What loom prints when every thread is blocked.
    const DEADLOCK: &str = "deadlock; threads = ";

    /// The first panic's message in a child's output: the line after `panicked at`. Later
    /// panics are loom unwinding the failed model.
    fn first_panic(output: &str) -> &str {
        let mut lines = output
            .lines()
            .skip_while(|line| !line.contains("panicked at"));
        lines.nth(1).unwrap_or("")
    }

    /// Runs `mutants::inner::<name>` in a child process and asserts that its model failed, and
    /// that its first panic names `cause`.
    fn assert_loom_catches(name: &str, cause: &str) {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &format!("mutants::inner::{name}"),
                "--ignored",
                "--test-threads=1",
            ])
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            text.contains("running 1 test"),
            "the child did not run {name}: {text}"
        );
        assert!(!output.status.success(), "loom missed {name}: {text}");
        assert!(
            first_panic(&text).contains(cause),
            "{name} failed, but not with {cause:?}: {text}"
        );
    }

    mod inner {
        use super::*;

        macro_rules! inner {
            ($name:ident, $mutant:ident, $scenario:ident) => {
                #[test]
                #[ignore = "run in a child process by its outer test"]
                fn $name() {
                    with_timer_threads(bucketed::<$mutant>, $scenario);
                }
            };
        }

        inner!(
            reset_after_drain,
            ResetsNearestAfterDraining,
            earlier_timer_wakes_the_sleeper
        );
        inner!(no_signal, ForgetsTheSignal, earlier_timer_wakes_the_sleeper);
        inner!(
            cancel_without_bump,
            CancelsWithoutBumpingTheVersion,
            cancel_racing_the_run
        );
        inner!(
            sleep_without_nearest_check,
            SleepsWithoutCheckingTheNearest,
            earlier_timer_wakes_the_sleeper
        );
        inner!(
            relaxed_finish,
            FinishesWithoutRelease,
            cancel_racing_the_run
        );
        inner!(
            sleep_without_stop_check,
            SleepsWithoutCheckingForStop,
            cancelled_far_timer_never_runs
        );
    }

    #[test]
    fn resetting_the_nearest_after_draining_loses_a_wake_up() {
        assert_loom_catches("reset_after_drain", DEADLOCK);
    }

    #[test]
    fn a_missing_signal_increment_loses_a_wake_up() {
        assert_loom_catches("no_signal", DEADLOCK);
    }

    #[test]
    fn a_cancel_that_keeps_the_version_lets_the_timer_run() {
        assert_loom_catches(
            "cancel_without_bump",
            "unschedule returned Cancelled, and the timer ran 1 times",
        );
    }

    #[test]
    fn sleeping_without_checking_the_nearest_loses_a_wake_up() {
        assert_loom_catches("sleep_without_nearest_check", DEADLOCK);
    }

    #[test]
    fn a_relaxed_finish_hides_the_callbacks_work_from_the_canceller() {
        assert_loom_catches(
            "relaxed_finish",
            "NotFound, yet the callback's work is not visible",
        );
    }

    /// brpc #2986: a stop that lands mid-round is overwritten by the next reset of the nearest
    /// deadline, and the timer thread sleeps forever while `stop` waits to join it.
    #[test]
    fn sleeping_without_checking_for_stop_hangs_the_shutdown() {
        assert_loom_catches("sleep_without_stop_check", DEADLOCK);
    }
}
