//! Timed waits on std primitives, and loops on `Instant::now()`, where simulated time stands
//! still: on a `spawn_blocking` thread (tokio's paused clock does not move while one runs) and
//! holding the runtime thread. None can end inside the simulation; each must stop the run after
//! the harness's bound of real time, naming the wait, instead of hanging or passing in silence.

use std::sync::{Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

use ticklab::sim::Platform;
use ticklab::tokio::Harness;

/// The bound the tests give the harness, in real time.
const STOP_AFTER: Duration = Duration::from_secs(2);

fn harness() -> Harness {
    Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(600))
        .build()
        .unwrap()
        .stop_when_stuck_for(STOP_AFTER)
}

/// Runs `body` and returns the message the run failed with, checking that it failed within a
/// few bounds of real time.
fn failure_of<F: Future<Output = ()>>(body: impl FnOnce() -> F) -> String {
    let real = Instant::now();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| harness().run(body)));
    let took = real.elapsed();
    let payload = outcome.expect_err("the run was stopped");
    let message = match (
        payload.downcast_ref::<String>(),
        payload.downcast_ref::<&str>(),
    ) {
        (Some(text), _) => text.clone(),
        (_, Some(text)) => (*text).to_string(),
        _ => panic!("a panic without a message"),
    };
    assert!(took < STOP_AFTER * 5, "stopped after {took:?}: {message}");
    message
}

#[test]
fn a_condvar_wait_timeout_on_a_blocking_thread_stops_the_run() {
    let message = failure_of(|| async {
        // Ahead of the real clock, where a deadline from the simulated clock used to make the
        // kernel wait as long as the run was ahead, then report a timeout after 0 ns.
        tokio::time::sleep(Duration::from_secs(40)).await;
        tokio::task::spawn_blocking(|| {
            let lock = Mutex::new(());
            let nobody_signals = Condvar::new();
            let guard = lock.lock().unwrap();
            let _ = nobody_signals
                .wait_timeout(guard, Duration::from_millis(100))
                .unwrap();
        })
        .await
        .unwrap();
    });
    assert!(
        message.contains("stood still at 40s of physical time"),
        "{message}"
    );
    assert!(message.contains("a spawn_blocking task"), "{message}");
    assert!(message.contains("Condvar::wait_timeout"), "{message}");
}

#[test]
fn a_recv_timeout_on_a_blocking_thread_stops_the_run() {
    let message = failure_of(|| async {
        let (_sender, receiver) = mpsc::channel::<()>();
        tokio::task::spawn_blocking(move || {
            let _ = receiver.recv_timeout(Duration::from_millis(100));
        })
        .await
        .unwrap();
    });
    assert!(message.contains("a spawn_blocking task"), "{message}");
    assert!(message.contains("recv_timeout"), "{message}");
}

/// A loop on the clock reads it again and again: the error shows where.
#[test]
fn a_loop_until_a_deadline_on_a_blocking_thread_stops_the_run_and_shows_where() {
    let message = failure_of(|| async {
        tokio::task::spawn_blocking(|| {
            let deadline = Instant::now() + Duration::from_millis(100);
            while Instant::now() < deadline {
                std::hint::spin_loop();
            }
        })
        .await
        .unwrap();
    });
    assert!(
        message.contains("a spawn_blocking thread read the clock during the standstill, here:"),
        "{message}"
    );
    // The frames run down to the loop's own line.
    assert!(message.contains(&format!("{}:", file!())), "{message}");
}

/// A task that spins on `yield_now` until the clock passes a deadline holds the runtime thread
/// in polls that never let tokio's clock move; the run comes back to fail.
#[test]
fn a_task_spinning_until_a_deadline_stops_the_run() {
    let message = failure_of(|| async {
        let deadline = Instant::now() + Duration::from_millis(100);
        while Instant::now() < deadline {
            tokio::task::yield_now().await;
        }
    });
    assert!(
        message.contains("stood still at 0s of physical time"),
        "{message}"
    );
}

/// A wait in the kernel that holds the runtime thread cannot be unwound: the process stops,
/// naming it. The test runs itself again as the process that stops.
#[test]
fn a_recv_timeout_holding_the_runtime_thread_stops_the_process() {
    const CHILD: &str = "TICKLAB_TEST_RECV_TIMEOUT_ON_THE_RUNTIME_THREAD";
    if std::env::var_os(CHILD).is_some() {
        harness().run(|| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            let (_sender, receiver) = mpsc::channel::<()>();
            let _ = receiver.recv_timeout(Duration::from_millis(100));
        });
        return;
    }
    let real = Instant::now();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_recv_timeout_holding_the_runtime_thread_stops_the_process",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(real.elapsed() < Duration::from_secs(30), "{stderr}");
    assert!(
        stderr.contains("stood still at 5s of physical time"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a poll held the runtime thread"),
        "{stderr}"
    );
    assert!(stderr.contains("recv_timeout"), "{stderr}");
    assert!(
        stderr.contains("held where no failure reaches it, so the process stops"),
        "{stderr}"
    );
}

/// A blocking task still waiting when the run ends would hold the runtime's shutdown for ever.
#[test]
fn a_blocking_task_left_waiting_when_the_run_ends_is_named() {
    let real = Instant::now();
    let outcome = std::panic::catch_unwind(|| {
        harness().run(|| async {
            let (sender, receiver) = mpsc::channel::<()>();
            tokio::task::spawn_blocking(move || {
                let _ = receiver.recv_timeout(Duration::from_millis(100));
            });
            // The sender lives on past the run, in a thread of its own, so nobody wakes the wait.
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(30));
                drop(sender);
            });
        })
    });
    let payload = outcome.expect_err("the run failed");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(real.elapsed() < Duration::from_secs(20), "{message}");
    assert!(
        message
            .contains("1 spawn_blocking thread(s) still ran 2s of real time after the run ended"),
        "{message}"
    );
}
