use super::*;
use std::collections::BTreeMap;

#[test]
fn levels_follow_the_highest_differing_digit() {
    assert_eq!(level_for(0, 1), 0);
    assert_eq!(level_for(0, 63), 0);
    assert_eq!(level_for(0, 64), 1);
    assert_eq!(level_for(0, 64 * 64 - 1), 1);
    assert_eq!(level_for(0, 64 * 64), 2);
    assert_eq!(level_for(0, MAX_DURATION_TICKS - 1), 5);
    assert_eq!(
        level_for(0, MAX_DURATION_TICKS * 5),
        5,
        "clamped to the top"
    );
    // Near a boundary, a timer one tick away can be a level up.
    assert_eq!(level_for(63, 64), 1);
}

#[test]
fn the_slot_holding_now_comes_last() {
    assert_eq!(next_occupied_slot(1 << 10, 0, 0), Some(10));
    assert_eq!(next_occupied_slot(1 << 10, 0, 11), Some(10));
    assert_eq!(next_occupied_slot((1 << 10) | (1 << 40), 0, 20), Some(40));
    assert_eq!(next_occupied_slot(0b11, 5, 0), Some(1));
    assert_eq!(next_occupied_slot(1 | (1 << 40), 5, 0), Some(40));
}

#[test]
fn a_poll_leaves_the_wheel_at_now_and_never_moves_it_back() {
    let mut wheel: Wheel<u64> = Wheel::starting_at(10);
    assert_eq!(wheel.elapsed(), 10);
    wheel.insert(0, 500, 500);
    assert_eq!(wheel.poll(300), None);
    assert_eq!(wheel.elapsed(), 300);
    assert_eq!(wheel.poll(200), None);
    assert_eq!(wheel.elapsed(), 300, "a poll behind the wheel");
    assert_eq!(wheel.poll(500), Some((0, 500)));
    assert_eq!(wheel.poll(500), None);
    assert_eq!(wheel.elapsed(), 500);
}

#[test]
fn a_timer_is_held_wherever_it_waits_until_it_fires_or_is_removed() {
    let mut wheel: Wheel<u64> = Wheel::starting_at(100);
    // Due already (pending), on level 0, in the top level's last slot, and past its reach.
    let top_last_slot = 63 << (BITS_PER_LEVEL * 5);
    let timers = [
        (0, 90),
        (1, 101),
        (2, top_last_slot),
        (3, 3 * MAX_DURATION_TICKS),
    ];
    for (slot, when) in timers {
        wheel.insert(slot, when, when);
    }
    assert_eq!(level_for(100, top_last_slot), LEVELS - 1);
    assert_eq!(slot_for(top_last_slot, LEVELS - 1), SLOTS_PER_LEVEL - 1);
    for (slot, when) in timers {
        assert!(wheel.holds(slot), "slot {slot}");
        assert_eq!(wheel.remove(slot), Some(when), "slot {slot}");
        assert!(!wheel.holds(slot), "slot {slot}");
        assert_eq!(wheel.remove(slot), None, "removed twice: slot {slot}");
    }
    assert_eq!(wheel.len(), 0);
    assert_eq!(wheel.poll_at(), None);
}

#[test]
fn removing_a_timer_the_wheel_does_not_hold_gives_nothing() {
    let mut wheel: Wheel<u64> = Wheel::new();
    wheel.insert(2, 5, 5);
    // Slot 1 was made room for but never filed; slot 9 never made.
    assert_eq!(wheel.remove(1), None);
    assert_eq!(wheel.remove(9), None);
    assert_eq!(wheel.poll(5), Some((2, 5)));
    assert_eq!(wheel.remove(2), None, "fired already");
    assert_eq!(wheel.len(), 0);
}

#[test]
fn draining_gives_every_held_slot_once_and_leaves_the_wheel_empty() {
    let mut wheel: Wheel<u64> = Wheel::new();
    for (slot, when) in [
        (0, 3),
        (1, 70),
        (2, 5_000),
        (3, 0),
        (4, MAX_DURATION_TICKS * 2),
    ] {
        wheel.insert(slot, when, when);
    }
    wheel.remove(1);
    assert_eq!(wheel.poll(3), Some((3, 0)));
    let mut drained = wheel.drain_slots();
    drained.sort_unstable();
    assert_eq!(drained, [0, 2, 4]);
    assert_eq!(wheel.len(), 0);
    assert_eq!(wheel.poll_at(), None);
    assert_eq!(wheel.poll(u64::MAX / 2), None);
    assert!(wheel.drain_slots().is_empty());
}

#[test]
fn a_wheel_debugs_as_the_tick_it_stands_at_and_how_many_timers_it_holds() {
    let mut wheel: Wheel<u64> = Wheel::starting_at(7);
    wheel.insert(0, 9, 9);
    wheel.insert(1, 90, 90);
    assert_eq!(format!("{wheel:?}"), "Wheel { elapsed: 7, len: 2, .. }");
}

/// One timer two turns past the top level's reach, with a digit set on every level: a poll
/// up to its tick cascades its top slot once per turn, three times, then once on each level
/// below, five times. Returns the wheel and that tick.
fn a_timer_needing_every_cascade() -> (Wheel<u64>, u64) {
    let below_top: u64 = (0..LEVELS as u32)
        .map(|level| 1 << (BITS_PER_LEVEL * level))
        .sum();
    let when = 2 * MAX_DURATION_TICKS + below_top;
    let mut wheel = Wheel::new();
    wheel.insert(0, when, when);
    (wheel, when)
}

#[test]
fn a_poll_may_run_every_cascade_its_budget_allows() {
    let (mut wheel, when) = a_timer_needing_every_cascade();
    let budget = wheel.cascade_budget(when);
    assert_eq!(budget, 3 + 5);
    assert_eq!(wheel.cascade_to(when, budget), Some((0, when)));
}

#[test]
#[should_panic(expected = "the timing wheel makes no progress: a poll to tick")]
fn a_poll_that_needs_more_cascades_than_its_budget_panics() {
    let (mut wheel, when) = a_timer_needing_every_cascade();
    let budget = wheel.cascade_budget(when);
    wheel.cascade_to(when, budget - 1);
}

#[test]
#[should_panic(expected = "the timing wheel makes no progress: a poll to tick 1000")]
fn a_wheel_that_counts_none_of_its_timers_panics_instead_of_cascading() {
    let mut wheel: Wheel<u64> = Wheel::new();
    wheel.insert(0, 1_000, 1_000);
    // A wheel that lost count of its timers can spend no cascade on them.
    wheel.len = 0;
    wheel.poll(1_000);
}

#[test]
#[should_panic(expected = "the timing wheel gives no more timers than it holds")]
fn a_wheel_that_gives_more_timers_than_it_holds_panics() {
    let mut wheel: Wheel<u64> = Wheel::new();
    wheel.insert(0, 0, 0);
    wheel.insert(1, 0, 0);
    wheel.len = 1;
    while wheel.poll(0).is_some() {}
}

/// Runs random inserts, removals and polls, jumping time by up to `max_jump` ticks at once,
/// against a plain map of what is due: every timer fires at the first poll at or after its
/// tick, never before, never twice, and none is lost.
fn against_a_map(seed: u64, start: u64, steps: usize, max_jump: u64, max_ahead: u64) {
    let mut rng = seed | 1;
    let mut next = move |bound: u64| {
        // xorshift64*: small, deterministic, good enough to scatter ticks.
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound.max(1)
    };
    let mut wheel: Wheel<u64> = Wheel::starting_at(start);
    let mut expected: BTreeMap<u32, u64> = BTreeMap::new();
    let mut free: Vec<u32> = Vec::new();
    let mut minted = 0u32;
    let mut now = start;
    for _ in 0..steps {
        match next(10) {
            0..=5 => {
                let slot = free.pop().unwrap_or_else(|| {
                    minted += 1;
                    minted - 1
                });
                // Near, far, and past the top level's reach.
                let ahead = match next(4) {
                    0 => next(64),
                    1 => next(64 * 64 * 64),
                    2 => next(max_ahead),
                    _ => MAX_DURATION_TICKS + next(MAX_DURATION_TICKS),
                };
                let when = now + ahead;
                wheel.insert(slot, when, when);
                expected.insert(slot, when);
            }
            6 => {
                if let Some((&slot, _)) = expected
                    .iter()
                    .nth(next(expected.len() as u64 + 1) as usize)
                {
                    assert_eq!(wheel.remove(slot), expected.remove(&slot));
                    free.push(slot);
                }
            }
            _ => {
                now += next(max_jump);
                let mut fired = Vec::new();
                while let Some((slot, when)) = wheel.poll(now) {
                    assert!(when <= now, "a timer for tick {when} fired at {now}");
                    assert_eq!(expected.remove(&slot), Some(when), "fired twice or unknown");
                    fired.push(slot);
                }
                free.extend(fired);
                let overdue: Vec<_> = expected.iter().filter(|(_, when)| **when <= now).collect();
                assert!(
                    overdue.is_empty(),
                    "due at {now} and not fired: {overdue:?}"
                );
                if let Some(at) = wheel.poll_at() {
                    let earliest = expected.values().min().copied();
                    assert!(
                        earliest.is_some_and(|earliest| at <= earliest),
                        "polls at {at} after a timer at {earliest:?}"
                    );
                }
            }
        }
        assert_eq!(wheel.len(), expected.len());
    }
}

#[test]
fn timers_fire_once_and_on_time_through_every_level() {
    for seed in 1..20 {
        against_a_map(seed, 0, 4_000, 5_000, 1 << 30);
    }
}

#[test]
fn timers_fire_once_and_on_time_polled_at_nearly_every_tick() {
    // Small steps land on every slot boundary, where a cascade that fired a tick early would
    // show.
    for seed in 1..20 {
        against_a_map(seed, 0, 20_000, 3, 1 << 14);
    }
}

#[test]
fn timers_fire_once_and_on_time_over_years_of_big_jumps() {
    // Jumps of up to a month of ticks run the wheel past two years and around its top
    // level, where its slots wrap.
    for seed in 1..10 {
        against_a_map(seed, 0, 6_000, 31 * 24 * 3_600_000, MAX_DURATION_TICKS);
    }
}

#[test]
fn timers_fire_once_and_on_time_when_the_wheel_starts_near_its_wrap() {
    for seed in 1..10 {
        against_a_map(seed, MAX_DURATION_TICKS - 1_000, 4_000, 100_000, 1 << 34);
        against_a_map(seed, 12 * 24 * 3_600_000 - 10, 4_000, 50_000, 1 << 34);
    }
}
