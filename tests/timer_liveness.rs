//! Every run holds a timer design to its promise: a design that sleeps past a due timer fails,
//! whatever it promised less than, and passes once its promise covers the lateness it has by
//! design. The planted never-waking design of `examples/sorted-vec-timer` is the other half.

use ticklab::models::sync::Primitives;
use ticklab::models::timer::{
    BuildTimerDesign, GlobalHeap, Hashed, Promise, ScheduleError, Scheduled, Sleep, TimerClock,
    TimerDesign, TimerId, TimerParams, Unscheduled,
};
use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::NoTrace;

/// A global heap whose thread sleeps `EXTRA_NS` past its earliest deadline: a wake computed a
/// level too coarse.
struct SleepsLate<S: Primitives, P: Send, const EXTRA_NS: i64>(GlobalHeap<S, P>);

impl<S: Primitives, P: Send + 'static, const EXTRA_NS: i64> TimerDesign<P>
    for SleepsLate<S, P, EXTRA_NS>
{
    type ThreadState = <GlobalHeap<S, P> as TimerDesign<P>>::ThreadState;

    fn clock(&self) -> TimerClock {
        self.0.clock()
    }

    fn timer_threads(&self) -> usize {
        self.0.timer_threads()
    }

    fn new_thread_state(&self, thread: usize) -> Self::ThreadState {
        self.0.new_thread_state(thread)
    }

    fn schedule(
        &self,
        now_ns: i64,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        self.0.schedule(now_ns, deadline_ns, payload, caller)
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.0.unschedule(id)
    }

    fn run_round(
        &self,
        state: &mut Self::ThreadState,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        let sleep = self.0.run_round(state, now_ns, fire);
        Sleep {
            until_ns: sleep.until_ns.map(|until_ns| until_ns + EXTRA_NS),
            ..sleep
        }
    }

    fn signals(&self, thread: usize) -> u64 {
        self.0.signals(thread)
    }

    fn stop(&self) -> bool {
        self.0.stop()
    }

    fn slots_in_use(&self) -> usize {
        self.0.slots_in_use()
    }
}

const MS: i64 = 1_000_000;

/// Sleeps 5 ms late and says it fires at its deadline.
struct LateButExact;

impl BuildTimerDesign for LateButExact {
    const NAME: &'static str = "late-but-exact";
    const ABOUT: &'static str = "a heap that sleeps 5 ms past its deadlines, promising none";
    type Design<S: Primitives, P: Send + 'static> = SleepsLate<S, P, { 5 * MS }>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Self::Design<S, P> {
        SleepsLate(GlobalHeap::new(params.capacity, params.clock))
    }
}

/// Sleeps 5 ms late and says so.
struct LateAndSaysSo;

impl BuildTimerDesign for LateAndSaysSo {
    const NAME: &'static str = "late-and-says-so";
    const ABOUT: &'static str = "a heap that sleeps 5 ms past its deadlines, promising 5 ms";
    const PROMISE: Promise = Promise::Within {
        late_ns: 5 * MS as u64,
    };
    type Design<S: Primitives, P: Send + 'static> = SleepsLate<S, P, { 5 * MS }>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Self::Design<S, P> {
        SleepsLate(GlobalHeap::new(params.capacity, params.clock))
    }
}

/// Timeouts that fall due: half the responses come after the 100 ms timeout.
fn rpc(design: &str) -> String {
    format!(
        r#"
        about = "{design} under timeouts that fall due"
        platform = "linux"
        seed = 1
        run_for = "10s"
        [model]
        kind = "timer"
        design = "{design}"
        clock = "monotonic"
        clients = 10
        call_interval = "50ms"
        timeout = "100ms"
        latency = ["50ms", "150ms"]
        "#
    )
}

fn summary_of(design: &str) -> ticklab::trace::Summary {
    let registry = ticklab::Registry::builtin()
        .with_timer_design::<LateButExact>()
        .with_timer_design::<LateAndSaysSo>();
    let scenario = registry.parse("liveness.toml", &rpc(design)).unwrap();
    run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary
}

#[test]
fn a_design_that_sleeps_past_its_deadlines_misses_them_against_an_exact_promise() {
    let summary = summary_of("late-but-exact");
    let timeouts = summary.get("timeouts").unwrap();
    assert!(timeouts > 50, "{summary:?}");
    // Every fire is late, and so is every timer a response cancelled in the 5 ms it overslept.
    assert_eq!(summary.get("postponed"), Some(timeouts));
    let missed = summary.get("missed").unwrap();
    assert!(missed > timeouts, "{summary:?}");
    assert_eq!(summary.get("invariant_violations"), Some(missed));
    assert_eq!(summary.get("lost"), Some(missed));
}

#[test]
fn the_same_lateness_passes_once_the_design_promises_it() {
    let summary = summary_of("late-and-says-so");
    assert!(summary.get("timeouts").unwrap() > 50, "{summary:?}");
    assert_eq!(summary.get("missed"), Some(0), "{summary:?}");
    assert_eq!(summary.get("invariant_violations"), Some(0));
    assert_eq!(summary.get("postponed"), Some(0), "{summary:?}");
}

#[test]
fn a_correct_heap_misses_nothing_under_the_same_load() {
    let summary = summary_of("global-heap");
    assert_eq!(summary.get("missed"), Some(0), "{summary:?}");
    assert_eq!(summary.get("lost"), Some(0), "{summary:?}");
}

/// Two hashed heaps whose second thread never runs its timers: a lost wake-up on one thread.
struct SecondThreadDeaf<S: Primitives, P: Send>(Hashed<S, P>);

impl<S: Primitives, P: Send + 'static> TimerDesign<P> for SecondThreadDeaf<S, P> {
    type ThreadState = (usize, <Hashed<S, P> as TimerDesign<P>>::ThreadState);

    fn clock(&self) -> TimerClock {
        self.0.clock()
    }

    fn timer_threads(&self) -> usize {
        self.0.timer_threads()
    }

    fn new_thread_state(&self, thread: usize) -> Self::ThreadState {
        (thread, self.0.new_thread_state(thread))
    }

    fn schedule(
        &self,
        now_ns: i64,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        self.0.schedule(now_ns, deadline_ns, payload, caller)
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.0.unschedule(id)
    }

    fn run_round(
        &self,
        (thread, state): &mut Self::ThreadState,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        if *thread == 1 {
            return Sleep {
                until_ns: None,
                seen_signals: self.0.signals(1),
                stopped: false,
            };
        }
        self.0.run_round(state, now_ns, fire)
    }

    fn signals(&self, thread: usize) -> u64 {
        self.0.signals(thread)
    }

    fn stop(&self) -> bool {
        self.0.stop()
    }

    fn slots_in_use(&self) -> usize {
        self.0.slots_in_use()
    }
}

struct SecondThreadDeafDesign;

impl BuildTimerDesign for SecondThreadDeafDesign {
    const NAME: &'static str = "second-thread-deaf";
    const ABOUT: &'static str = "two hashed heaps whose second thread never runs its timers";
    type Design<S: Primitives, P: Send + 'static> = SecondThreadDeaf<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> Self::Design<S, P> {
        SecondThreadDeaf(Hashed::new(2, params.capacity, params.clock))
    }
}

#[test]
fn a_thread_kept_busy_does_not_excuse_another_thread_that_never_wakes() {
    let registry = ticklab::Registry::builtin().with_timer_design::<SecondThreadDeafDesign>();
    // Every callback of the first thread takes 2 s, so it is nearly always busy.
    let text = format!(
        "{}\nslow_callback_every = 1\nslow_callback_cost = \"2s\"\n",
        rpc("second-thread-deaf")
    );
    let scenario = registry.parse("deaf.toml", &text).unwrap();
    let summary = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary;
    let missed = summary.get("missed").unwrap();
    assert!(missed > 50, "{summary:?}");
    assert_eq!(summary.get("invariant_violations"), Some(missed));
}
