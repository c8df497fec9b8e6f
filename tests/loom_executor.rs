//! loom model checks of the executor's local queue: a thief's `steal_into` races the owner's
//! `pop` and `push_back_or_overflow`, in every interleaving and every memory-ordering outcome
//! loom can reach within its preemption bound. shuttle (`tests/shuttle.rs`) runs larger
//! schedules but treats every atomic as `SeqCst`; these checks are the ones that see orderings.
//!
//! Invariants:
//! - every task pushed is taken exactly once, by a pop, a steal or a drain;
//! - a thief reads the task the owner wrote, never an older slot value (task ids start at 1, so
//!   a slot still holding its initial 0 shows up as a task nobody pushed);
//! - `len()` read by the thief lies within the capacity.
//!
//! The bounds suit CI: at most 2 preemptions, unless `LOOM_MAX_PREEMPTIONS` says otherwise
//! (`LOOM_MAX_PREEMPTIONS=3 cargo test --release --test loom_executor` for a deeper run).
//!
//! `mutants` proves that the checks see orderings: a thief that loads `tail` relaxed, which
//! shuttle cannot catch, must fail the check that a thief reads what the owner wrote.

use loom::sync::Arc;
use loom::thread;
use ticklab_models::executor::{
    Inject, LOCAL_QUEUE_CAPACITY, LocalQueue, QueueProtocol, TaskId, TokioQueues,
};
use ticklab_models::sync::LoomPrimitives;

type Queue<P = TokioQueues> = LocalQueue<LoomPrimitives, P>;

fn model(check: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        builder.preemption_bound = Some(2);
    }
    // Filling a queue to capacity takes about 1,000 atomic operations, each a branch to loom,
    // before any thread runs concurrently.
    if std::env::var_os("LOOM_MAX_BRANCHES").is_none() {
        builder.max_branches = 4 * LOCAL_QUEUE_CAPACITY + 1_000;
    }
    builder.check(check);
}

/// Asserts that `taken` holds each of `1..=tasks` exactly once.
fn assert_each_taken_once(tasks: u32, mut taken: Vec<TaskId>) {
    assert!(
        !taken.contains(&TaskId(0)),
        "a thief read a slot's value from before the owner's write: {taken:?}"
    );
    taken.sort();
    assert_eq!(taken, (1..=tasks).map(TaskId).collect::<Vec<_>>());
}

fn drain<P: QueueProtocol>(queue: &Queue<P>) -> Vec<TaskId> {
    std::iter::from_fn(|| queue.pop()).collect()
}

/// A thief that steals once from `victim`, checking its length, then drains its own queue.
fn spawn_thief<P: QueueProtocol>(victim: &Arc<Queue<P>>) -> thread::JoinHandle<Vec<TaskId>> {
    let victim = victim.clone();
    thread::spawn(move || {
        let own = Queue::<P>::new();
        let mut taken: Vec<TaskId> = victim.steal_into(&own).into_iter().collect();
        let len = victim.len();
        assert!(len <= LOCAL_QUEUE_CAPACITY, "len() read {len}");
        taken.extend(drain(&own));
        taken
    })
}

#[test]
fn a_steal_racing_pops_takes_each_task_once() {
    model(|| {
        const TASKS: u32 = 3;
        let (owner, inject) = (Arc::new(Queue::new()), Inject::<LoomPrimitives>::new());
        for task in 1..=TASKS {
            owner.push_back_or_overflow(TaskId(task), &inject);
        }
        let thief = spawn_thief(&owner);

        let mut taken: Vec<TaskId> = owner.pop().into_iter().collect();
        taken.extend(owner.pop());
        taken.extend(thief.join().unwrap());
        taken.extend(drain(&owner));
        assert_each_taken_once(TASKS, taken);
    });
}

/// The owner pushes two tasks while a thief steals.
fn steal_racing_pushes<P: QueueProtocol>() {
    const TASKS: u32 = 2;
    let owner = Arc::new(Queue::<P>::new());
    let inject = Inject::<LoomPrimitives, P>::new();
    let thief = spawn_thief(&owner);

    for task in 1..=TASKS {
        assert_eq!(owner.push_back_or_overflow(TaskId(task), &inject), 0);
    }
    let mut taken = thief.join().unwrap();
    taken.extend(drain(&owner));
    assert_each_taken_once(TASKS, taken);
}

#[test]
fn a_steal_racing_pushes_reads_what_the_owner_wrote() {
    model(steal_racing_pushes::<TokioQueues>);
}

#[test]
fn a_thief_stealing_from_a_thief_takes_each_task_once() {
    model(|| {
        // The middle thief steals 2, runs 1 and keeps 1 for the last thief to steal.
        const TASKS: u32 = 4;
        let (owner, inject) = (Arc::new(Queue::new()), Inject::<LoomPrimitives>::new());
        let middle = Arc::new(Queue::new());
        for task in 1..=TASKS {
            owner.push_back_or_overflow(TaskId(task), &inject);
        }
        let last = spawn_thief(&middle);

        let mut taken: Vec<TaskId> = owner.steal_into(&middle).into_iter().collect();
        taken.extend(drain(&middle));
        taken.extend(last.join().unwrap());
        taken.extend(drain(&owner));
        assert_each_taken_once(TASKS, taken);
    });
}

#[test]
fn len_stays_within_the_capacity_while_a_full_queue_pops_and_pushes() {
    model(|| {
        const FULL: u32 = LOCAL_QUEUE_CAPACITY as u32;
        let (owner, inject) = (Arc::new(Queue::new()), Inject::<LoomPrimitives>::new());
        for task in 1..=FULL {
            owner.push_back_or_overflow(TaskId(task), &inject);
        }
        let reader = {
            let owner = owner.clone();
            thread::spawn(move || owner.len())
        };

        let popped = owner.pop();
        assert_eq!(owner.push_back_or_overflow(TaskId(FULL + 1), &inject), 0);
        let len = reader.join().unwrap();
        assert!(
            (FULL as usize - 1..=LOCAL_QUEUE_CAPACITY).contains(&len),
            "len() read {len}"
        );
        assert_eq!(popped, Some(TaskId(1)));
    });
}

/// Deliberately broken orderings that loom must catch. A failing loom model may abort the
/// process, so each runs in a child process: the `inner` test is ignored in normal runs and
/// started by its outer test, which reads the child's output for the failure's cause.
mod mutants {
    use super::*;

    struct LoadsTailRelaxedInClaim;

    impl QueueProtocol for LoadsTailRelaxedInClaim {
        const CLAIM_ACQUIRES_TAIL: bool = false;
    }

    mod inner {
        use super::*;

        #[test]
        #[ignore = "run in a child process by its outer test"]
        fn relaxed_tail_in_claim() {
            model(steal_racing_pushes::<LoadsTailRelaxedInClaim>);
        }
    }

    /// Runs `mutants::inner::<name>` in a child process; if its model failed, its first panic's
    /// message (the line after `panicked at`).
    fn failure_of(name: &str) -> Option<String> {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &format!("mutants::inner::{name}"),
                "--ignored",
                "--test-threads=1",
            ])
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            text.contains("running 1 test"),
            "the child did not run {name}: {text}"
        );
        let mut lines = text
            .lines()
            .skip_while(|line| !line.contains("panicked at"));
        (!output.status.success()).then(|| lines.nth(1).unwrap_or_default().to_string())
    }

    /// Seeing the owner's new `tail` without acquire does not make its write to the slot
    /// visible: the thief copies the slot's initial 0. shuttle, which runs every atomic as
    /// `SeqCst`, can never see this.
    #[test]
    fn a_relaxed_tail_load_in_claim_half_is_caught_by_loom() {
        let panic = failure_of("relaxed_tail_in_claim").expect("loom missed the mutant");
        assert!(
            panic.starts_with("a thief read a slot's value from before the owner's write"),
            "the mutant failed for another reason: {panic}"
        );
    }
}
