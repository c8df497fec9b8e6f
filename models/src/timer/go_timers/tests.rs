use super::*;
use crate::sync::StdPrimitives;

type Timers = GoTimers<StdPrimitives, &'static str>;

fn timers(procs: usize, version: GoVersion, timeout: GoTimeout) -> Timers {
    GoTimers::new(procs, 1 << 16, TimerClock::Monotonic, version, timeout)
}

fn round(timers: &Timers, thread: &mut GoTimersThread, now_ns: i64) -> (Vec<&'static str>, Sleep) {
    let mut fired = Vec::new();
    let sleep = timers.run_round(thread, now_ns, &mut |_, payload| {
        fired.push(payload);
        now_ns
    });
    (fired, sleep)
}

/// A caller id that hashes to P `proc` of `count`.
fn caller_on(proc: usize, count: usize) -> u64 {
    (0..)
        .find(|&caller| (fmix64(caller) % count as u64) as usize == proc)
        .expect("some caller hashes to every P")
}

#[test]
fn one_p_polls_for_every_p_and_is_woken_only_for_an_earlier_timer() {
    let timers = timers(2, GoVersion::Go1_23, GoTimeout::Context);
    let (mut p0, mut p1) = (timers.new_thread_state(0), timers.new_thread_state(1));
    timers.schedule(0, 500, "on p1", caller_on(1, 2)).unwrap();
    let (_, sleep0) = round(&timers, &mut p0, 0);
    assert_eq!(sleep0.until_ns, Some(500), "p0 polls for p1's timer");
    let (_, sleep1) = round(&timers, &mut p1, 0);
    assert_eq!(sleep1.until_ns, None, "p1 parks: p0 already polls");

    let later = timers.schedule(0, 900, "later", caller_on(1, 2)).unwrap();
    assert!(!later.wake && !later.took_global_lock);
    let earlier = timers.schedule(0, 100, "earlier", caller_on(1, 2)).unwrap();
    assert!(earlier.wake);
    assert_eq!(earlier.thread, 0, "the poller is woken, not the timer's P");
    assert_ne!(timers.signals(0), sleep0.seen_signals);

    // p0 steals p1's due timers.
    let (fired, _) = round(&timers, &mut p0, 600);
    assert_eq!(fired, ["earlier", "on p1"]);
}

#[test]
fn a_stop_leaves_a_zombie_that_goes_at_the_top_or_once_zombies_pass_a_quarter() {
    let timers = timers(1, GoVersion::Go1_23, GoTimeout::Context);
    let mut p0 = timers.new_thread_state(0);
    let ids: Vec<TimerId> = (0..8)
        .map(|k| timers.schedule(0, 1_000 + k, "t", 7).unwrap().id)
        .collect();
    assert_eq!(timers.unschedule(ids[5]), Unscheduled::Cancelled);
    assert_eq!(timers.unschedule(ids[6]), Unscheduled::Cancelled);
    assert_eq!(
        timers.slots_in_use(),
        8,
        "2 zombies of 8 are not over a quarter"
    );
    assert_eq!(timers.unschedule(ids[7]), Unscheduled::Cancelled);
    timers.schedule(0, 5_000, "t", 7).unwrap();
    assert_eq!(
        timers.slots_in_use(),
        6,
        "3 zombies of 8 are: all swept at the next schedule"
    );

    assert_eq!(timers.unschedule(ids[0]), Unscheduled::Cancelled);
    let (fired, sleep) = round(&timers, &mut p0, 0);
    assert!(fired.is_empty());
    assert_eq!(timers.slots_in_use(), 5, "the zombie at the top is dropped");
    assert_eq!(sleep.until_ns, Some(1_001));
}

#[test]
fn an_abandoned_time_after_stays_until_it_fires_before_go_1_23_and_not_since() {
    for (version, held_after_answers) in [(GoVersion::Go1_22, 10), (GoVersion::Go1_23, 0)] {
        let timers = timers(1, version, GoTimeout::TimeAfter);
        let mut p0 = timers.new_thread_state(0);
        let ids: Vec<TimerId> = (0..10)
            .map(|k| timers.schedule(0, 1_000 + k, "t", 7).unwrap().id)
            .collect();
        for &id in &ids {
            assert_eq!(timers.unschedule(id), Unscheduled::Cancelled);
        }
        timers.schedule(0, 9_000, "t", 7).unwrap();
        assert_eq!(timers.slots_in_use(), held_after_answers + 1, "{version:?}");
        let (fired, sleep) = round(&timers, &mut p0, 2_000);
        assert!(
            fired.is_empty(),
            "an abandoned timer never reaches the program"
        );
        assert_eq!(sleep.until_ns, Some(9_000));
        assert_eq!(timers.slots_in_use(), 1);
    }
}

#[test]
fn a_p_whose_callback_runs_long_hands_the_other_due_timers_to_a_parked_p() {
    let timers = timers(3, GoVersion::Go1_23, GoTimeout::Context);
    let mut threads: Vec<_> = (0..3).map(|p| timers.new_thread_state(p)).collect();
    timers.schedule(0, 100, "slow", caller_on(0, 3)).unwrap();
    timers
        .schedule(0, 100, "also due", caller_on(0, 3))
        .unwrap();
    timers
        .schedule(0, 1_000_000, "later", caller_on(2, 3))
        .unwrap();
    let sleeps: Vec<Sleep> = threads
        .iter_mut()
        .map(|thread| round(&timers, thread, 0).1)
        .collect();
    assert_eq!(sleeps[0].until_ns, Some(100), "p0 polls");
    assert_eq!((sleeps[1].until_ns, sleeps[2].until_ns), (None, None));

    let mut fired = Vec::new();
    let sleep = timers.run_round(&mut threads[0], 100, &mut |_, payload| {
        fired.push(payload);
        100 + HAND_OVER_AFTER_NS + 1
    });
    assert_eq!(fired, ["slow"], "the rest waits for another P");
    assert_eq!(sleep.until_ns, None);
    assert_ne!(
        timers.signals(0),
        sleep.seen_signals,
        "p0 looks again after its callback"
    );
    let woken = timers
        .woken_by_round(&mut threads[0])
        .expect("a parked P is woken");
    assert_ne!(timers.signals(woken), sleeps[woken].seen_signals);
    let (fired, sleep) = round(&timers, &mut threads[woken], 100);
    assert_eq!(fired, ["also due"]);
    assert_eq!(
        sleep.until_ns,
        Some(1_000_000),
        "the woken P polls for the rest"
    );

    let (fired, sleep) = round(&timers, &mut threads[0], 100 + HAND_OVER_AFTER_NS + 1);
    assert!(fired.is_empty());
    assert_eq!(sleep.until_ns, None, "p0 parks: another P polls");
}

#[test]
fn quick_callbacks_keep_their_p_polling() {
    let timers = timers(2, GoVersion::Go1_23, GoTimeout::Context);
    let mut threads: Vec<_> = (0..2).map(|p| timers.new_thread_state(p)).collect();
    timers.schedule(0, 100, "quick", caller_on(1, 2)).unwrap();
    timers.schedule(0, 5_000, "later", caller_on(1, 2)).unwrap();
    round(&timers, &mut threads[0], 0);
    round(&timers, &mut threads[1], 0);
    let (fired, sleep) = round(&timers, &mut threads[0], 100);
    assert_eq!(fired, ["quick"]);
    assert_eq!(sleep.until_ns, Some(5_000));
    assert_eq!(timers.woken_by_round(&mut threads[0]), None);
}

#[test]
fn stop_frees_every_p_and_refuses_new_timers() {
    let timers = timers(2, GoVersion::Go1_23, GoTimeout::Context);
    let mut threads: Vec<_> = (0..2).map(|p| timers.new_thread_state(p)).collect();
    for caller in 0..10 {
        timers.schedule(0, 1_000, "t", caller).unwrap();
    }
    assert!(timers.stop());
    assert_eq!(
        timers.schedule(0, 1_000, "t", 0),
        Err(ScheduleError::Stopped)
    );
    for thread in &mut threads {
        assert!(round(&timers, thread, 0).1.stopped);
    }
    assert_eq!(timers.slots_in_use(), 0);
}

#[test]
fn capacity_is_one_total_across_the_ps() {
    let timers: Timers = GoTimers::new(
        4,
        3,
        TimerClock::Monotonic,
        GoVersion::Go1_23,
        GoTimeout::Context,
    );
    for caller in 0..3 {
        timers.schedule(0, 1_000, "t", caller).unwrap();
    }
    assert_eq!(timers.schedule(0, 1_000, "t", 3), Err(ScheduleError::Full));
    assert_eq!(timers.slots_in_use(), 3);
}
