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
//! Each check runs 1,000 to 3,000 schedules per scheduler, sized for CI (the file takes about
//! 7 s in a debug build on 2 cores). Environment:
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
    Inject, LOCAL_QUEUE_CAPACITY, LifoSlot, LocalQueue, StealProtocol, TaskId, TokioSteal,
};
use ticklab_models::sync::ShuttlePrimitives;

type Queue<P> = LocalQueue<ShuttlePrimitives, P>;
type Global = Inject<ShuttlePrimitives>;

/// Where the local queues' indices start: a few pushes from the `u32` wrap.
const NEAR_WRAP: u32 = u32::MAX - 4;

#[path = "shuttle/schedules.rs"]
mod schedules;

use schedules::{Strategy, explore};

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
                explore(&test, Strategy::Random, $iterations, $check);
            }

            #[test]
            fn pct_schedules() {
                let test = test_name(module_path!(), "pct_schedules");
                explore(&test, Strategy::Pct, $iterations, $check);
            }
        }
    };
}

explored!(
    local_queue_one_thief,
    owner_and_thieves::<TokioSteal, 1>,
    3000
);
explored!(
    local_queue_two_thieves,
    owner_and_thieves::<TokioSteal, 2>,
    3000
);
explored!(
    local_queue_overflow,
    overflow_while_stealing::<TokioSteal>,
    1000
);
explored!(
    local_queue_full,
    steal_from_a_full_queue::<TokioSteal, 2>,
    2000
);
explored!(inject_queue, producers_and_consumers, 3000);
explored!(lifo_hand_off, hand_off_while_stealing::<TokioSteal>, 3000);

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
fn checked_len<P: StealProtocol>(queue: &Queue<P>) -> usize {
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

fn drain<P: StealProtocol>(queue: &Queue<P>) -> Vec<TaskId> {
    std::iter::from_fn(|| queue.pop()).collect()
}

fn drain_inject(inject: &Global) -> Vec<TaskId> {
    std::iter::from_fn(|| inject.pop()).collect()
}

/// Ends a local-queue check: the owner drains its queue (in push order), the thieves hand in
/// what they took, the inject queue is drained, and every task must have been taken once.
fn assert_owner_thieves_and_inject_took_each_once<P: StealProtocol>(
    tasks: u32,
    owner: &Queue<P>,
    mut popped: Vec<TaskId>,
    thieves: Vec<thread::JoinHandle<Vec<TaskId>>>,
    inject: &Global,
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
fn owner_and_thieves<P: StealProtocol, const THIEVES: usize>() {
    const TASKS: u32 = 8;
    let owner = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let thieves: Arc<Vec<Queue<P>>> = Arc::new(
        (0..THIEVES)
            .map(|_| Queue::starting_at(NEAR_WRAP))
            .collect(),
    );
    let inject = Global::new();
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
fn steal_from_a_full_queue<P: StealProtocol, const THIEVES: usize>() {
    const FULL: u32 = LOCAL_QUEUE_CAPACITY as u32;
    const POPPING: u32 = 4;
    const TASKS: u32 = FULL + POPPING + FULL / 2 + 8;
    let owner = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let inject = Global::new();
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
/// thieves watch the queue's length and each steals twice when it is nearly full. Full queues
/// overflow into the inject queue, some while a steal is copying its batch out, and the thieves
/// read `len()` across those overflows.
fn overflow_while_stealing<P: StealProtocol>() {
    const TASKS: u32 = 3 * LOCAL_QUEUE_CAPACITY as u32;
    const NEARLY_FULL: usize = LOCAL_QUEUE_CAPACITY - 16;
    let owner = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let inject = Arc::new(Global::new());
    let pushed_all = Arc::new(AtomicBool::new(false));
    let thieves: Vec<_> = (0..2)
        .map(|_| {
            let (owner, pushed_all) = (owner.clone(), pushed_all.clone());
            thread::spawn(move || {
                let own = Queue::<P>::new();
                let mut taken = Vec::new();
                let mut steals = 0;
                while !pushed_all.load(SeqCst) {
                    if checked_len(&owner) >= NEARLY_FULL && steals < 2 {
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
fn producers_and_consumers() {
    const PER_PRODUCER: u32 = 6;
    const TASKS: u32 = 2 * PER_PRODUCER;
    let inject = Arc::new(Global::new());
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
fn hand_off_while_stealing<P: StealProtocol>() {
    const TASKS: u32 = 7;
    let queue = Arc::new(Queue::<P>::starting_at(NEAR_WRAP));
    let inject = Arc::new(Global::new());
    let lifo = Arc::new(LifoSlot::<ShuttlePrimitives>::new());
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
            assert!(
                lifo.hand_off(&queue, &inject),
                "the last task was in the slot"
            );
            ran
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

    let mut taken = owner.join().unwrap();
    assert!(lifo.is_empty(), "the hand-off left a task in the slot");
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

mod mutants {
    //! Broken protocols that the checks above must catch, each run in a child process whose
    //! printed replay command must reproduce the same failure.

    use std::process::Command;

    use super::*;

    struct ClaimsWithoutCas;

    impl StealProtocol for ClaimsWithoutCas {
        const CLAIM_WITH_CAS: bool = false;
    }

    mod inner {
        use super::*;

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn claim_without_cas() {
            let test = test_name(module_path!(), "claim_without_cas");
            explore(
                &test,
                Strategy::Random,
                2000,
                owner_and_thieves::<ClaimsWithoutCas, 1>,
            );
        }
    }

    /// What a child run of this test binary printed, and whether it passed.
    struct Child {
        passed: bool,
        output: String,
    }

    fn run_child(args: &[String], replay: Option<&str>) -> Child {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(args)
            .args(["--nocapture", "--test-threads=1"])
            .env("RUST_BACKTRACE", "0")
            .env_remove("SHUTTLE_RANDOM_SEED")
            .env_remove("SHUTTLE_REPLAY");
        if let Some(file) = replay {
            command.env("SHUTTLE_REPLAY", file);
        }
        let child = command.output().unwrap();
        let output = format!(
            "{}{}",
            String::from_utf8_lossy(&child.stdout),
            String::from_utf8_lossy(&child.stderr)
        );
        assert!(output.contains("running 1 test"), "no test ran: {output}");
        Child {
            passed: child.status.success(),
            output,
        }
    }

    /// The panic's message: the line after `panicked at`.
    fn panic_message(output: &str) -> &str {
        let mut lines = output
            .lines()
            .skip_while(|line| !line.contains("panicked at"));
        lines
            .nth(1)
            .unwrap_or_else(|| panic!("no panic in: {output}"))
    }

    #[test]
    fn a_steal_that_claims_without_cas_is_caught_and_its_replay_fails_the_same_way() {
        let args = [
            "--exact",
            "mutants::inner::claim_without_cas",
            "--include-ignored",
        ];
        let caught = run_child(&args.map(String::from), None);
        assert!(
            !caught.passed,
            "shuttle missed the mutant: {}",
            caught.output
        );

        let replays: Vec<&str> = caught
            .output
            .lines()
            .filter_map(|line| line.strip_prefix("replay: "))
            .collect();
        assert_eq!(
            replays.len(),
            1,
            "not one replay command: {}",
            caught.output
        );
        let words = shlex::split(replays[0]).expect("a shell command");
        let file = words[0]
            .strip_prefix("SHUTTLE_REPLAY=")
            .expect("the command sets SHUTTLE_REPLAY");
        assert_eq!(words[1..6], ["cargo", "test", "--test", "shuttle", "--"]);

        let replayed = run_child(&words[6..], Some(file));
        assert!(!replayed.passed, "the replay passed: {}", replayed.output);
        assert!(replayed.output.contains("replaying"), "{}", replayed.output);
        assert_eq!(
            panic_message(&replayed.output),
            panic_message(&caught.output)
        );
    }
}
