//! The threads of a harness run beside the runtime thread: the blocking pool, threads the code
//! under test starts itself, and the thread that reports a panic. Each keeps the run's promises:
//! a panic fails it, `note` works, and nothing the harness does depends on the real clock.

use std::time::{Duration, Instant};

use ticklab::sim::Platform;
use ticklab::tokio::{Harness, note};

#[test]
#[should_panic(
    expected = "a thread the code under test started panicked at tests/tokio_threads.rs"
)]
fn a_panic_in_a_thread_the_code_starts_itself_fails_the_run() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    harness.run(|| async {
        // The join says the thread panicked, and the code goes on as if nothing happened: only
        // the harness can tell the test.
        let joined = std::thread::spawn(|| panic!("boom")).join();
        assert!(joined.is_err());
        tokio::time::sleep(Duration::from_secs(1)).await;
    });
}

#[test]
fn a_thread_started_inside_a_run_that_does_not_panic_changes_nothing() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    let run = harness.run(|| async {
        let sum = std::thread::spawn(|| (1..=10).sum::<u32>()).join().unwrap();
        tokio::time::sleep(Duration::from_secs(1)).await;
        sum
    });
    assert_eq!(run.value(), Some(&55));
}

/// Two runs of the same code under the same conditions read the same `Instant`s: the simulated
/// clocks start from a fixed reading, not from the host's clock at the start of the run.
#[test]
fn two_identical_runs_read_byte_identical_instants() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    let readings = || {
        let run = harness.run(|| async {
            let before = Instant::now();
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            let blocking = tokio::task::spawn_blocking(Instant::now).await.unwrap();
            format!("{before:?} {:?} {blocking:?}", tokio::time::Instant::now())
        });
        run.value().cloned().expect("the body finished")
    };
    let first = readings();
    // Real time passes between the runs, which a clock based on the host's would show.
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(first, readings());
}

#[test]
fn a_note_from_a_blocking_thread_is_recorded_at_the_simulated_moment() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    let run = harness.run(|| async {
        tokio::time::sleep(Duration::from_secs(3)).await;
        tokio::task::spawn_blocking(|| note("from the pool"))
            .await
            .unwrap();
    });
    let times_ns: Vec<u64> = run
        .notes_of("from the pool")
        .map(|note| note.t_ns)
        .collect();
    assert_eq!(times_ns, [3_000_000_000]);
}

/// `busy` holds the runtime thread, which a blocking thread cannot do; the refusal points at the
/// caller's line, not at ticklab's.
#[test]
#[should_panic(expected = "panicked at tests/tokio_threads.rs")]
fn busy_on_a_blocking_thread_is_refused_at_the_caller_s_line() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    harness.run(|| async {
        tokio::task::spawn_blocking(|| ticklab::tokio::busy(Duration::from_secs(1)))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(1)).await;
    });
}

/// Printing a panic's backtrace can take a second of real time; the stall watch must not take
/// that for a stuck thread. The report is made slow by a hook installed before the harness's
/// own, as `RUST_BACKTRACE=1` makes std's hook slow; the test runs itself again as a process of
/// its own, so that its hook is the first one there.
#[test]
fn a_slow_panic_report_is_no_stall() {
    const CHILD: &str = "TICKLAB_TEST_SLOW_PANIC_REPORT";
    if std::env::var_os(CHILD).is_some() {
        report_a_panic_slowly();
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "a_slow_panic_report_is_no_stall", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("the slow report is over"), "{stderr}");
    assert!(!stderr.contains("may be stuck"), "{stderr}");
    assert!(!stderr.contains("stood still"), "{stderr}");
}

fn report_a_panic_slowly() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A thread of its own keeps the real clock: the report takes 1.5 s of real time.
        std::thread::spawn(|| std::thread::sleep(Duration::from_millis(1_500)))
            .join()
            .unwrap();
        previous(info);
        eprintln!("the slow report is over");
    }));
    let harness = Harness::on(Platform::Linux)
        .build()
        .unwrap()
        .swallowing_task_panics();
    let run = harness.run(|| async {
        note("before the panic");
        let panicked = tokio::spawn(async { panic!("reported slowly") }).await;
        assert!(panicked.is_err());
        tokio::time::sleep(Duration::from_secs(1)).await;
    });
    // The stretch that held the report is no longer than the polls in it.
    let slow: Vec<&String> = run
        .warnings()
        .iter()
        .filter(|warning| warning.contains("after the note \"before the panic\""))
        .collect();
    assert!(slow.is_empty(), "{slow:?}");
}
