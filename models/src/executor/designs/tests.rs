//! Each shipped design's own rules, one test each, as its module's comment states them.

use super::super::{BuildScheduler, Park, Placement, SchedulerDesign, Source, TaskId};
use super::{AsyncExecutorDesign, GoScheduler, ThreadPerCoreDesign, TokioCurrentThread};
use crate::sync::StdPrimitives;

fn build<B: BuildScheduler>(workers: usize) -> B::Design<StdPrimitives> {
    B::build::<StdPrimitives>(&B::defaults(workers))
}

fn next(design: &mut impl SchedulerDesign, worker: usize) -> Option<(TaskId, Source)> {
    design.tick(worker, 0);
    design.next_task(worker, 0)
}

#[test]
fn current_thread_runs_its_own_wakes_in_order_and_the_inject_queue_every_31st_tick() {
    let mut design = build::<TokioCurrentThread>(1);
    assert_eq!(design.park(0), Park::OnDriver);
    // From another thread: the inject queue, and the parked thread is unparked.
    assert_eq!(
        design.schedule(TaskId(100), None, false),
        (Placement::Inject, Some(0))
    );
    design.unpark(0);
    for task in 0..40 {
        design.schedule(TaskId(task), Some(0), false);
    }
    let order: Vec<u32> = (0..31).map(|_| next(&mut design, 0).unwrap().0.0).collect();
    assert_eq!(
        order[..30],
        (0..30).collect::<Vec<_>>()[..],
        "local, first in first out"
    );
    assert_eq!(
        order[30], 100,
        "tick 31 takes the inject queue's task first"
    );
}

#[test]
fn async_executor_queues_every_wake_globally_and_notifies_one_sleeper_at_a_time() {
    let mut design = build::<AsyncExecutorDesign>(3);
    design.park(1);
    design.park(2);
    let (placement, first) = design.schedule(TaskId(1), Some(0), false);
    assert_eq!((placement, first), (Placement::Inject, Some(2)));
    assert_eq!(
        design.schedule(TaskId(2), Some(0), false).1,
        None,
        "one sleeper is notified already"
    );
    design.unpark(2);
    assert_eq!(next(&mut design, 2), Some((TaskId(1), Source::Inject)));
    // The runner that found a task notifies the next sleeper, to take over the search.
    assert_eq!(design.found(2), Some(1));
    // It moved half the rest of the global queue, rounded up, to its own: task 2.
    assert_eq!((design.queued(2), design.injected()), (1, 0));
    design.unpark(1);
    assert_eq!(
        next(&mut design, 1),
        Some((TaskId(2), Source::Stolen { victim: 2 }))
    );
}

#[test]
fn go_puts_a_readied_goroutine_in_runnext_and_an_idle_p_steals_it_on_its_last_round() {
    let mut design = build::<GoScheduler>(2);
    design.park(1);
    assert_eq!(
        design.schedule(TaskId(1), Some(0), false),
        (Placement::Lifo { displaced: false }, Some(1)),
        "wakep starts the idle P"
    );
    design.unpark(1);
    assert_eq!(
        next(&mut design, 1),
        Some((TaskId(1), Source::Stolen { victim: 0 }))
    );
    // A second readied goroutine displaces the first to the back of the local queue.
    design.schedule(TaskId(2), Some(0), false);
    assert_eq!(
        design.schedule(TaskId(3), Some(0), false).0,
        Placement::Lifo { displaced: true }
    );
    assert_eq!(next(&mut design, 0), Some((TaskId(3), Source::Lifo)));
    assert_eq!(next(&mut design, 0), Some((TaskId(2), Source::LocalQueue)));
}

#[test]
fn go_sends_gosched_to_the_global_queue_and_polls_the_netpoller_every_10_ms() {
    let mut design = build::<GoScheduler>(2);
    design.park(1);
    assert_eq!(
        design.schedule(TaskId(1), Some(0), true),
        (Placement::Inject, None),
        "Gosched wakes nobody"
    );
    assert!(design.tick(0, 10_000_000), "10 ms since the last netpoll");
    assert!(!design.tick(0, 19_999_999));
    assert!(design.tick(0, 20_000_000));
}

#[test]
fn go_ends_a_runnext_chain_with_its_time_slice() {
    let mut design = build::<GoScheduler>(1);
    design.schedule(TaskId(1), Some(0), false);
    assert_eq!(design.next_lifo_task(0, false, 9_999_999), Some(TaskId(1)));
    design.schedule(TaskId(2), Some(0), false);
    assert_eq!(
        design.next_lifo_task(0, true, 10_000_000),
        None,
        "the slice is over"
    );
    assert_eq!(
        design.queued(0),
        1,
        "the runnext goroutine went to the queue"
    );
    assert_eq!(design.time_slice_ns(), Some(10_000_000));
}

#[test]
fn go_takes_the_global_queue_first_every_61st_schedule_tick() {
    let mut local = build::<GoScheduler>(1);
    for task in 0..100 {
        local.schedule(TaskId(task), Some(0), false);
    }
    local.schedule(TaskId(1000), None, false);
    let position = (1..=61)
        .map(|_| next(&mut local, 0).unwrap().0)
        .position(|task| task == TaskId(1000));
    assert_eq!(position, Some(60), "the 61st tick takes it");
}

#[test]
fn thread_per_core_keeps_each_task_on_its_core_and_never_steals() {
    let mut design = build::<ThreadPerCoreDesign>(2);
    design.park(1);
    assert_eq!(
        design.schedule(TaskId(1), Some(0), false),
        (Placement::Pinned { worker: 0 }, None)
    );
    assert_eq!(
        next(&mut design, 1),
        None,
        "core 1 cannot take core 0's task"
    );
    assert_eq!(next(&mut design, 0), Some((TaskId(1), Source::LocalQueue)));
    // A wake from elsewhere goes to the task's own core, and unparks it if it is parked.
    assert_eq!(
        design.park(0),
        Park::Asleep,
        "core 1 parked first, on the driver"
    );
    assert_eq!(
        design.schedule(TaskId(1), None, false),
        (Placement::Pinned { worker: 0 }, Some(0))
    );
    // Tasks that first arrive from outside are spread round-robin.
    assert_eq!(
        design.schedule(TaskId(2), None, false).0,
        Placement::Pinned { worker: 0 }
    );
    assert_eq!(
        design.schedule(TaskId(3), None, false).0,
        Placement::Pinned { worker: 1 }
    );
}

#[test]
fn every_design_looks_again_for_work_as_it_parks() {
    fn check<B: BuildScheduler>() {
        let mut design = build::<B>(1);
        design.schedule(TaskId(1), None, false);
        assert_eq!(design.park(0), Park::WorkPending, "{}", B::NAME);
    }
    check::<TokioCurrentThread>();
    check::<AsyncExecutorDesign>();
    check::<GoScheduler>();
    check::<ThreadPerCoreDesign>();
    check::<super::super::TokioMultiThread>();
}
