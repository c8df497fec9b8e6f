//! shuttle checks of the executor's concurrent queues: workers push, pop, steal, overflow and
//! hand off at once, under shuttle's random and PCT schedulers.
//!
//! Invariants, in every schedule:
//! - every task pushed is taken exactly once: popped, stolen and run, stolen into a thief's queue
//!   and drained from there, or moved to the inject queue and drained from there;
//! - `len()` read by any thread at any time lies between 0 and the capacity (a length that went
//!   "negative" would wrap to a huge number);
//! - the owner pops its own tasks in push order, and a consumer of the inject queue sees each
//!   producer's tasks in push order;
//! - after a LIFO hand-off, nothing is stuck: stealing alone reaches every task left.
//!
//! The local queues start near `u32::MAX`, so their indices wrap during most schedules. shuttle
//! runs every atomic as `SeqCst`; the memory orderings are loom's to check
//! (`tests/loom_executor.rs`).
//!
//! Every check has a mutant in `mutants` (`tests/shuttle/mutants.rs`): a protocol with one step
//! broken, which the check must fail for the reason the step exists, and whose printed replay
//! command must fail the same way.
//!
//! Each check runs 1,000 to 3,000 schedules per scheduler, sized for CI (the file takes about
//! 10 s in a debug build on 2 cores). Environment:
//! - `SHUTTLE_ITERATIONS=100000` runs that many schedules per scheduler instead;
//! - `SHUTTLE_RANDOM_SEED=7` (shuttle's own variable) explores from another seed; the default seed
//!   is fixed, so every run explores the same schedules;
//! - `SHUTTLE_REPLAY=<file>` replays one failing schedule. A failure writes its schedule to a
//!   file and prints the one command that replays it, such as
//!   `replay: SHUTTLE_REPLAY=target/tmp/shuttle/x.schedule cargo test --test shuttle -- --exact x
//!   --include-ignored`. The file names its test, and only that test replays it.

use std::sync::Arc;
use std::sync::atomic::Ordering::SeqCst;

use shuttle::sync::atomic::AtomicBool;
use shuttle::thread;
use ticklab_models::executor::{
    Inject, LOCAL_QUEUE_CAPACITY, LifoSlot, LocalQueue, QueueProtocol, TaskId, TokioQueues,
};
use ticklab_models::sync::ShuttlePrimitives;

type Queue<P> = LocalQueue<ShuttlePrimitives, P>;
type Global<P> = Inject<ShuttlePrimitives, P>;

/// Where the local queues' indices start: a few pushes from the `u32` wrap.
const NEAR_WRAP: u32 = u32::MAX - 4;

use ticklab::battery::{Strategy, explore};

/// What runs one test of this binary, in the replay line a failure prints.
const COMMAND: &str = "cargo test --test shuttle --";

/// The test's name as `cargo test` prints it: `module_path` without the crate.
fn test_name(module_path: &str, test: &str) -> String {
    let module = module_path.split_once("::").map_or("", |(_, rest)| rest);
    format!("{module}::{test}")
}

/// A module of two tests, one per scheduler, that run `check` for `iterations` schedules.
macro_rules! explored {
    ($module:ident, $check:expr, $iterations:expr) => {
        mod $module {
            use super::*;

            #[test]
            fn random_schedules() {
                let test = test_name(module_path!(), "random_schedules");
                explore(&test, COMMAND, Strategy::Random, $iterations, $check);
            }

            #[test]
            fn pct_schedules() {
                let test = test_name(module_path!(), "pct_schedules");
                explore(&test, COMMAND, Strategy::Pct, $iterations, $check);
            }
        }
    };
}

explored!(
    local_queue_one_thief,
    owner_and_thieves::<TokioQueues, 1>,
    3000
);
explored!(
    local_queue_two_thieves,
    owner_and_thieves::<TokioQueues, 2>,
    3000
);
explored!(
    local_queue_overflow,
    overflow_while_stealing::<TokioQueues>,
    1000
);
explored!(
    local_queue_full,
    steal_from_a_full_queue::<TokioQueues, 2>,
    2000
);
explored!(inject_queue, producers_and_consumers::<TokioQueues>, 3000);
explored!(lifo_hand_off, hand_off_while_stealing::<TokioQueues>, 3000);

/// Asserts that `taken` holds each of `0..tasks` exactly once.
fn assert_each_taken_once(tasks: u32, taken: impl IntoIterator<Item = TaskId>) {
    let mut times = vec![0_usize; tasks as usize];
    for task in taken {
        assert!(task.0 < tasks, "task {} was never pushed", task.0);
        times[task.0 as usize] += 1;
    }
    for (task, &count) in times.iter().enumerate() {
        assert_eq!(count, 1, "task {task} was taken {count} times");
    }
}

/// `queue.len()`, asserted to lie within the capacity.
fn checked_len<P: QueueProtocol>(queue: &Queue<P>) -> usize {
    let len = queue.len();
    assert!(len <= LOCAL_QUEUE_CAPACITY, "len() read {len}");
    len
}

fn assert_ascending(who: &str, tasks: &[TaskId]) {
    assert!(
        tasks.is_sorted(),
        "{who} took tasks out of push order: {tasks:?}"
    );
}

fn drain<P: QueueProtocol>(queue: &Queue<P>) -> Vec<TaskId> {
    std::iter::from_fn(|| queue.pop()).collect()
}

fn drain_inject<P: QueueProtocol>(inject: &Global<P>) -> Vec<TaskId> {
    std::iter::from_fn(|| inject.pop()).collect()
}

/// Ends a local-queue check: the owner drains its queue (in push order), the thieves hand in
/// what they took, the inject queue is drained, and every task must have been taken once.
fn assert_owner_thieves_and_inject_took_each_once<P: QueueProtocol>(
    tasks: u32,
    owner: &Queue<P>,
    mut popped: Vec<TaskId>,
    thieves: Vec<thread::JoinHandle<Vec<TaskId>>>,
    inject: &Global<P>,
) {
    popped.extend(drain(owner));
    assert_ascending("the owner", &popped);
    let mut taken = popped;
    for thief in thieves {
        taken.extend(thief.join().unwrap());
    }
    taken.extend(drain_inject(inject));
    assert_each_taken_once(tasks, taken);
}

/// The owner pushes 8 tasks and pops after every other push; each of `THIEVES` thieves steals
/// twice from the owner and, if there is another thief, once from it, then drains its own queue.
fn owner_and_thieves<P: QueueProtocol, const THIEVES: usize>() {
    const TASKS: u32 = 8;
    let owner = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let thieves: Arc<Vec<Queue<P>>> = Arc::new(
        (0..THIEVES)
            .map(|_| Queue::starting_at(NEAR_WRAP))
            .collect(),
    );
    let inject = Global::<P>::new();
    let handles: Vec<_> = (0..THIEVES)
        .map(|thief| {
            let (owner, thieves) = (owner.clone(), thieves.clone());
            thread::spawn(move || {
                let own = &thieves[thief];
                let next = &thieves[(thief + 1) % THIEVES];
                let mut taken = Vec::new();
                for victim in [&*owner, &*owner, next] {
                    if !std::ptr::eq(victim, own) {
                        taken.extend(victim.steal_into(own));
                    }
                    checked_len(victim);
                    checked_len(own);
                }
                taken.extend(drain(own));
                taken
            })
        })
        .collect();

    let mut popped = Vec::new();
    for task in 0..TASKS {
        assert_eq!(owner.push_back_or_overflow(TaskId(task), &inject), 0);
        if task % 2 == 1 {
            popped.extend(owner.pop());
        }
        checked_len(&owner);
    }
    assert_owner_thieves_and_inject_took_each_once(TASKS, &owner, popped, handles, &inject);
}

/// `THIEVES` thieves steal from a full queue while the owner pops and pushes four times, then
/// pushes half a queue more. The owner must not reuse the slots a thief is still copying, and
/// pushes to the inject queue until the steal ends; a second thief must give up meanwhile.
fn steal_from_a_full_queue<P: QueueProtocol, const THIEVES: usize>() {
    const FULL: u32 = LOCAL_QUEUE_CAPACITY as u32;
    const POPPING: u32 = 4;
    const TASKS: u32 = FULL + POPPING + FULL / 2 + 8;
    let owner = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let inject = Global::<P>::new();
    for task in 0..FULL {
        owner.push_back_or_overflow(TaskId(task), &inject);
    }
    let thieves: Vec<_> = (0..THIEVES)
        .map(|_| {
            let owner = owner.clone();
            thread::spawn(move || {
                let own = Queue::<P>::new();
                let mut taken: Vec<TaskId> = owner.steal_into(&own).into_iter().collect();
                checked_len(&owner);
                taken.extend(drain(&own));
                taken
            })
        })
        .collect();

    let mut popped = Vec::new();
    for task in FULL..TASKS {
        if task < FULL + POPPING {
            popped.extend(owner.pop());
        }
        owner.push_back_or_overflow(TaskId(task), &inject);
        checked_len(&owner);
    }
    assert_owner_thieves_and_inject_took_each_once(TASKS, &owner, popped, thieves, &inject);
}

/// The owner pushes three times its capacity, popping after every fourth push, while two
/// thieves watch the queue's length and each steals twice when it is full. So the owner's
/// overflows race the thieves' claims: some find a steal copying its batch out, some lose the
/// claim to a thief and retry. The thieves read `len()` across those overflows.
fn overflow_while_stealing<P: QueueProtocol>() {
    const TASKS: u32 = 3 * LOCAL_QUEUE_CAPACITY as u32;
    let owner = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let inject = Arc::new(Global::<P>::new());
    let pushed_all = Arc::new(AtomicBool::new(false));
    let thieves: Vec<_> = (0..2)
        .map(|_| {
            let (owner, pushed_all) = (owner.clone(), pushed_all.clone());
            thread::spawn(move || {
                let own = Queue::<P>::new();
                let mut taken = Vec::new();
                let mut steals = 0;
                while !pushed_all.load(SeqCst) {
                    if checked_len(&owner) == LOCAL_QUEUE_CAPACITY && steals < 2 {
                        taken.extend(owner.steal_into(&own));
                        taken.extend(drain(&own));
                        steals += 1;
                    }
                    thread::yield_now();
                }
                taken
            })
        })
        .collect();

    let mut popped = Vec::new();
    for task in 0..TASKS {
        let moved = owner.push_back_or_overflow(TaskId(task), &inject);
        assert!(
            [0, 1, LOCAL_QUEUE_CAPACITY / 2 + 1].contains(&moved),
            "{moved} moved"
        );
        if task % 4 == 3 {
            popped.extend(owner.pop());
        }
        checked_len(&owner);
    }
    pushed_all.store(true, SeqCst);
    assert_owner_thieves_and_inject_took_each_once(TASKS, &owner, popped, thieves, &inject);
}

/// Two producers push 6 tasks each, singly and in a batch; two consumers pop singly and in
/// batches; the rest is drained at the end.
fn producers_and_consumers<P: QueueProtocol>() {
    const PER_PRODUCER: u32 = 6;
    const TASKS: u32 = 2 * PER_PRODUCER;
    let inject = Arc::new(Global::<P>::new());
    let producers: Vec<_> = (0..2)
        .map(|producer| {
            let inject = inject.clone();
            thread::spawn(move || {
                let first = producer * PER_PRODUCER;
                inject.push(TaskId(first));
                inject.push_batch((first + 1..first + 4).map(TaskId));
                inject.push(TaskId(first + 4));
                inject.push(TaskId(first + 5));
            })
        })
        .collect();
    let consumers: Vec<_> = (0..2)
        .map(|consumer| {
            let inject = inject.clone();
            thread::spawn(move || {
                let mut taken = Vec::new();
                for _ in 0..3 {
                    match consumer {
                        0 => taken.extend(inject.pop()),
                        _ => taken.extend(inject.pop_batch(2)),
                    }
                    let len = inject.len();
                    assert!(len <= TASKS as usize, "len() read {len}");
                }
                for producer in 0..2 {
                    let from_producer: Vec<TaskId> = taken
                        .iter()
                        .copied()
                        .filter(|task| task.0 / PER_PRODUCER == producer)
                        .collect();
                    assert_ascending("a consumer", &from_producer);
                }
                taken
            })
        })
        .collect();

    producers
        .into_iter()
        .for_each(|producer| producer.join().unwrap());
    let mut taken: Vec<TaskId> = consumers
        .into_iter()
        .flat_map(|consumer| consumer.join().unwrap())
        .collect();
    taken.extend(drain_inject(&inject));
    assert!(inject.is_empty());
    assert_each_taken_once(TASKS, taken);
}

/// The owner puts 7 tasks in its LIFO slot, each displacing the last into its queue, runs some
/// from the slot, then hands the slot off and blocks, while a thief steals. Afterwards stealing
/// alone must reach every task left.
fn hand_off_while_stealing<P: QueueProtocol>() {
    const TASKS: u32 = 7;
    let queue = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let inject = Arc::new(Global::<P>::new());
    let lifo = Arc::new(LifoSlot::<ShuttlePrimitives, P>::new());
    let owner = {
        let (queue, inject, lifo) = (queue.clone(), inject.clone(), lifo.clone());
        thread::spawn(move || {
            let mut ran = Vec::new();
            for task in 0..TASKS {
                if let Some(displaced) = lifo.put(TaskId(task)) {
                    queue.push_back_or_overflow(displaced, &inject);
                }
                if task % 3 == 2 {
                    ran.extend(lifo.take());
                }
            }
            (ran, lifo.hand_off(&queue, &inject))
        })
    };
    let thief = {
        let queue = queue.clone();
        thread::spawn(move || {
            let own = Queue::<P>::new();
            let mut taken = Vec::new();
            for _ in 0..2 {
                taken.extend(queue.steal_into(&own));
                checked_len(&queue);
            }
            taken.extend(drain(&own));
            taken
        })
    };

    let (mut taken, moved) = owner.join().unwrap();
    assert!(lifo.is_empty(), "the hand-off left a task in the slot");
    assert!(
        moved,
        "the last task was in the slot, yet the hand-off moved nothing"
    );
    taken.extend(thief.join().unwrap());
    let rescuer = Queue::<P>::new();
    while let Some(task) = queue.steal_into(&rescuer) {
        taken.push(task);
        taken.extend(drain(&rescuer));
    }
    assert!(queue.is_empty(), "stealing left {} tasks", queue.len());
    taken.extend(drain_inject(&inject));
    assert_each_taken_once(TASKS, taken);
}

#[path = "shuttle/mutants.rs"]
mod mutants;

#[path = "mutant_designs/mod.rs"]
mod mutant_designs;

#[path = "shuttle/timer_mutants.rs"]
mod timer_mutants;

/// Every registered timer design under `ticklab::battery`'s shuttle setups: more schedulers and
/// timers than loom can explore (`tests/loom.rs` runs the same setups exhaustively at a smaller
/// size).
#[test]
fn every_timer_design_passes_the_shuttle_battery() {
    let registry = ticklab::Registry::builtin();
    let designs: Vec<_> = registry.timer_designs().collect();
    assert!(designs.len() >= 3, "the built-in designs are registered");
    for design in designs {
        design.run_shuttle_battery();
    }
}
