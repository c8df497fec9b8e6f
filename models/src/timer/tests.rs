use super::*;
use crate::sync::StdPrimitives;

type Payload = &'static str;

/// Runs one round at `now_ns`, collecting what fired; callbacks take no time.
fn round<D: TimerDesign<Payload>>(
    design: &D,
    state: &mut D::ThreadState,
    now_ns: i64,
) -> (Vec<Payload>, Sleep) {
    let mut fired = Vec::new();
    let sleep = design.run_round(state, now_ns, &mut |_, payload| {
        fired.push(payload);
        now_ns
    });
    (fired, sleep)
}

/// Each design, fresh, with its name.
fn designs() -> [(&'static str, AnyDesign); 3] {
    [
        (
            "global-heap",
            AnyDesign::Global(GlobalHeap::new(64, TimerClock::Monotonic)),
        ),
        (
            "bucketed",
            AnyDesign::Bucketed(Bucketed::new(13, 64, TimerClock::Monotonic)),
        ),
        (
            "hashed-1",
            AnyDesign::Hashed(Hashed::new(1, 64, TimerClock::Monotonic)),
        ),
    ]
}

/// The three designs behind one type, for tests that run on each.
enum AnyDesign {
    Global(GlobalHeap<StdPrimitives, Payload>),
    Bucketed(Bucketed<StdPrimitives, Payload>),
    Hashed(Hashed<StdPrimitives, Payload>),
}

macro_rules! on_each {
    ($design:expr, |$d:ident| $body:expr) => {
        match $design {
            AnyDesign::Global($d) => $body,
            AnyDesign::Bucketed($d) => $body,
            AnyDesign::Hashed($d) => $body,
        }
    };
}

#[test]
fn timers_run_at_their_deadline_in_order_and_never_before() {
    for (name, design) in designs() {
        on_each!(design, |timers| {
            let mut thread = timers.new_thread_state(0);
            timers.schedule(0, 300, "c", 1).unwrap();
            timers.schedule(0, 100, "a", 2).unwrap();
            timers.schedule(0, 200, "b", 3).unwrap();
            let (fired, sleep) = round(&timers, &mut thread, 99);
            assert!(fired.is_empty(), "{name}");
            assert_eq!(sleep.until_ns, Some(100), "{name}");
            let (fired, sleep) = round(&timers, &mut thread, 250);
            assert_eq!(fired, ["a", "b"], "{name}");
            assert_eq!(sleep.until_ns, Some(300), "{name}");
        });
    }
}

#[test]
fn unschedule_follows_brpc() {
    for (name, design) in designs() {
        on_each!(design, |timers| {
            let mut thread = timers.new_thread_state(0);
            let cancelled = timers.schedule(0, 100, "cancelled", 1).unwrap().id;
            let ran = timers.schedule(0, 100, "ran", 1).unwrap().id;
            assert_eq!(
                timers.unschedule(cancelled),
                Unscheduled::Cancelled,
                "{name}"
            );
            assert_eq!(
                timers.unschedule(cancelled),
                Unscheduled::NotFound,
                "{name}"
            );
            let mut running_seen = None;
            timers.run_round(&mut thread, 100, &mut |id, payload| {
                assert_eq!(payload, "ran");
                running_seen = Some(timers.unschedule(id));
                100
            });
            assert_eq!(running_seen, Some(Unscheduled::Running), "{name}");
            assert_eq!(timers.unschedule(ran), Unscheduled::NotFound, "{name}");
        });
    }
}

#[test]
fn a_stale_id_never_cancels_the_timer_that_reused_its_slot() {
    for (name, design) in designs() {
        on_each!(design, |timers| {
            let mut thread = timers.new_thread_state(0);
            let old = timers.schedule(0, 10, "old", 5).unwrap().id;
            round(&timers, &mut thread, 10);
            // Freed slots go back on the next round; schedule until one is reused.
            round(&timers, &mut thread, 10);
            let reused = (0..64)
                .map(|_| timers.schedule(0, 1_000, "new", 5).unwrap().id)
                .find(|id| id.slot() == old.slot())
                .unwrap_or_else(|| panic!("{name}: the slot was never reused"));
            assert_eq!(timers.unschedule(old), Unscheduled::NotFound, "{name}");
            assert_eq!(timers.unschedule(reused), Unscheduled::Cancelled, "{name}");
        });
    }
}

#[test]
fn a_full_design_refuses_and_a_stopped_one_frees_everything() {
    for (name, design) in designs() {
        on_each!(design, |timers| {
            let mut thread = timers.new_thread_state(0);
            // The capacity is the design's total: one caller, in one bucket or thread, can
            // hold all of it.
            let mut scheduled = 0;
            while timers.schedule(0, 1_000, "pending", 9).is_ok() {
                scheduled += 1;
            }
            assert_eq!(scheduled, 64, "{name}");
            assert_eq!(
                timers.schedule(0, 1_000, "one more", 9),
                Err(ScheduleError::Full),
                "{name}"
            );
            assert_eq!(timers.slots_in_use(), scheduled, "{name}");
            assert!(timers.stop(), "{name}");
            assert_eq!(
                timers.schedule(0, 1, "late", 9),
                Err(ScheduleError::Stopped),
                "{name}"
            );
            let (fired, sleep) = round(&timers, &mut thread, 2_000);
            assert!(fired.is_empty() && sleep.stopped, "{name}");
            assert_eq!(timers.slots_in_use(), 0, "{name}");
        });
    }
}

#[test]
fn bucketed_takes_the_global_lock_and_wakes_only_for_earlier_timers() {
    let timers: Bucketed<StdPrimitives, Payload> = Bucketed::new(13, 64, TimerClock::Wall);
    let mut thread = timers.new_thread_state(0);
    let first = timers.schedule(0, 100, "a", 1).unwrap();
    assert!(first.took_global_lock && first.wake);
    // Later in the same bucket: no global lock, no wake.
    let later = timers.schedule(0, 200, "b", 1).unwrap();
    assert!(!later.took_global_lock && !later.wake);
    // Earlier than its bucket but not than the global nearest (another bucket's): lock, no wake.
    let other_bucket = (2..100)
        .find(|caller| fmix64(*caller) % 13 != fmix64(1) % 13)
        .unwrap();
    timers.schedule(0, 150, "c", other_bucket).unwrap();
    let (_, sleep) = round(&timers, &mut thread, 0);
    assert_eq!(sleep.until_ns, Some(100));
    let beats_bucket_only = timers.schedule(0, 120, "d", other_bucket).unwrap();
    assert!(beats_bucket_only.took_global_lock && !beats_bucket_only.wake);
    let signals = timers.signals(0);
    let beats_all = timers.schedule(0, 50, "e", 1).unwrap();
    assert!(beats_all.wake);
    assert_eq!(timers.signals(0), signals + 1);
}

#[test]
fn global_heap_wakes_whenever_the_earliest_deadline_moves() {
    let timers: GlobalHeap<StdPrimitives, Payload> = GlobalHeap::new(8, TimerClock::Monotonic);
    assert!(timers.schedule(0, 100, "a", 0).unwrap().wake);
    assert!(!timers.schedule(0, 200, "b", 0).unwrap().wake);
    assert!(timers.schedule(0, 50, "c", 0).unwrap().took_global_lock);
    assert!(timers.schedule(0, 40, "d", 0).unwrap().wake);
}

#[test]
fn hashed_threads_each_run_their_own_timers() {
    let timers: Hashed<StdPrimitives, Payload> = Hashed::new(4, 64, TimerClock::Monotonic);
    let mut threads: Vec<_> = (0..4)
        .map(|thread| timers.new_thread_state(thread))
        .collect();
    let placed: Vec<Scheduled> = (0..16)
        .map(|caller| timers.schedule(0, 10, "t", caller).unwrap())
        .collect();
    let fired_per_thread: Vec<usize> = threads
        .iter_mut()
        .map(|state| round(&timers, state, 10).0.len())
        .collect();
    for (thread, fired) in fired_per_thread.iter().enumerate() {
        let expected = placed
            .iter()
            .filter(|scheduled| scheduled.thread == thread)
            .count();
        assert_eq!(*fired, expected);
    }
    assert!(
        fired_per_thread.iter().filter(|count| **count > 0).count() > 1,
        "callers spread over threads"
    );
}

/// Slots in use after cancelling, below a live top timer, more timers than the sweep's floor, then
/// scheduling as many again: `reclaim` decides whether the cancelled ones wait for their deadlines.
fn slots_after_cancelling_below_a_live_top(reclaim: Reclaim) -> usize {
    const FLOOR: usize = 4096;
    let timers: Bucketed<StdPrimitives, Payload> =
        Bucketed::with_reclaim(1, 3 * FLOOR, TimerClock::Monotonic, reclaim);
    let mut thread = timers.new_thread_state(0);
    // A live timer stays at the top, so cancelled ones below it are only reached by a sweep.
    timers.schedule(0, 1_000, "top", 1).unwrap();
    let doomed: Vec<TimerId> = (0..FLOOR as i64)
        .map(|i| timers.schedule(0, 2_000 + i, "doomed", 1).unwrap().id)
        .collect();
    round(&timers, &mut thread, 0);
    doomed
        .iter()
        .for_each(|id| assert_eq!(timers.unschedule(*id), Unscheduled::Cancelled));
    for i in 0..=FLOOR as i64 {
        timers.schedule(0, 10_000 + i, "live", 1).unwrap();
    }
    round(&timers, &mut thread, 0);
    round(&timers, &mut thread, 0);
    timers.slots_in_use()
}

#[test]
fn cancelled_timers_in_the_heap_wait_for_their_deadlines_until_the_reclaim_fix_sweeps_them() {
    // brpc #3383: the 4,096 cancelled timers hold their slots.
    assert_eq!(
        slots_after_cancelling_below_a_live_top(Reclaim::default()),
        1 + 4096 + 4097
    );
    // brpc #3384: swept once the heap doubled past the floor.
    assert_eq!(
        slots_after_cancelling_below_a_live_top(Reclaim::BRPC_DEFAULTS),
        1 + 4097
    );
}

#[test]
fn a_cancelled_timer_at_the_top_is_freed_at_its_deadline_not_before() {
    let timers: Bucketed<StdPrimitives, Payload> = Bucketed::new(1, 8, TimerClock::Monotonic);
    let mut thread = timers.new_thread_state(0);
    let id = timers.schedule(0, 1_000, "doomed", 1).unwrap().id;
    round(&timers, &mut thread, 0);
    assert_eq!(timers.unschedule(id), Unscheduled::Cancelled);
    let (fired, sleep) = round(&timers, &mut thread, 10);
    assert!(fired.is_empty());
    // The thread still sleeps until the cancelled timer's deadline, as brpc's does.
    assert_eq!(sleep.until_ns, Some(1_000));
    assert_eq!(timers.slots_in_use(), 1);
    round(&timers, &mut thread, 1_000);
    // The popped slot goes back to its bucket's pool on the thread's next drain.
    round(&timers, &mut thread, 1_001);
    assert_eq!(timers.slots_in_use(), 0);
}

#[test]
fn the_wakeup_cap_bounds_the_sleep_only_while_the_heap_holds_something() {
    let reclaim = Reclaim {
        heap_sweep_min_size: Some(4096),
        max_wakeup_interval_ns: Some(100),
    };
    let timers: Bucketed<StdPrimitives, Payload> =
        Bucketed::with_reclaim(13, 8, TimerClock::Monotonic, reclaim);
    let mut thread = timers.new_thread_state(0);
    let (_, sleep) = round(&timers, &mut thread, 0);
    assert_eq!(sleep.until_ns, None, "an empty heap waits for a schedule");
    timers.schedule(0, 1_000_000, "far", 1).unwrap();
    let (_, sleep) = round(&timers, &mut thread, 50);
    assert_eq!(sleep.until_ns, Some(150));
    let before: Bucketed<StdPrimitives, Payload> = Bucketed::new(13, 8, TimerClock::Monotonic);
    let mut thread = before.new_thread_state(0);
    before.schedule(0, 1_000_000, "far", 1).unwrap();
    let (_, sleep) = round(&before, &mut thread, 50);
    assert_eq!(sleep.until_ns, Some(1_000_000));
}

#[test]
fn a_slow_callback_lets_later_timers_run_late_in_the_same_round() {
    let timers: Bucketed<StdPrimitives, Payload> = Bucketed::new(13, 64, TimerClock::Monotonic);
    let mut thread = timers.new_thread_state(0);
    timers.schedule(0, 100, "slow", 1).unwrap();
    timers.schedule(0, 150, "next", 1).unwrap();
    let mut fired = Vec::new();
    // "next" is not due when the round starts at 100; the slow callback returns at 400.
    timers.run_round(&mut thread, 100, &mut |_, payload| {
        fired.push(payload);
        400
    });
    assert_eq!(
        fired,
        ["slow", "next"],
        "time moved on during the slow callback"
    );
}

#[test]
fn slots_freed_in_one_bucket_or_thread_serve_callers_of_another_at_capacity() {
    let designs: [(&str, AnyDesign); 2] = [
        (
            "bucketed",
            AnyDesign::Bucketed(Bucketed::new(13, 16, TimerClock::Monotonic)),
        ),
        (
            "hashed",
            AnyDesign::Hashed(Hashed::new(4, 16, TimerClock::Monotonic)),
        ),
    ];
    let other = (2..100)
        .find(|caller| fmix64(*caller) % 52 != fmix64(1) % 52)
        .unwrap();
    for (name, design) in designs {
        on_each!(design, |timers| {
            let first: Vec<Scheduled> = (0..16)
                .map(|_| timers.schedule(0, 100, "first", 1).unwrap())
                .collect();
            let mut thread = timers.new_thread_state(first[0].thread);
            assert_eq!(
                timers.schedule(0, 100, "over", other),
                Err(ScheduleError::Full)
            );
            for scheduled in &first {
                assert_eq!(timers.unschedule(scheduled.id), Unscheduled::Cancelled);
            }
            // The thread frees the cancelled slots into caller 1's bucket or heap (they go back
            // on its next turn); the other caller draws on them, though no new slot can be made.
            for _ in 0..2 {
                let (fired, _) = round(&timers, &mut thread, 0);
                assert!(fired.is_empty(), "{name}");
            }
            assert_eq!(timers.slots_in_use(), 0, "{name}");
            for _ in 0..16 {
                timers.schedule(0, 200, "second", other).unwrap();
            }
            assert_eq!(timers.slots_in_use(), 16, "{name}");
            assert_eq!(
                timers.schedule(0, 200, "over", other),
                Err(ScheduleError::Full)
            );
        });
    }
}

#[test]
fn a_design_holds_a_million_timers_without_making_slots_up_front() {
    let timers: Bucketed<StdPrimitives, u32> =
        Bucketed::new(13, MAX_CAPACITY, TimerClock::Monotonic);
    assert_eq!(timers.slots_in_use(), 0);
    for call in 0..1_000_000u32 {
        timers.schedule(0, i64::from(call), call, 7).unwrap();
    }
    assert_eq!(timers.slots_in_use(), 1_000_000);
}
