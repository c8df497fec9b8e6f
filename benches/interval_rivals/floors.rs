//! The floors: the intervals' deadlines in a bare priority queue, each taken and re-filed one
//! period later until the hour ends, with none of the clock, fault or summary work. Every floor
//! starts from the same phases as ticklab (`plan_intervals`) and counts the same ticks.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ticklab::interval::runner::IntervalPlan;
use ticklab_sim::RadixQueue;

use super::quad_heap::QuadHeap;

/// ticklab's key layout: `at_ns << 64 | seq << 24 | slot`; here the slot is the interval.
const SLOT_BITS: u32 = 24;

#[inline]
fn key(at_ns: u64, seq: u64, slot: u32) -> u128 {
    (u128::from(at_ns) << 64) | u128::from(seq << SLOT_BITS | u64::from(slot))
}

#[inline]
fn at_ns_and_slot(key: u128) -> (u64, usize) {
    (
        (key >> 64) as u64,
        (key as u64 & ((1 << SLOT_BITS) - 1)) as usize,
    )
}

fn first_keys(plans: &[IntervalPlan]) -> Vec<u128> {
    plans
        .iter()
        .enumerate()
        .map(|(index, plan)| key(plan.created_ns, index as u64, index as u32))
        .collect()
}

/// `std::collections::BinaryHeap` of (deadline, interval) at its fastest: the earliest entry is
/// moved one period on in place (`peek_mut`), one sift down instead of a pop and a push.
pub fn binary_heap(plans: &[IntervalPlan], end_ns: u64) -> u64 {
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = plans
        .iter()
        .enumerate()
        .map(|(index, plan)| Reverse((plan.created_ns, index as u32)))
        .collect();
    let mut ticks = 0;
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((at_ns, index)) = *top;
        if at_ns >= end_ns {
            break;
        }
        ticks += 1;
        *top = Reverse((at_ns + plans[index as usize].period_ns, index));
    }
    ticks
}

/// The four-ary heap of ticklab's keys, with a slot table of periods beside it, at its fastest:
/// the least key is replaced in place.
pub fn quad_heap(plans: &[IntervalPlan], end_ns: u64) -> u64 {
    let periods_ns: Vec<u64> = plans.iter().map(|plan| plan.period_ns).collect();
    let mut heap = QuadHeap::from_keys(first_keys(plans));
    let mut next_seq = plans.len() as u64;
    let mut ticks = 0;
    while let Some(top) = heap.peek() {
        let (at_ns, slot) = at_ns_and_slot(top);
        if at_ns >= end_ns {
            break;
        }
        ticks += 1;
        heap.replace_top(key(at_ns + periods_ns[slot], next_seq, slot as u32));
        next_seq += 1;
    }
    ticks
}

/// ticklab's own queue, bare: the same keys taken and re-filed, each with its period as its value.
pub fn radix_queue(plans: &[IntervalPlan], end_ns: u64) -> u64 {
    let mut queue = RadixQueue::new();
    queue.refill(
        first_keys(plans)
            .into_iter()
            .zip(plans.iter().map(|plan| plan.period_ns))
            .collect(),
    );
    let mut next_seq = plans.len() as u64;
    let mut ticks = 0;
    while let Some((top, period_ns)) = queue.pop() {
        let at_ns = (top >> 64) as u64;
        if at_ns >= end_ns {
            break;
        }
        ticks += 1;
        queue.insert(key(at_ns + period_ns, next_seq, 0), period_ns);
        next_seq += 1;
    }
    ticks
}
