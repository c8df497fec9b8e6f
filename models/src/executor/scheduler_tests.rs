use super::TaskId;
use super::design::{Park, Placement, SchedulerDesign, Source};
use super::scheduler::{Scheduler, SchedulerConfig};
use crate::sync::StdPrimitives;

fn scheduler(workers: usize, lifo_slot: bool) -> Scheduler<StdPrimitives> {
    Scheduler::new(SchedulerConfig {
        lifo_slot,
        ..SchedulerConfig::tokio(workers)
    })
}

/// Ticks `worker` once and takes its next task.
fn next(
    scheduler: &mut Scheduler<StdPrimitives>,
    worker: usize,
    random_start: usize,
) -> Option<(TaskId, Source)> {
    scheduler.tick(worker, 0);
    scheduler.next_task(worker, random_start)
}

#[test]
fn a_task_woken_on_a_worker_goes_to_its_lifo_slot_and_displaces_the_previous_one() {
    let mut scheduler = scheduler(2, true);
    assert_eq!(
        scheduler.schedule(TaskId(1), Some(0), false).0,
        Placement::Lifo { displaced: false }
    );
    assert_eq!(
        scheduler.schedule(TaskId(2), Some(0), false).0,
        Placement::Lifo { displaced: true }
    );
    assert_eq!(next(&mut scheduler, 0, 0), Some((TaskId(2), Source::Lifo)));
    assert_eq!(
        next(&mut scheduler, 0, 0),
        Some((TaskId(1), Source::LocalQueue))
    );
}

#[test]
fn filling_an_empty_lifo_slot_notifies_nobody_but_a_displacement_does() {
    let mut scheduler = scheduler(2, true);
    assert_eq!(scheduler.park(1), Park::OnDriver);
    assert_eq!(scheduler.schedule(TaskId(1), Some(0), false).1, None);
    assert_eq!(scheduler.schedule(TaskId(2), Some(0), false).1, Some(1));
}

#[test]
fn a_yielding_task_goes_to_the_back_of_the_queue() {
    let mut scheduler = scheduler(1, true);
    scheduler.schedule(TaskId(1), Some(0), false);
    assert_eq!(
        scheduler.schedule(TaskId(2), Some(0), true).0,
        Placement::LocalQueue { overflowed: 0 }
    );
    assert_eq!(next(&mut scheduler, 0, 0), Some((TaskId(1), Source::Lifo)));
    assert_eq!(
        next(&mut scheduler, 0, 0),
        Some((TaskId(2), Source::LocalQueue))
    );
}

#[test]
fn a_wake_from_outside_the_runtime_goes_to_the_inject_queue_and_notifies_a_sleeper() {
    let mut scheduler = scheduler(2, true);
    scheduler.park(0);
    scheduler.park(1);
    assert_eq!(
        scheduler.schedule(TaskId(7), None, false),
        (Placement::Inject, Some(1))
    );
    assert_eq!(scheduler.injected(), 1);
}

#[test]
fn the_inject_queue_is_checked_first_every_global_queue_interval_ticks() {
    let mut scheduler = scheduler(1, false);
    for task in 0..100 {
        scheduler.schedule(TaskId(task), Some(0), false);
    }
    scheduler.schedule(TaskId(1000), None, false);
    let from_inject = (1..=61)
        .map(|_| next(&mut scheduler, 0, 0).unwrap())
        .position(|(task, _)| task == TaskId(1000))
        .map(|index| index + 1);
    assert_eq!(
        from_inject,
        Some(61),
        "the injected task runs on tick 61, ahead of the local queue"
    );
}

#[test]
fn an_empty_worker_steals_half_of_a_busy_workers_queue() {
    let mut scheduler = scheduler(2, false);
    for task in 0..10 {
        scheduler.schedule(TaskId(task), Some(0), false);
    }
    let (task, source) = next(&mut scheduler, 1, 0).unwrap();
    assert_eq!(source, Source::Stolen { victim: 0 });
    assert!(
        task.0 < 5,
        "a thief takes from the front of the victim's queue, got {task:?}"
    );
    // Five taken: one to run now, four into the thief's queue.
    assert_eq!((scheduler.queued(0), scheduler.queued(1)), (5, 4));
}

#[test]
fn a_task_in_a_busy_workers_lifo_slot_cannot_be_stolen() {
    // tokio #4730: worker 0 spawned a task, then blocked without yielding.
    let mut scheduler = scheduler(2, true);
    scheduler.schedule(TaskId(1), Some(0), false);
    assert_eq!(
        next(&mut scheduler, 1, 0),
        None,
        "the idle worker finds nothing to steal"
    );
    let mut scheduler = self::scheduler(2, false);
    scheduler.schedule(TaskId(1), Some(0), false);
    assert_eq!(
        next(&mut scheduler, 1, 0),
        Some((TaskId(1), Source::Stolen { victim: 0 }))
    );
}

#[test]
fn block_in_place_hands_the_lifo_task_to_the_stealable_queue() {
    let mut scheduler = scheduler(2, true);
    scheduler.schedule(TaskId(1), Some(0), false);
    assert!(scheduler.hand_off_lifo(0));
    assert_eq!(
        next(&mut scheduler, 1, 0),
        Some((TaskId(1), Source::Stolen { victim: 0 }))
    );
}

#[test]
fn lifo_polls_are_capped_per_tick_and_need_budget() {
    let mut scheduler = scheduler(1, true);
    scheduler.tick(0, 0);
    scheduler.next_task(0, 0);
    let mut polled = Vec::new();
    for task in 1..=5 {
        // Each poll wakes one more task onto the same worker.
        scheduler.schedule(TaskId(task), Some(0), false);
        match scheduler.next_lifo_task(0, true, 0) {
            Some(task) => polled.push(task),
            None => break,
        }
    }
    // After three LIFO polls the slot is bypassed: the fourth wake went to the queue.
    assert_eq!(polled, [TaskId(1), TaskId(2), TaskId(3)]);
    assert_eq!(scheduler.queued(0), 1);
    scheduler.tick(0, 0);
    scheduler.next_task(0, 0);
    scheduler.schedule(TaskId(9), Some(0), false);
    assert_eq!(
        scheduler.next_lifo_task(0, false, 0),
        None,
        "without budget the task is queued instead"
    );
    assert_eq!(scheduler.queued(0), 1);
}

#[test]
fn the_first_worker_to_park_takes_the_driver_and_gives_it_back_when_it_runs() {
    let mut scheduler = scheduler(2, true);
    assert_eq!(scheduler.park(0), Park::OnDriver);
    assert_eq!(scheduler.park(1), Park::Asleep);
    assert_eq!(scheduler.worker_to_notify(), Some(1));
    scheduler.unpark(0);
    assert_eq!(scheduler.driver_holder(), None);
    assert_eq!(scheduler.park(1), Park::OnDriver);
}

#[test]
fn a_worker_steals_on_a_global_queue_tick_when_the_inject_queue_and_its_own_queue_are_empty() {
    let mut scheduler = Scheduler::<StdPrimitives>::new(SchedulerConfig {
        global_queue_interval: 1,
        lifo_slot: false,
        ..SchedulerConfig::tokio(2)
    });
    scheduler.schedule(TaskId(1), Some(0), false);
    assert_eq!(
        next(&mut scheduler, 1, 0),
        Some((TaskId(1), Source::Stolen { victim: 0 }))
    );
}

#[test]
fn the_lifo_slot_takes_wakes_again_once_a_capped_chain_ends() {
    let mut scheduler = scheduler(1, true);
    next(&mut scheduler, 0, 0);
    for task in 1..=3 {
        scheduler.schedule(TaskId(task), Some(0), false);
        assert_eq!(scheduler.next_lifo_task(0, true, 0), Some(TaskId(task)));
    }
    // Capped: the next wake bypasses the slot, and the chain ends on the empty slot.
    assert_eq!(
        scheduler.schedule(TaskId(4), Some(0), false).0,
        Placement::LocalQueue { overflowed: 0 }
    );
    assert_eq!(scheduler.next_lifo_task(0, true, 0), None);
    assert_eq!(
        scheduler.schedule(TaskId(5), Some(0), false).0,
        Placement::Lifo { displaced: false }
    );
}

#[test]
fn wakes_inside_a_park_check_notify_nobody_until_it_ends() {
    let mut scheduler = scheduler(2, false);
    assert_eq!(scheduler.park(1), Park::OnDriver);
    scheduler.begin_park_check(0);
    assert_eq!(scheduler.schedule(TaskId(1), Some(0), false).1, None);
    assert_eq!(
        scheduler.end_park_check(0),
        None,
        "one task: worker 0 runs it"
    );
    scheduler.begin_park_check(0);
    assert_eq!(scheduler.schedule(TaskId(2), Some(0), false).1, None);
    assert_eq!(
        scheduler.end_park_check(0),
        Some(1),
        "two tasks: wake a sleeper"
    );
}
