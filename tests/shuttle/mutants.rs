//! Broken protocols that the checks of `tests/shuttle.rs` must catch, one per check, each run in
//! a child process. A mutant counts as caught only if its check fails for the reason the mutant
//! breaks, and the replay command the failure prints reproduces that same failure.

use std::process::Command;

use super::*;

/// Defines a protocol that flips one of [`QueueProtocol`]'s switches.
macro_rules! mutant {
    ($name:ident, $switch:ident) => {
        struct $name;

        impl QueueProtocol for $name {
            const $switch: bool = false;
        }
    };
}

mutant!(ClaimsWithoutCas, CLAIM_WITH_CAS);
mutant!(OverflowsWithoutCas, OVERFLOW_WITH_CAS);
mutant!(CountsRoomFromReal, ROOM_FROM_STEAL);
mutant!(CountsInjectLenAfterUnlocking, INJECT_LEN_UNDER_LOCK);
mutant!(KeepsTheLifoTask, HAND_OFF_LIFO);

mod inner {
    use super::*;

    /// An ignored test that explores `check` until it fails; its outer test runs it.
    macro_rules! inner {
        ($name:ident, $check:expr, $iterations:expr) => {
            inner!($name, $check, $iterations, Strategy::Random);
        };
        ($name:ident, $check:expr, $iterations:expr, $strategy:expr) => {
            #[test]
            #[ignore = "run in a child process by its outer test"]
            fn $name() {
                let test = test_name(module_path!(), stringify!($name));
                explore(&test, COMMAND, $strategy, $iterations, $check);
            }
        };
    }

    inner!(
        claim_without_cas,
        owner_and_thieves::<ClaimsWithoutCas, 1>,
        2000
    );
    inner!(
        overflow_without_cas,
        overflow_while_stealing::<OverflowsWithoutCas>,
        1000
    );
    // The owner must get ahead of a thief's copying: PCT's priorities find that in the first
    // schedules, where random ones need thousands from some seeds.
    inner!(
        room_from_real,
        steal_from_a_full_queue::<CountsRoomFromReal, 2>,
        2000,
        Strategy::Pct
    );
    inner!(
        inject_len_after_unlocking,
        producers_and_consumers::<CountsInjectLenAfterUnlocking>,
        3000
    );
    inner!(lifo_kept, hand_off_while_stealing::<KeepsTheLifoTask>, 3000);
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
        .env_remove("SHUTTLE_ITERATIONS")
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

/// The first panic's message: the line after `panicked at`.
fn panic_message(output: &str) -> &str {
    let mut lines = output
        .lines()
        .skip_while(|line| !line.contains("panicked at"));
    lines
        .nth(1)
        .unwrap_or_else(|| panic!("no panic in: {output}"))
}

/// Runs `mutants::inner::<name>` in a child process and asserts that shuttle caught it with a
/// panic whose message contains `cause`; then runs the one replay command the failure printed
/// and asserts that it fails with the same message.
fn assert_caught_and_replayed(name: &str, cause: &str) {
    let test = format!("mutants::inner::{name}");
    let args = ["--exact", &test, "--include-ignored"];
    let caught = run_child(&args.map(String::from), None);
    assert!(
        !caught.passed,
        "shuttle missed the mutant: {}",
        caught.output
    );
    let message = panic_message(&caught.output);
    assert!(
        message.contains(cause),
        "the mutant failed for another reason than {cause:?}: {message}"
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
    assert_eq!(panic_message(&replayed.output), message);
}

/// The thief undoes a pop that landed between its load and its store of `head`, so the owner
/// and the thief both take the popped task.
#[test]
fn a_steal_that_claims_without_cas_is_caught_and_its_replay_fails_the_same_way() {
    assert_caught_and_replayed("claim_without_cas", "was taken 2 times");
}

/// The owner's store of `head` undoes a thief's claim, so the claimed tasks go both to the thief
/// and to the inject queue.
#[test]
fn an_overflow_that_claims_without_cas_hands_tasks_out_twice_and_is_caught() {
    assert_caught_and_replayed("overflow_without_cas", "was taken 2 times");
}

/// The owner reuses slots a thief has claimed but not yet copied: the thief copies the newer
/// tasks, and the ones it claimed are lost.
#[test]
fn a_push_that_counts_room_from_real_overwrites_a_running_steal_and_is_caught() {
    assert_caught_and_replayed("room_from_real", "was taken 0 times");
}

/// A consumer's batch is subtracted before a producer's push is added, and the length wraps
/// below zero.
#[test]
fn an_inject_length_counted_after_unlocking_goes_below_zero_and_is_caught() {
    assert_caught_and_replayed("inject_len_after_unlocking", "len() read 1844674407370955");
}

/// tokio #6596: the worker blocks with a task in its LIFO slot, where no other worker can reach
/// it.
#[test]
fn a_block_in_place_that_keeps_the_lifo_task_is_caught() {
    assert_caught_and_replayed("lifo_kept", "the hand-off left a task in the slot");
}
