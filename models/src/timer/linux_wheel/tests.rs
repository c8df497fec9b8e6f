use super::base::{
    LVL_DEPTH, TimerBase, WHEEL_TIMEOUT_CUTOFF, calc_wheel_index, lvl_gran, lvl_start,
};
use super::*;
use crate::sync::StdPrimitives;

const MS: i64 = 1_000_000;

type Wheel<V = Linux> = LinuxWheel<StdPrimitives, u32, V>;

/// Runs rounds from `now_ns`, each at the time the last one asked to sleep until, until one
/// fires something or the thread would sleep for ever: what fired, and when.
fn fire_from<V: KernelProtocol>(
    wheel: &Wheel<V>,
    thread: &mut LinuxWheelThread<u32>,
    mut now_ns: i64,
) -> Option<(Vec<u32>, i64)> {
    for _ in 0..64 {
        let mut fired = Vec::new();
        let sleep = wheel.run_round(thread, now_ns, &mut |_, payload| {
            fired.push(payload);
            now_ns
        });
        if !fired.is_empty() {
            return Some((fired, now_ns));
        }
        now_ns = sleep.until_ns?;
    }
    panic!("no timer fired in 64 rounds");
}

/// When a lone timer armed at `now_ns` for `deadline_ns` fires, on a base that has caught up
/// with `now_ns`.
fn fires_at(now_ns: i64, deadline_ns: i64) -> i64 {
    let wheel: Wheel = LinuxWheel::new(4, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let idle = wheel.run_round(&mut thread, now_ns, &mut |_, _| now_ns);
    assert_eq!(idle.until_ns, None);
    let scheduled = wheel.schedule(now_ns, deadline_ns, 7, 0).unwrap();
    assert!(scheduled.wake, "a lone timer wakes the idle thread");
    let (fired, at_ns) = fire_from(&wheel, &mut thread, now_ns).expect("it fires");
    assert_eq!(fired, [7]);
    at_ns
}

#[test]
fn each_level_files_from_its_start_with_its_granularity() {
    // The kernel's table at HZ=1000: level 1 from 63 jiffies in 8 ms granules, level 2 from
    // 504 in 64 ms ones, level 8 from about 1.2 days in 4.6 h ones.
    let starts: Vec<u64> = (1..=LVL_DEPTH).map(lvl_start).collect();
    assert_eq!(starts[..3], [63, 504, 4032], "LVL_START(n) = 63 << 3(n-1)");
    assert_eq!(WHEEL_TIMEOUT_CUTOFF, 63 << 24);
    for level in 0..LVL_DEPTH {
        let first = if level == 0 { 0 } else { lvl_start(level) };
        let clk = 1_000_003;
        let (index, bucket_expiry) = calc_wheel_index(clk + first, clk);
        assert_eq!(index / 64, level, "distance {first} is on level {level}");
        let late = bucket_expiry - (clk + first);
        assert!(
            (1..=lvl_gran(level)).contains(&late),
            "level {level} rounds up by 1 to {} jiffies, not {late}",
            lvl_gran(level)
        );
        if level + 1 < LVL_DEPTH {
            let (index, _) = calc_wheel_index(clk + lvl_start(level + 1) - 1, clk);
            assert_eq!(index / 64, level, "its last distance is on it too");
        }
    }
    let (index, bucket_expiry) = calc_wheel_index(5, 9);
    assert_eq!(
        (index, bucket_expiry),
        (9, 9),
        "a timer already past goes to the clock"
    );
}

/// The promise, checked at every level's start and end and at random between: no sampled
/// timer fires early or past it, and some come within a hair of it, so that it is not loose.
/// An eighth of the timeout, as the promise was once given, is broken at level 1's bottom.
#[test]
fn the_promise_holds_at_every_level_and_is_tight() {
    let mut samples = Vec::new();
    for level in 1..LVL_DEPTH {
        for edge in [
            lvl_start(level),
            lvl_start(level + 1).min(WHEEL_TIMEOUT_CUTOFF),
        ] {
            for jiffies in edge.saturating_sub(3)..edge + 3 {
                for fraction in [0, 1, MS / 2, MS - 2, MS - 1] {
                    samples.push(jiffies as i64 * MS - fraction);
                }
            }
        }
    }
    // A fixed linear congruential sequence: the same timeouts every run.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 11
    };
    for _ in 0..10_000 {
        let level = 1 + (next() % (LVL_DEPTH as u64 - 1)) as usize;
        let span_ns = (lvl_start(level + 1) - lvl_start(level)) as i64 * MS;
        samples.push(lvl_start(level) as i64 * MS + (next() as i64 % span_ns));
    }
    samples.extend((1..=70).map(|jiffies| jiffies * MS + 1));
    let (mut worst_ppm, mut over_an_eighth, mut checked) = (0u64, 0u32, 0u32);
    for timeout_ns in samples {
        if timeout_ns <= 0 || timeout_ns as u64 >= WHEEL_TIMEOUT_CUTOFF * MS as u64 - 4 * MS as u64
        {
            continue;
        }
        // Two jiffies to arm in, one putting level 1's bottom on a multiple of its granule, and
        // at four points of each.
        let nows =
            [5_000 * MS, 5_001 * MS].map(|jiffy| [0, 1, MS / 2, MS - 1].map(|at| jiffy + at));
        for now_ns in nows.into_iter().flatten() {
            let late_ns = fires_at(now_ns, now_ns + timeout_ns) - (now_ns + timeout_ns);
            assert!(late_ns >= 0, "a {timeout_ns} ns timeout fired early");
            let allowed_ns = LINUX_WHEEL_PROMISE.late_ns(timeout_ns as u64);
            assert!(
                late_ns as u64 <= allowed_ns,
                "a {timeout_ns} ns timeout armed at {now_ns} fired {late_ns} ns late, past \
                 the promised {allowed_ns}"
            );
            if timeout_ns >= 61 * MS {
                worst_ppm = worst_ppm.max(late_ns as u64 * 1_000_000 / timeout_ns as u64);
                over_an_eighth += u32::from(late_ns as u64 * 8 > timeout_ns as u64);
            }
            checked += 1;
        }
    }
    eprintln!("{checked} sampled; worst {worst_ppm} ppm; {over_an_eighth} over an eighth");
    assert!(checked > 80_000, "{checked} sampled");
    assert!(
        worst_ppm > 145_000,
        "the worst sampled share is {worst_ppm} ppm: the promise of 147,541 is loose"
    );
    assert!(
        over_an_eighth > 0,
        "no sample breaks an eighth of its timeout"
    );
}

#[test]
fn a_short_timeout_fires_within_two_jiffies() {
    for now_ns in [0, 1, MS / 2, MS - 1, 7 * MS] {
        for timeout_ns in [1, MS - 1, MS, MS + 1, 10 * MS, 62 * MS] {
            let late_ns = fires_at(now_ns, now_ns + timeout_ns) - (now_ns + timeout_ns);
            assert!(
                (0..2 * MS).contains(&late_ns),
                "{timeout_ns} at {now_ns}: {late_ns}"
            );
        }
    }
}

#[test]
fn a_timer_armed_after_a_quiet_spell_is_filed_from_the_present() {
    let wheel: Wheel = LinuxWheel::new(4, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.schedule(0, 5 * MS, 1, 0).unwrap();
    assert_eq!(fire_from(&wheel, &mut thread, 0), Some((vec![1], 6 * MS)));
    // An hour later the base's clock still reads 6 ms: filing forwards it first.
    let hour = 3_600_000 * MS;
    wheel.schedule(hour, hour + 20 * MS, 2, 0).unwrap();
    let (fired, at_ns) = fire_from(&wheel, &mut thread, hour).unwrap();
    assert_eq!((fired, at_ns - hour), (vec![2], 21 * MS));
    assert_eq!(wheel.metric("filed_behind"), Some(0));
}

/// Without the forward, the same timer is filed an hour from the base's clock, on level 5,
/// and fires up to half a minute late.
#[test]
fn without_forwarding_the_base_a_timer_after_a_quiet_spell_is_far_late() {
    struct NoForward;
    impl KernelProtocol for NoForward {
        const FORWARD_BASE_ON_ENQUEUE: bool = false;
    }
    let wheel: Wheel<NoForward> = LinuxWheel::new(4, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.schedule(0, 5 * MS, 1, 0).unwrap();
    fire_from(&wheel, &mut thread, 0).unwrap();
    let hour = 3_600_000 * MS;
    wheel.schedule(hour, hour + 20 * MS, 2, 0).unwrap();
    let (_, at_ns) = fire_from(&wheel, &mut thread, hour).unwrap();
    let late_ns = at_ns - (hour + 20 * MS);
    assert!(late_ns > 1_000 * MS, "only {late_ns} ns late");
    assert!(late_ns as u64 > LINUX_WHEEL_PROMISE.late_ns(20 * MS as u64));
}

/// While the base has expired timers it has not run, filing forwards its clock only to the
/// first of them: a 100 ms timer armed about 2 s into such a lag is filed about 2.1 s out, on
/// level 2, and fires 63 ms past its deadline, within the promise for its timeout plus the lag.
#[test]
fn a_timer_filed_while_the_base_lags_is_filed_for_its_timeout_plus_the_lag() {
    let wheel: Wheel = LinuxWheel::new(4, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    wheel.schedule(0, 10 * MS, 1, 0).unwrap();
    let sleep = wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!(sleep.until_ns, Some(11 * MS));
    // The thread does not run at 11 ms; at 1,949 ms a caller arms a 100 ms timer first: it
    // expires at jiffy 2,049, 2,038 from the base's clock, and goes to level 2's bucket of
    // jiffy 2,112.
    let now_ns = 1_949 * MS;
    wheel.schedule(now_ns, now_ns + 100 * MS, 2, 0).unwrap();
    assert_eq!(wheel.metric("filed_behind"), Some(1));
    let (fired, _) = fire_from(&wheel, &mut thread, now_ns).unwrap();
    assert_eq!(fired, [1], "the overdue timer first");
    let (fired, at_ns) = fire_from(&wheel, &mut thread, now_ns).unwrap();
    assert_eq!(fired, [2]);
    let late_ns = at_ns - (now_ns + 100 * MS);
    assert_eq!(
        late_ns,
        63 * MS,
        "filed on level 2, with its 64 ms granules"
    );
    assert!(late_ns as u64 > LINUX_WHEEL_PROMISE.late_ns(100 * MS as u64));
    let lag_ns = now_ns - 11 * MS;
    assert!(late_ns as u64 <= LINUX_WHEEL_PROMISE.late_ns((100 * MS + lag_ns) as u64));
}

#[test]
fn only_a_timer_due_before_the_next_expiry_wakes_the_thread() {
    let wheel: Wheel = LinuxWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    assert!(wheel.schedule(0, 30 * MS, 1, 0).unwrap().wake);
    let sleep = wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!(sleep.until_ns, Some(31 * MS));
    assert!(!wheel.schedule(0, 40 * MS, 2, 0).unwrap().wake);
    let earlier = wheel.schedule(0, 20 * MS, 3, 0).unwrap();
    assert!(earlier.wake && wheel.signals(0) != sleep.seen_signals);
}

#[test]
fn a_cancel_takes_its_timer_out_and_frees_its_slot_at_once() {
    let wheel: Wheel = LinuxWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let ids: Vec<TimerId> = (0..4)
        .map(|call| wheel.schedule(0, 100 * MS, call, 0).unwrap().id)
        .collect();
    assert_eq!(wheel.unschedule(ids[1]), Unscheduled::Cancelled);
    assert_eq!(wheel.unschedule(ids[1]), Unscheduled::NotFound);
    assert_eq!(wheel.slots_in_use(), 3);
    let (mut fired, _) = fire_from(&wheel, &mut thread, 0).unwrap();
    fired.sort_unstable();
    assert_eq!(fired, [0, 2, 3]);
    wheel.run_round(&mut thread, 200 * MS, &mut |_, _| 200 * MS);
    assert_eq!(wheel.slots_in_use(), 0);
    assert_eq!(wheel.unschedule(ids[0]), Unscheduled::NotFound);
}

#[test]
fn a_bucket_emptied_by_cancels_is_skipped_and_the_next_one_fires() {
    let wheel: Wheel = LinuxWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    let first = wheel.schedule(0, 10 * MS, 1, 0).unwrap();
    wheel.schedule(0, 50 * MS, 2, 0).unwrap();
    wheel.unschedule(first.id);
    let sleep = wheel.run_round(&mut thread, 0, &mut |_, _| 0);
    assert_eq!(
        sleep.until_ns,
        Some(51 * MS),
        "the next expiry is recalculated"
    );
    assert_eq!(fire_from(&wheel, &mut thread, 0), Some((vec![2], 51 * MS)));
}

#[test]
fn a_stopped_wheel_fires_nothing_and_frees_every_slot() {
    let wheel: Wheel = LinuxWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    for (deadline_ns, call) in [(0, 1), (5 * MS, 2), (1 << 50, 3)] {
        wheel.schedule(0, deadline_ns, call, 0).unwrap();
    }
    assert!(wheel.stop());
    assert_eq!(wheel.schedule(0, MS, 4, 0), Err(ScheduleError::Stopped));
    let sleep = wheel.run_round(&mut thread, 20 * MS, &mut |_, _| panic!("it fired"));
    assert!(sleep.stopped);
    assert_eq!(wheel.slots_in_use(), 0);
}

/// A timeout past the wheel's reach, about 12.2 days, is clamped to its far end and fires
/// early, as the kernel's does: the simulator reports such a fire as early.
#[test]
fn a_timeout_past_the_wheels_reach_fires_at_its_far_end() {
    let reach_ns = WHEEL_TIMEOUT_CUTOFF as i64 * MS;
    let at_ns = fires_at(0, 2 * reach_ns);
    assert!(at_ns < 2 * reach_ns && at_ns <= reach_ns);
    let base: TimerBase<u32> = TimerBase::new();
    assert_eq!(base.len(), 0);
}

#[test]
fn timers_of_one_bucket_fire_newest_first_and_the_higher_level_first() {
    let wheel: Wheel = LinuxWheel::new(8, TimerClock::Monotonic);
    let mut thread = wheel.new_thread_state(0);
    // Two on level 1 expiring at jiffy 72, then one on level 0 expiring there too.
    wheel.schedule(0, 65 * MS, 1, 0).unwrap();
    wheel.schedule(0, 66 * MS, 2, 0).unwrap();
    wheel.schedule(20 * MS, 71 * MS, 3, 0).unwrap();
    let (fired, at_ns) = fire_from(&wheel, &mut thread, 20 * MS).unwrap();
    assert_eq!((fired, at_ns), (vec![2, 1, 3], 72 * MS));
}

/// A design on the wall clock first reads billions of jiffies since 1970: the base's clock
/// follows them while nothing is filed, and the first timer fires in time.
#[test]
fn a_base_first_read_on_the_wall_clock_files_from_there() {
    let wall_ns = 1_767_225_600 * 1_000 * MS;
    let late_ns = fires_at(wall_ns + 3, wall_ns + 3 + 100 * MS) - (wall_ns + 3 + 100 * MS);
    assert!((0..=LINUX_WHEEL_PROMISE.late_ns(100 * MS as u64) as i64).contains(&late_ns));
    let wheel: Wheel = LinuxWheel::new(4, TimerClock::Wall);
    let scheduled = wheel.schedule(wall_ns, wall_ns + 100 * MS, 1, 0).unwrap();
    assert!(scheduled.wake, "the first timer wakes the thread");
}
