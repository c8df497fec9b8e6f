use super::*;

const MS: i64 = 1_000_000;

fn ticks_at(core: &mut IntervalCore, now_ns: i64) -> Vec<i64> {
    std::iter::from_fn(|| core.tick(now_ns))
        .map(|tick| tick.deadline_ns)
        .collect()
}

#[test]
fn tokio_interval_ticks_at_once_and_tokio_01_waits_a_period() {
    assert_eq!(
        IntervalCore::created_at(MissedTick::Burst, 7, 50 * MS).deadline_ns(),
        7
    );
    assert_eq!(
        IntervalCore::created_at(MissedTick::Naive, 7, 50 * MS).deadline_ns(),
        7 + 50 * MS
    );
}

#[test]
fn burst_fires_every_missed_grid_point_as_tokio_documents() {
    // tokio's Burst example: a 50 ms interval, 200 ms of work after the first tick.
    let mut core = IntervalCore::created_at(MissedTick::Burst, 0, 50 * MS);
    assert_eq!(ticks_at(&mut core, 0), [0]);
    assert_eq!(
        ticks_at(&mut core, 200 * MS),
        [50 * MS, 100 * MS, 150 * MS, 200 * MS]
    );
    assert_eq!(core.deadline_ns(), 250 * MS);
}

#[test]
fn delay_reanchors_on_now_after_a_late_tick() {
    let mut core = IntervalCore::created_at(MissedTick::Delay, 0, 50 * MS);
    ticks_at(&mut core, 0);
    assert_eq!(ticks_at(&mut core, 120 * MS), [50 * MS]);
    assert_eq!(core.deadline_ns(), 170 * MS);
}

#[test]
fn skip_moves_to_the_next_grid_point_after_now() {
    // tokio's Skip example: 75 ms of work in a 50 ms interval resumes at 100 ms.
    let mut core = IntervalCore::created_at(MissedTick::Skip, 0, 50 * MS);
    ticks_at(&mut core, 0);
    assert_eq!(ticks_at(&mut core, 75 * MS), [50 * MS]);
    assert_eq!(core.deadline_ns(), 100 * MS);
    // Exactly on a later grid point: the next one.
    assert_eq!(
        next_deadline_ns(MissedTick::Skip, 100 * MS, 200 * MS, 50 * MS),
        250 * MS
    );
}

#[test]
fn lateness_within_five_ms_counts_as_on_time() {
    for behavior in [MissedTick::Delay, MissedTick::Skip] {
        assert_eq!(
            next_deadline_ns(behavior, 0, LATE_TOLERANCE_NS, 50 * MS),
            50 * MS,
            "{behavior:?}"
        );
    }
    // One nanosecond more and Delay re-anchors; Skip lands on the same grid point either way.
    assert_eq!(
        next_deadline_ns(MissedTick::Delay, 0, LATE_TOLERANCE_NS + 1, 50 * MS),
        55 * MS + 1
    );
    assert_eq!(
        next_deadline_ns(MissedTick::Skip, 0, LATE_TOLERANCE_NS + 1, 50 * MS),
        50 * MS
    );
}

#[test]
fn naive_and_fixed_ignore_the_five_ms_rule() {
    assert_eq!(
        next_deadline_ns(MissedTick::Naive, 0, 999 * MS, 50 * MS),
        50 * MS
    );
    assert_eq!(
        next_deadline_ns(MissedTick::Fixed, 0, 3 * MS, 50 * MS),
        53 * MS
    );
}

#[test]
fn fixed_drops_missed_periods() {
    let mut core = IntervalCore::created_at(MissedTick::Fixed, 0, 1_000 * MS);
    assert_eq!(ticks_at(&mut core, 392_000 * MS), [1_000 * MS]);
    assert_eq!(core.deadline_ns(), 393_000 * MS);
}

#[test]
fn a_deadline_past_the_clock_range_moves_thirty_years_out() {
    let next = next_deadline_ns(MissedTick::Burst, i64::MAX - 10, i64::MAX - 10, 50 * MS);
    assert_eq!(next, i64::MAX);
    let next = next_deadline_ns(MissedTick::Naive, i64::MAX / 2, 0, i64::MAX);
    assert_eq!(next, FAR_FUTURE_FOR_TESTS);
}

const FAR_FUTURE_FOR_TESTS: i64 = 86_400 * 365 * 30 * 1_000 * MS;

#[test]
fn a_tick_before_its_deadline_is_pending() {
    let mut core = IntervalCore::created_at(MissedTick::Skip, 0, 10 * MS);
    core.tick(0);
    assert_eq!(core.tick(10 * MS - 1), None);
    assert_eq!(core.wait(), Wait::Until(10 * MS));
}

#[test]
fn names_match_scenario_files() {
    let names: Vec<_> = MissedTick::ALL.iter().map(|b| b.name()).collect();
    assert_eq!(names, MissedTick::NAMES);
}

#[test]
fn only_naive_and_burst_replay_missed_ticks_after_a_gap() {
    for behavior in MissedTick::ALL {
        let mut core = IntervalCore::starting_at(behavior, 0, 50 * MS);
        ticks_at(&mut core, 0);
        // Nine periods missed: a behaviour that replays them fires them all at once.
        let at_once = ticks_at(&mut core, 500 * MS).len();
        assert_eq!(
            at_once > 1,
            behavior.replays_missed_ticks(),
            "{behavior:?} fired {at_once} ticks at once"
        );
    }
}

#[test]
fn an_interval_keeps_its_behaviour_and_period_when_a_late_tick_moves_its_grid() {
    let mut core = IntervalCore::created_at(MissedTick::Delay, 0, 50 * MS);
    ticks_at(&mut core, 0);
    ticks_at(&mut core, 120 * MS);
    assert_eq!(core.behavior(), MissedTick::Delay);
    assert_eq!(core.period_ns(), 50 * MS);
    let tick = core.tick(core.deadline_ns()).expect("due at its deadline");
    assert_eq!(tick.next_deadline_ns - tick.deadline_ns, core.period_ns());
}

#[test]
fn a_cronjob_starts_the_latest_missed_time_and_stops_for_good_past_a_hundred() {
    let minute = 60_000 * MS;
    let mut core = IntervalCore::created_at(MissedTick::CronJob, 0, minute);
    // The first start is a minute after creation.
    assert_eq!(core.deadline_ns(), minute);
    // A sync 100 starts late (start times at 1, 2, ... 100 min missed: 100) runs once, for the
    // latest, and the next is the schedule's next: 101 min.
    let late = core
        .tick(100 * minute)
        .expect("100 missed starts run the latest");
    assert_eq!(
        (late.deadline_ns, late.next_deadline_ns),
        (minute, 101 * minute)
    );
    // 101 start times missed from 101 min to 201 min: none starts, now or ever.
    assert_eq!(core.tick(201 * minute), None);
    assert!(core.deadline_ns() > 1_000_000 * minute, "never due again");
    assert_eq!(core.tick(10_000 * minute), None);
}
