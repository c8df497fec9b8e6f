use super::*;
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

fn order(time: u64, seq: u64) -> u128 {
    (u128::from(time) << 64) | u128::from(seq << SLOT_BITS)
}

/// Drives the queue and a `BinaryHeap` with the same operations, the way the world does:
/// pops move time forward, keys come in at or after it with a new sequence number, and now
/// and then one lands before the last one taken, as a re-timed wake can.
#[test]
fn pops_in_key_order_through_inserts_peeks_and_keys_from_the_past() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut queue = RadixQueue::new();
    let mut reference = BinaryHeap::new();
    let (mut now, mut seq) = (0u64, 0u64);
    for round in 0..200_000u32 {
        let choice = rng.random_range(0..10);
        if choice < 5 && queue.len() < 100 {
            let time = match rng.random_range(0..20) {
                0 => now.saturating_sub(rng.random_range(0..50)),
                1..=5 => now,
                6 => now + rng.random_range(0..u64::from(u32::MAX)) * 1_000,
                _ => now + rng.random_range(0..1_000),
            };
            let key = queue.insert(order(time, seq), round);
            seq += 1;
            reference.push(Reverse((key, round)));
        } else if choice < 7 {
            assert_eq!(queue.peek(), reference.peek().map(|entry| entry.0.0));
        } else {
            let popped = queue.pop();
            assert_eq!(popped, reference.pop().map(|entry| entry.0));
            if let Some((key, _)) = popped {
                now = now.max((key >> 64) as u64);
            }
        }
        assert_eq!(queue.len(), reference.len());
    }
    let mut drained = queue.drain();
    drained.sort_unstable();
    let expected: Vec<_> = reference
        .into_sorted_vec()
        .into_iter()
        .rev()
        .map(|r| r.0)
        .collect();
    assert_eq!(drained, expected);
    queue.refill(drained.clone());
    let refilled: Vec<_> = std::iter::from_fn(|| queue.pop()).collect();
    assert_eq!(refilled, expected);
}

#[test]
fn crowded_buckets_spread_and_keys_from_the_past_fill_the_front() {
    let mut queue = RadixQueue::new();
    // The first wake of a run is seq 0: a key whose low digits are all zero.
    queue.insert(order(1 << 24, 0), 0);
    for seq in 1..300 {
        queue.insert(order((1 << 24) + seq * 7_919 % 5_000, seq), seq);
    }
    let mut popped: Vec<_> = (0..100).map(|_| queue.pop().unwrap().0).collect();
    // More keys from the past than the front holds: everything is filed afresh.
    for seq in 300..400 {
        queue.insert(order(5, seq), seq);
    }
    popped.extend(std::iter::from_fn(|| queue.pop()).map(|(key, _)| key));
    assert_eq!(popped.len(), 400);
    assert!(popped[..100].is_sorted() && popped[100..].is_sorted());
    assert_eq!(popped[100] >> 64, 5);
}

#[test]
fn equal_times_pop_in_sequence_order_whatever_their_slots() {
    let mut queue = RadixQueue::new();
    // Leaves the vacant slots in an order unlike the sequence numbers to come.
    for seq in 0..5 {
        queue.insert(order(10 - seq, seq), 0);
    }
    for _ in 0..5 {
        queue.pop();
    }
    for seq in [5, 3, 4, 9] {
        queue.insert(order(100, seq), seq);
    }
    queue.insert(order(50, 10), 10);
    let order: Vec<_> = std::iter::from_fn(|| queue.pop())
        .map(|(_, seq)| seq)
        .collect();
    assert_eq!(order, [10, 3, 4, 5, 9]);
}

/// Thousands of keys in one bucket: more than the front sorts, so they are spread over the
/// buckets below, and each of those sorted in turn, through pops and new keys in between.
#[test]
fn a_crowded_queue_spreads_its_buckets_and_still_pops_in_key_order() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut queue = RadixQueue::new();
    let mut reference = BinaryHeap::new();
    let (mut now, mut seq) = (0u64, 0u64);
    for round in 0..400_000u32 {
        if rng.random_range(0..2) == 0 && queue.len() < 50_000 {
            // Most keys within a second, some at the same nanosecond as others.
            let time = now + rng.random_range(0..1_000_000_000) / rng.random_range(1..1_000);
            let key = queue.insert(order(time, seq), round);
            seq += 1;
            reference.push(Reverse((key, round)));
        } else {
            let popped = queue.pop();
            assert_eq!(popped, reference.pop().map(|entry| entry.0));
            if let Some((key, _)) = popped {
                now = (key >> 64) as u64;
            }
        }
    }
    let rest: Vec<_> = std::iter::from_fn(|| queue.pop()).collect();
    let expected: Vec<_> = std::iter::from_fn(|| reference.pop().map(|entry| entry.0)).collect();
    assert_eq!(rest, expected);
}
