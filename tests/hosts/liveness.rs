//! What must eventually happen across hosts: every call ends, answered or timed out. A design that
//! never fires leaves calls open, and each is a broken invariant as well as a count.

use ticklab::models::sync::Primitives;
use ticklab::models::timer::{
    BuildTimerDesign, GlobalHeap, ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign,
    TimerId, TimerParams, Unscheduled,
};
use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::NoTrace;

/// A global heap whose timer thread never runs a round: every timer it holds waits for ever.
struct NeverFires<S: Primitives, P: Send>(GlobalHeap<S, P>);

impl<S: Primitives, P: Send + 'static> TimerDesign<P> for NeverFires<S, P> {
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
        _state: &mut Self::ThreadState,
        _now_ns: i64,
        _fire: &mut dyn FnMut(TimerId, P) -> i64,
    ) -> Sleep {
        Sleep {
            until_ns: None,
            seen_signals: self.0.signals(0),
            stopped: false,
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

struct NeverFiresDesign;

impl BuildTimerDesign for NeverFiresDesign {
    const NAME: &'static str = "never-fires";
    const ABOUT: &'static str = "a heap whose thread never runs its timers";
    type Design<S: Primitives, P: Send + 'static> = NeverFires<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> NeverFires<S, P> {
        NeverFires(GlobalHeap::new(params.capacity, params.clock))
    }
}

#[test]
fn a_call_that_never_ends_is_a_broken_invariant() {
    let partition =
        "[[model.partition]]\nbetween = [\"client\", \"server\"]\nat = \"1s\"\nduration = \"1s\"";
    let registry = ticklab::Registry::builtin().with_timer_design::<NeverFiresDesign>();
    let summary_of = |design: &str| {
        let rpc = format!("design = \"{design}\"\ncall_every = \"100ms\"\ntimeout = \"500ms\"");
        let scenario = registry
            .parse("never.toml", &super::rpc_pair("events", partition, &rpc))
            .unwrap_or_else(|error| panic!("{error}"));
        run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
            .unwrap()
            .summary
    };
    let broken = summary_of("never-fires");
    // The ten calls the partition leaves unanswered are never resolved.
    assert_eq!(super::value(&broken, "calls_lost"), 10);
    assert_eq!(super::value(&broken, "timeouts"), 0);
    assert_eq!(super::value(&broken, "invariant_violations"), 10);
    let heap = summary_of("global-heap");
    assert_eq!(super::value(&heap, "calls_lost"), 0);
    assert_eq!(super::value(&heap, "invariant_violations"), 0);
}

#[test]
fn a_lease_left_without_a_holder_past_its_length_a_renewal_and_a_round_trip_is_broken() {
    // node-a holds the lease and freezes at 30 s for good; node-b waits. On a monotonic lock
    // the lease runs out within 10 s and node-b takes over. A lock whose wall clock steps back a
    // minute at 31 s keeps the dead holder's lease a minute longer, with node-b able to ask the
    // whole time: the lease has no holder for over a minute.
    let freeze =
        "[[model.host.fault]]\nkind = \"process-suspend\"\nat = \"30s\"\nduration = \"90s\"";
    let step_back = "[[model.host.fault]]\nkind = \"wall-step\"\nat = \"31s\"\nby = \"-1m\"";
    let config = "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"wall\"";
    let sound = super::run(&super::lease("events", "", freeze, config));
    assert_eq!(super::value(&sound, "takeovers"), 1);
    assert!(
        super::value(&sound, "longest_without_leader") < 10 * super::S,
        "{sound:?}"
    );
    assert_eq!(super::value(&sound, "invariant_violations"), 0);
    let stepped = super::run(&super::lease("events", step_back, freeze, config));
    let longest = super::value(&stepped, "longest_without_leader");
    assert!(longest > 60 * super::S, "{longest}");
    assert_eq!(super::value(&stepped, "invariant_violations"), 1);
    // It ends when the grant reaches node-b, a millisecond after the takeover.
    assert_eq!(
        super::value(&stepped, "longest_without_leader_at") + longest,
        super::value(&stepped, "first_takeover_at") + super::MS
    );
}
