//! The queues on one thread: orders, batch sizes and index wrap-around. The concurrent
//! behaviour is checked by shuttle (`tests/shuttle.rs`) and loom (`tests/loom_executor.rs`).

use super::*;
use crate::sync::StdPrimitives;

type Queue = LocalQueue<StdPrimitives>;
type Global = Inject<StdPrimitives>;

fn ids(range: std::ops::Range<u32>) -> Vec<TaskId> {
    range.map(TaskId).collect()
}

/// Pushes `tasks`, asserting that each found room.
fn fill(queue: &Queue, tasks: std::ops::Range<u32>, inject: &Global) {
    for task in tasks {
        assert_eq!(queue.push_back_or_overflow(TaskId(task), inject), 0);
    }
}

fn drain(queue: &Queue) -> Vec<TaskId> {
    std::iter::from_fn(|| queue.pop()).collect()
}

#[test]
fn local_queue_pops_in_push_order() {
    let (queue, inject) = (Queue::new(), Global::new());
    fill(&queue, 0..10, &inject);
    assert_eq!(queue.len(), 10);
    assert_eq!(drain(&queue), ids(0..10));
    assert!(queue.is_empty());
    assert_eq!(queue.pop(), None);
}

#[test]
fn a_full_queue_moves_its_older_half_and_the_new_task_to_the_inject_queue_in_order() {
    let (queue, inject) = (Queue::new(), Global::new());
    fill(&queue, 0..256, &inject);
    assert_eq!(queue.len(), LOCAL_QUEUE_CAPACITY);

    assert_eq!(queue.push_back_or_overflow(TaskId(256), &inject), 129);
    assert_eq!(inject.len(), 129);
    assert_eq!(
        inject.pop_batch(1000),
        [ids(0..128), ids(256..257)].concat()
    );
    assert_eq!(queue.len(), 128);
    assert_eq!(drain(&queue), ids(128..256));
}

#[test]
fn the_queue_has_room_again_after_an_overflow() {
    let (queue, inject) = (Queue::new(), Global::new());
    fill(&queue, 0..256, &inject);
    assert_eq!(queue.push_back_or_overflow(TaskId(256), &inject), 129);
    fill(&queue, 257..385, &inject);
    assert_eq!(queue.push_back_or_overflow(TaskId(385), &inject), 129);
    // The second overflow moves the older half again: what the first one kept.
    assert_eq!(drain(&queue), ids(257..385));
    assert_eq!(
        inject.pop_batch(1000),
        [ids(0..128), ids(256..257), ids(128..256), ids(385..386)].concat()
    );
}

#[test]
fn a_steal_takes_n_minus_half_n_and_returns_the_last_of_them() {
    for n in [1, 2, 3, 5, 8, 255, 256] {
        let (victim, thief, inject) = (Queue::new(), Queue::new(), Global::new());
        fill(&victim, 0..n, &inject);
        let taken = n - n / 2;

        assert_eq!(
            victim.steal_into(&thief),
            Some(TaskId(taken - 1)),
            "n = {n}"
        );
        assert_eq!(drain(&thief), ids(0..taken - 1), "n = {n}");
        assert_eq!(drain(&victim), ids(taken..n), "n = {n}");
    }
}

#[test]
fn stealing_from_an_empty_queue_takes_nothing() {
    let (victim, thief) = (Queue::new(), Queue::new());
    assert_eq!(victim.steal_into(&thief), None);
    assert!(thief.is_empty());
}

#[test]
fn a_thief_holding_more_than_half_its_capacity_steals_nothing() {
    let (victim, thief, inject) = (Queue::new(), Queue::new(), Global::new());
    fill(&victim, 0..10, &inject);
    fill(&thief, 100..229, &inject);
    assert_eq!(thief.len(), 129);

    assert_eq!(victim.steal_into(&thief), None);
    assert_eq!(victim.len(), 10);
    assert_eq!(thief.len(), 129);

    assert_eq!(thief.pop(), Some(TaskId(100)));
    assert_eq!(victim.steal_into(&thief), Some(TaskId(4)));
    assert_eq!(thief.len(), 128 + 4);
}

#[test]
fn indices_wrap_past_u32_max() {
    let (victim, thief, inject) = (
        Queue::starting_at(u32::MAX - 3),
        Queue::starting_at(u32::MAX - 1),
        Global::new(),
    );
    fill(&victim, 0..256, &inject);
    assert_eq!(victim.len(), 256);
    assert_eq!(victim.push_back_or_overflow(TaskId(256), &inject), 129);
    assert_eq!(
        inject.pop_batch(1000),
        [ids(0..128), ids(256..257)].concat()
    );
    assert_eq!(victim.len(), 128);

    assert_eq!(victim.steal_into(&thief), Some(TaskId(191)));
    assert_eq!(thief.len(), 63);
    assert_eq!(victim.len(), 64);
    assert_eq!(drain(&thief), ids(128..191));
    assert_eq!(drain(&victim), ids(192..256));
}

#[test]
fn many_push_and_pop_cycles_go_round_the_ring() {
    let (queue, inject) = (Queue::new(), Global::new());
    for round in 0..100 {
        let first = round * 200;
        fill(&queue, first..first + 200, &inject);
        assert_eq!(drain(&queue), ids(first..first + 200));
    }
}

#[test]
fn the_lifo_slot_returns_the_task_it_displaces() {
    let slot = LifoSlot::<StdPrimitives>::new();
    assert!(slot.is_empty());
    assert_eq!(slot.put(TaskId(1)), None);
    assert_eq!(slot.put(TaskId(2)), Some(TaskId(1)));
    assert!(!slot.is_empty());
    assert_eq!(slot.take(), Some(TaskId(2)));
    assert_eq!(slot.take(), None);
    assert!(slot.is_empty());
}

#[test]
fn a_hand_off_makes_the_lifo_task_stealable() {
    let (slot, queue, thief, inject) = (
        LifoSlot::<StdPrimitives>::new(),
        Queue::new(),
        Queue::new(),
        Global::new(),
    );
    assert!(!slot.hand_off(&queue, &inject), "nothing to hand off");

    slot.put(TaskId(7));
    assert_eq!(queue.steal_into(&thief), None, "the slot is not stealable");
    assert!(slot.hand_off(&queue, &inject));
    assert!(slot.is_empty());
    assert_eq!(queue.steal_into(&thief), Some(TaskId(7)));
}

#[test]
fn a_hand_off_into_a_full_queue_overflows() {
    let (slot, queue, inject) = (
        LifoSlot::<StdPrimitives>::new(),
        Queue::new(),
        Global::new(),
    );
    fill(&queue, 0..256, &inject);
    slot.put(TaskId(256));
    assert!(slot.hand_off(&queue, &inject));
    assert_eq!(
        inject.pop_batch(1000),
        [ids(0..128), ids(256..257)].concat()
    );
}

#[test]
fn the_inject_queue_is_fifo_across_single_and_batch_operations() {
    let inject = Global::new();
    assert_eq!(inject.pop(), None);
    assert!(inject.pop_batch(4).is_empty());

    inject.push(TaskId(0));
    inject.push_batch(ids(1..5));
    inject.push(TaskId(5));
    assert_eq!(inject.len(), 6);

    assert_eq!(inject.pop(), Some(TaskId(0)));
    assert_eq!(inject.pop_batch(3), ids(1..4));
    assert_eq!(inject.pop_batch(0), []);
    assert_eq!(inject.pop_batch(10), ids(4..6));
    assert!(inject.is_empty());
}
