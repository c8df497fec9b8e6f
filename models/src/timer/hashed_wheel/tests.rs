//! The hashed wheel's own behaviour, step by step on one thread.

use super::*;
use crate::sync::StdPrimitives;

const MS: i64 = 1_000_000;

type Wheel<P> = HashedWheel<StdPrimitives, P>;

/// Wakes the worker at each deadline it sleeps until, for at most `rounds` rounds or until it
/// sleeps with no deadline, and returns what fired and when. A bound, so that a wheel whose
/// ticks stop advancing fails here rather than spinning.
fn follow<P: Send, W: WheelProtocol>(
    wheel: &HashedWheel<StdPrimitives, P, W>,
    thread: &mut HashedWheelThread,
    mut sleep: Sleep,
    rounds: usize,
) -> (Vec<(P, i64)>, Sleep) {
    let mut fired = Vec::new();
    for _ in 0..rounds {
        let Some(now_ns) = sleep.until_ns else { break };
        sleep = wheel.run_round(thread, now_ns, &mut |_, payload| {
            fired.push((payload, now_ns));
            now_ns
        });
    }
    (fired, sleep)
}

#[test]
fn a_timer_fires_at_the_end_of_the_tick_its_deadline_falls_in() {
    let wheel: HashedWheel<StdPrimitives, &str> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let idle = wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!(idle.until_ns, None, "an empty wheel sleeps until woken");
    let scheduled = wheel.schedule(0, 250 * MS, "a", 0).unwrap();
    assert!(scheduled.wake && wheel.signals(0) != idle.seen_signals);
    let mut fired = Vec::new();
    let sleep = wheel.run_round(&mut thread, 0, &mut |_, payload| {
        fired.push(payload);
        0
    });
    assert_eq!(sleep.until_ns, Some(100 * MS));
    wheel.run_round(&mut thread, 200 * MS, &mut |_, payload| {
        fired.push(payload);
        200 * MS
    });
    assert!(fired.is_empty(), "tick 2 has not ended");
    let sleep = wheel.run_round(&mut thread, 300 * MS, &mut |_, payload| {
        fired.push(payload);
        300 * MS
    });
    assert_eq!(fired, ["a"]);
    assert_eq!(sleep.until_ns, None);
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn a_timer_turns_of_the_wheel_away_waits_its_turns() {
    let wheel: HashedWheel<StdPrimitives, u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    let turn_ns = BUCKETS as i64 * TICK_NS;
    wheel.schedule(0, turn_ns + 50 * MS, 1, 0).unwrap();
    let mut fired = Vec::new();
    let mut now_ns = 0;
    while fired.is_empty() && now_ns <= 2 * turn_ns {
        now_ns += TICK_NS;
        wheel.run_round(&mut thread, now_ns, &mut |_, payload| {
            fired.push((payload, now_ns));
            now_ns
        });
    }
    assert_eq!(fired, [(1, turn_ns + TICK_NS)]);
}

#[test]
fn ticks_count_from_the_first_schedule_and_a_small_wheel_counts_turns_down() {
    let wheel: HashedWheel<StdPrimitives, u32> =
        HashedWheel::with_buckets(3, 8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let idle = wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!(idle.until_ns, None, "no tick before the first timer");
    // Four buckets (3 rounded up); the first schedule at 1,050 ms starts the ticks there,
    // and a timer 1 s away is two and a half turns out.
    wheel.schedule(1_050 * MS, 2_050 * MS, 1, 0).unwrap();
    let now_ns = 1_050 * MS;
    let sleep = wheel.run_round(&mut thread, now_ns, &mut |_, _| now_ns);
    assert_eq!(
        sleep.until_ns,
        Some(1_150 * MS),
        "the first tick ends 100 ms after it"
    );
    let (fired, sleep) = follow(&wheel, &mut thread, sleep, 20);
    assert_eq!(fired, [(1, 2_150 * MS)]);
    assert_eq!(sleep.until_ns, None, "idle once it fired its only timer");
    assert_eq!(wheel.metric("turns_counted_down"), Some(2));
    assert_eq!(wheel.metric("anything else"), None);
}

#[test]
fn a_worker_woken_after_an_idle_hour_files_its_timer_from_the_present() {
    let wheel: HashedWheel<StdPrimitives, u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.schedule(0, 50 * MS, 1, 0).unwrap();
    wheel.run_round(&mut thread, 100 * MS, &mut |_, _| 100 * MS);
    // An hour with nothing held: 36,000 ticks, seven turns of the wheel.
    let hour_ns = 3_600_000 * MS;
    wheel.schedule(hour_ns, hour_ns + 250 * MS, 2, 0).unwrap();
    let sleep = wheel.run_round(&mut thread, hour_ns, &mut |_, _| panic!("not yet due"));
    assert_eq!(
        sleep.until_ns,
        Some(hour_ns + 100 * MS),
        "the present tick's end"
    );
    let (fired, _) = follow(&wheel, &mut thread, sleep, 10);
    assert_eq!(fired, [(2, hour_ns + 300 * MS)]);
    assert_eq!(
        wheel.metric("turns_counted_down"),
        Some(0),
        "no turns to wait"
    );
}

#[test]
fn a_cancel_takes_its_timer_out_wherever_it_waits() {
    let wheel: HashedWheel<StdPrimitives, u32> = HashedWheel::new(64, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let ids: Vec<TimerId> = (0..20)
        .map(|timer| wheel.schedule(0, 150 * MS, timer, 0).unwrap().id)
        .collect();
    // Half are filed in their bucket at the first tick, then every other one is cancelled,
    // in the bucket and among later arrivals.
    wheel.run_round(&mut thread, 100 * MS, &mut |_, _| 100 * MS);
    let late: Vec<TimerId> = (20..30)
        .map(|timer| wheel.schedule(100 * MS, 150 * MS, timer, 0).unwrap().id)
        .collect();
    for id in ids.iter().chain(&late).step_by(2) {
        assert_eq!(wheel.unschedule(*id), Unscheduled::Cancelled);
    }
    let mut fired = Vec::new();
    wheel.run_round(&mut thread, 200 * MS, &mut |_, payload| {
        fired.push(payload);
        200 * MS
    });
    fired.sort_unstable();
    let kept: Vec<u32> = (0..30).filter(|timer| timer % 2 == 1).collect();
    assert_eq!(fired, kept);
    wheel.run_round(&mut thread, 300 * MS, &mut |_, _| 300 * MS);
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn a_cancelled_timer_leaves_the_wheel_at_the_next_tick_and_never_fires() {
    let wheel: HashedWheel<StdPrimitives, u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    let id = wheel.schedule(0, 50 * MS, 1, 0).unwrap().id;
    wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!(wheel.unschedule(id), Unscheduled::Cancelled);
    let sleep = wheel.run_round(&mut thread, 100 * MS, &mut |_, _| panic!("it fired"));
    assert_eq!(sleep.until_ns, None);
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn a_timer_already_due_when_the_worker_sees_it_fires_at_once() {
    let wheel: HashedWheel<StdPrimitives, u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    // The worker, idle at 930 ms, mid-tick, is woken by a timer whose deadline passed at
    // 850 ms, in a tick that has ended (its caller was held up).
    wheel.schedule(0, 0, 0, 0).unwrap();
    wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    wheel.run_round(&mut thread, 930 * MS, &mut |_, _| 930 * MS);
    wheel.schedule(930 * MS, 850 * MS, 1, 0).unwrap();
    let mut fired = Vec::new();
    let sleep = wheel.run_round(&mut thread, 930 * MS, &mut |_, payload| {
        fired.push(payload);
        930 * MS
    });
    assert_eq!(fired, [1], "not at the tick's end, 70 ms later");
    assert_eq!(sleep.until_ns, None);
}

#[test]
fn a_timer_due_at_the_start_of_the_present_tick_waits_for_its_end() {
    let wheel: Wheel<u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.schedule(0, 0, 0, 0).unwrap();
    wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    wheel.run_round(&mut thread, 930 * MS, &mut |_, _| 930 * MS);
    // Tick 9 runs from 900 ms to 1 s: a deadline at its first nanosecond is in it, one a
    // nanosecond before is in tick 8, which has ended.
    wheel.schedule(930 * MS, 900 * MS, 1, 0).unwrap();
    wheel.schedule(930 * MS, 900 * MS - 1, 2, 0).unwrap();
    let mut fired = Vec::new();
    let sleep = wheel.run_round(&mut thread, 930 * MS, &mut |_, payload| {
        fired.push(payload);
        930 * MS
    });
    assert_eq!(fired, [2]);
    assert_eq!(sleep.until_ns, Some(1_000 * MS));
    let (fired, sleep) = follow(&wheel, &mut thread, sleep, 3);
    assert_eq!(fired, [(1, 1_000 * MS)]);
    assert_eq!(sleep.until_ns, None);
}

/// Schedules far timers with payloads `0..count`, each `deadline_ns` ahead of 0.
fn far_timers(wheel: &Wheel<u32>, count: u32, deadline_ns: i64) -> Vec<TimerId> {
    (0..count)
        .map(|timer| wheel.schedule(0, deadline_ns, timer, 0).unwrap().id)
        .collect()
}

#[test]
fn a_cancel_finds_an_arrival_moved_into_a_cancelled_ones_place() {
    let wheel: Wheel<u32> = HashedWheel::new(16, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let ids = far_timers(&wheel, 8, 5_000 * MS);
    // Taken out in this order at the next round: the first arrival's place is filled by the
    // last, which is cancelled next from its new place, then the one that took that place.
    for at in [0, 7, 6] {
        assert_eq!(wheel.unschedule(ids[at]), Unscheduled::Cancelled);
    }
    let sleep = wheel.run_round(&mut thread, 0, &mut |_, _| panic!("nothing is due"));
    let (fired, sleep) = follow(&wheel, &mut thread, sleep, 60);
    let fired: Vec<(u32, i64)> = fired;
    let mut payloads: Vec<u32> = fired.iter().map(|(payload, _)| *payload).collect();
    payloads.sort_unstable();
    assert_eq!(payloads, [1, 2, 3, 4, 5]);
    assert!(
        fired.iter().all(|(_, at_ns)| *at_ns == 5_100 * MS),
        "{fired:?}"
    );
    assert_eq!(sleep.until_ns, None, "idle once its last timer fired");
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn a_cancel_finds_a_timer_moved_in_its_bucket() {
    let wheel: Wheel<u32> = HashedWheel::new(16, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let ids = far_timers(&wheel, 6, 5_000 * MS);
    // The first tick files all six in one bucket, in their order.
    let sleep = wheel.run_round(&mut thread, 100 * MS, &mut |_, _| panic!("nothing is due"));
    assert_eq!(sleep.until_ns, Some(200 * MS));
    for at in [0, 5, 4] {
        assert_eq!(wheel.unschedule(ids[at]), Unscheduled::Cancelled);
    }
    let (fired, sleep) = follow(&wheel, &mut thread, sleep, 60);
    let mut payloads: Vec<u32> = fired.iter().map(|(payload, _)| *payload).collect();
    payloads.sort_unstable();
    assert_eq!(payloads, [1, 2, 3]);
    assert_eq!(sleep.until_ns, None);
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn a_cancel_finds_a_timer_left_waiting_turns_after_its_bucket_fired() {
    // Four buckets of 100 ms: timers 0 and 2 are a turn further out than timer 1, in the same
    // bucket. The tick that fires timer 1 leaves the other two, timer 2 in a new place.
    let wheel: Wheel<u32> = HashedWheel::with_buckets(4, 8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let far = wheel.schedule(0, 450 * MS, 0, 0).unwrap().id;
    wheel.schedule(0, 50 * MS, 1, 0).unwrap();
    let moved = wheel.schedule(0, 450 * MS, 2, 0).unwrap().id;
    let mut fired = Vec::new();
    let sleep = wheel.run_round(&mut thread, 100 * MS, &mut |_, payload| {
        fired.push(payload);
        100 * MS
    });
    assert_eq!(fired, [1]);
    assert_eq!(wheel.unschedule(moved), Unscheduled::Cancelled);
    let (fired, sleep) = follow(&wheel, &mut thread, sleep, 10);
    assert_eq!(fired, [(0, 500 * MS)]);
    assert_eq!(sleep.until_ns, None);
    assert_eq!(wheel.unschedule(far), Unscheduled::NotFound);
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn a_cancel_finds_an_arrival_left_after_an_overdue_one_fired() {
    let wheel: Wheel<u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.schedule(0, 0, 0, 0).unwrap();
    wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    wheel.run_round(&mut thread, 930 * MS, &mut |_, _| 930 * MS);
    // Woken mid-tick, the worker fires the overdue arrival at once; the others wait, in new
    // places among the arrivals. The overdue timer's callback cancels one of them, which the
    // worker takes out before it looks at the arrivals again.
    let later = wheel.schedule(930 * MS, 1_500 * MS, 1, 0).unwrap().id;
    wheel.schedule(930 * MS, 850 * MS, 2, 0).unwrap();
    let moved = wheel.schedule(930 * MS, 1_500 * MS, 3, 0).unwrap().id;
    let mut fired = Vec::new();
    let sleep = wheel.run_round(&mut thread, 930 * MS, &mut |_, payload| {
        fired.push(payload);
        assert_eq!(wheel.unschedule(moved), Unscheduled::Cancelled);
        930 * MS
    });
    assert_eq!(fired, [2]);
    let (fired, sleep) = follow(&wheel, &mut thread, sleep, 10);
    assert_eq!(fired, [(1, 1_600 * MS)]);
    assert_eq!(sleep.until_ns, None);
    assert_eq!(wheel.unschedule(later), Unscheduled::NotFound);
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn a_cancel_that_wins_the_race_with_the_expiry_frees_its_slot_once_seen() {
    let wheel: Wheel<u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let ids = far_timers(&wheel, 2, 50 * MS);
    // The first callback cancels the other timer of its tick, already taken out of the wheel
    // to fire: it never runs, and its slot is freed once the worker sees the cancel.
    let mut fired = Vec::new();
    let sleep = wheel.run_round(&mut thread, 100 * MS, &mut |id, payload| {
        fired.push(payload);
        let other = if id == ids[0] { ids[1] } else { ids[0] };
        assert_eq!(wheel.unschedule(other), Unscheduled::Cancelled);
        100 * MS
    });
    assert_eq!(fired.len(), 1);
    assert_eq!(sleep.until_ns, None, "it holds nothing");
    assert_eq!(wheel.slots_in_use(), 0);
    // The wheel counts what it holds right: a new timer is ticked for and fires.
    assert!(wheel.schedule(100 * MS, 250 * MS, 7, 0).unwrap().wake);
    let sleep = wheel.run_round(&mut thread, 100 * MS, &mut |_, _| panic!("not yet due"));
    let (fired, sleep) = follow(&wheel, &mut thread, sleep, 5);
    assert_eq!(fired, [(7, 300 * MS)]);
    assert_eq!(sleep.until_ns, None);
}

#[test]
fn cancelling_every_far_timer_lets_the_worker_sleep_with_no_deadline() {
    let wheel: Wheel<u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let ids = far_timers(&wheel, 3, 5_000 * MS);
    let sleep = wheel.run_round(&mut thread, 100 * MS, &mut |_, _| panic!("nothing is due"));
    assert_eq!(
        sleep.until_ns,
        Some(200 * MS),
        "it ticks while it holds timers"
    );
    for id in ids {
        assert_eq!(wheel.unschedule(id), Unscheduled::Cancelled);
    }
    let sleep = wheel.run_round(&mut thread, 200 * MS, &mut |_, _| panic!("it fired"));
    assert_eq!(sleep.until_ns, None, "no tick for an empty wheel");
    assert_eq!(wheel.slots_in_use(), 0);
}

/// The worker's futex word moves exactly when it must: once for the schedule that finds the
/// worker idle, never while it ticks, and once for a stop.
fn signals_once_per_idle_wake<W: WheelProtocol>() {
    let wheel: HashedWheel<StdPrimitives, u32, W> =
        HashedWheel::with_buckets(BUCKETS, 8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let idle = wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!((idle.until_ns, idle.seen_signals), (None, 0));
    assert!(wheel.schedule(0, 250 * MS, 1, 0).unwrap().wake);
    assert_eq!(wheel.signals(0), 1);
    assert!(
        !wheel.schedule(0, 250 * MS, 2, 0).unwrap().wake,
        "already woken"
    );
    let ticking = wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!(ticking.until_ns, Some(100 * MS));
    assert!(!wheel.schedule(0, 250 * MS, 3, 0).unwrap().wake, "it ticks");
    assert_eq!(wheel.signals(0), 1);
    let (fired, idle) = follow(&wheel, &mut thread, ticking, 5);
    assert_eq!(fired.len(), 3);
    assert_eq!((idle.until_ns, idle.seen_signals), (None, 1));
    assert!(wheel.schedule(300 * MS, 400 * MS, 4, 0).unwrap().wake);
    assert_eq!(wheel.signals(0), 2);
    assert!(wheel.stop());
    assert_eq!(wheel.signals(0), 3, "a stop wakes the worker");
}

#[test]
fn the_worker_is_signalled_once_per_idle_wake() {
    signals_once_per_idle_wake::<Netty>();
}

/// A protocol that reads whether the worker is idle before taking the lock: on one thread it
/// sees what the lock holds, so it signals exactly as often.
struct ReadsIdleBeforeTheLock;

impl WheelProtocol for ReadsIdleBeforeTheLock {
    const READ_IDLE_UNDER_LOCK: bool = false;
}

#[test]
fn the_idle_copy_outside_the_lock_agrees_with_the_lock_on_one_thread() {
    signals_once_per_idle_wake::<ReadsIdleBeforeTheLock>();
}

#[test]
fn a_stopped_wheel_frees_every_slot_and_refuses_new_timers() {
    let wheel: Wheel<u32> = HashedWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let ids = far_timers(&wheel, 2, 5_000 * MS);
    wheel.run_round(&mut thread, 100 * MS, &mut |_, _| 0);
    wheel.schedule(100 * MS, 5_000 * MS, 2, 0).unwrap();
    assert_eq!(wheel.unschedule(ids[0]), Unscheduled::Cancelled);
    assert_eq!(wheel.slots_in_use(), 3, "two filed, one arrived");
    assert!(wheel.stop());
    assert_eq!(
        wheel.schedule(100 * MS, 200 * MS, 3, 0).unwrap_err(),
        ScheduleError::Stopped
    );
    let sleep = wheel.run_round(&mut thread, 100 * MS, &mut |_, _| panic!("it fired"));
    assert!(sleep.stopped && sleep.until_ns.is_none());
    assert_eq!(wheel.slots_in_use(), 0);
}

#[test]
fn one_worker_on_the_clock_it_was_given_says_what_it_holds() {
    let wheel: Wheel<u32> = HashedWheel::new(8, TimerClock::Wall);
    assert_eq!(wheel.timer_threads(), 1);
    assert_eq!(wheel.clock(), TimerClock::Wall);
    wheel.schedule(0, 5_000 * MS, 1, 0).unwrap();
    let shown = format!("{wheel:?}");
    assert!(
        shown.contains("HashedWheel") && shown.contains("slots: 1") && shown.contains("Wall"),
        "{shown}"
    );
}
