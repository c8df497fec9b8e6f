//! The code under test reads std's clocks and sleeps with std's `thread::sleep`, and gets the
//! simulated machine's, as the libc interception promises.

use std::time::{Duration, Instant, SystemTime};

use ticklab::sim::Platform;
use ticklab::tokio::{Harness, note};

#[test]
fn std_instant_moves_with_tokio_through_a_windows_sleep() {
    let harness = Harness::on(Platform::Windows)
        .run_for(Duration::from_secs(600))
        .system_suspend(Duration::from_secs(10), Duration::from_secs(392))
        .build()
        .unwrap();
    let run = harness.run(|| async {
        let std_start = Instant::now();
        let tokio_start = tokio::time::Instant::now();
        assert_eq!(std_start, tokio_start.into_std());
        tokio::time::sleep(Duration::from_secs(20)).await;
        (std_start.elapsed(), tokio_start.elapsed())
    });
    let ticklab::tokio::Ended::Finished {
        value: (std_took, tokio_took),
        ..
    } = run.ended
    else {
        panic!("the body finished");
    };
    assert_eq!(std_took, tokio_took);
    assert_eq!(std_took, Duration::from_secs(402));
}

#[test]
fn a_thread_sleep_costs_simulated_time_not_real_time() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(60))
        .build()
        .unwrap();
    let real = Instant::now();
    let run = harness.run(|| async {
        std::thread::sleep(Duration::from_secs(30));
        note("slept");
        ticklab::tokio::physical_now()
    });
    assert!(real.elapsed() < Duration::from_secs(5));
    // Traced as a sleep, not as a section marked busy.
    let text = run.text();
    assert!(text.contains(" sleep     for 30s (took 30s)"), "{text}");
    assert!(
        text.contains("\nslept                       30s\n"),
        "{text}"
    );
    assert!(
        text.contains("\nbusy                        0s\n"),
        "{text}"
    );
    let ticklab::tokio::Ended::Finished { value, .. } = run.ended else {
        panic!("the body finished");
    };
    assert_eq!(value, Duration::from_secs(30));
}

#[test]
fn system_time_takes_the_wall_step() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(60))
        .wall_start("2020-03-12T14:08:18Z")
        .wall_step_back(Duration::from_secs(10), Duration::from_secs(3600))
        .build()
        .unwrap();
    let run = harness.run(|| async {
        let before = SystemTime::now();
        tokio::time::sleep(Duration::from_secs(20)).await;
        let after = SystemTime::now();
        (before, after)
    });
    let ticklab::tokio::Ended::Finished {
        value: (before, after),
        ..
    } = run.ended
    else {
        panic!("the body finished");
    };
    assert_eq!(
        before
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
        1_584_022_098
    );
    assert_eq!(
        before.duration_since(after).unwrap(),
        Duration::from_secs(3580)
    );
}

#[test]
#[should_panic(expected = "panicked at tests/tokio_os_clocks.rs")]
fn a_spawned_task_that_panics_fails_the_run() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    harness.run(|| async {
        tokio::spawn(async { panic!("boom") });
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
}

#[test]
fn swallowing_task_panics_keeps_tokio_s_way() {
    let harness = Harness::on(Platform::Linux)
        .build()
        .unwrap()
        .swallowing_task_panics();
    let run = harness.run(|| async {
        let handle = tokio::spawn(async { panic!("boom") });
        handle.await.is_err()
    });
    let ticklab::tokio::Ended::Finished { value, .. } = run.ended else {
        panic!("the body finished");
    };
    assert!(value, "the task's panic reached its JoinHandle");
}

#[test]
#[should_panic(
    expected = "called libc's clock_nanosleep (which std::thread::sleep calls) on a spawn_blocking thread"
)]
fn a_sleep_on_a_blocking_thread_fails_the_run() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    harness.run(|| async {
        tokio::task::spawn_blocking(|| std::thread::sleep(Duration::from_millis(1)))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(1)).await;
    });
}

#[test]
fn a_blocking_thread_reads_the_simulated_clock() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(600))
        .wall_start("2020-03-12T14:08:18Z")
        .build()
        .unwrap();
    let run = harness.run(|| async {
        tokio::time::sleep(Duration::from_secs(100)).await;
        tokio::task::spawn_blocking(SystemTime::now).await.unwrap()
    });
    let ticklab::tokio::Ended::Finished { value, .. } = run.ended else {
        panic!("the body finished");
    };
    let since_epoch = value.duration_since(SystemTime::UNIX_EPOCH).unwrap();
    assert_eq!(since_epoch.as_secs(), 1_584_022_098 + 100);
}

#[test]
fn a_thread_the_code_starts_itself_keeps_the_real_clock() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(600))
        .build()
        .unwrap();
    let run = harness.run(|| async {
        tokio::time::sleep(Duration::from_secs(300)).await;
        let simulated = Instant::now();
        let real = std::thread::spawn(Instant::now).join().unwrap();
        simulated.duration_since(real)
    });
    let ticklab::tokio::Ended::Finished { value, .. } = run.ended else {
        panic!("the body finished");
    };
    assert!(value > Duration::from_secs(290), "{value:?}");
}

#[test]
fn a_runtime_thread_blocked_in_real_time_is_a_warning_that_changes_nothing() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(10))
        .build()
        .unwrap()
        .warn_when_blocked_for(Duration::from_millis(20));
    let run = harness.run(|| async {
        tokio::time::sleep(Duration::from_secs(2)).await;
        note("before");
        // A thread of its own sleeps in real time; waiting for it blocks the runtime thread.
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            sender.send(()).unwrap();
        });
        receiver.recv().unwrap();
        ticklab::tokio::physical_now()
    });
    assert_eq!(run.warnings().len(), 1, "{:?}", run.warnings());
    let warning = &run.warnings()[0];
    assert!(warning.contains("at 2s of physical time"), "{warning}");
    assert!(warning.contains("after the note \"before\""), "{warning}");
    let ticklab::tokio::Ended::Finished { value, .. } = run.ended else {
        panic!("the body finished");
    };
    assert_eq!(value, Duration::from_secs(2));
}

#[test]
#[allow(unsafe_code)]
#[should_panic(expected = "a clock the simulated machine does not have")]
fn a_cpu_time_clock_fails_the_run() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    harness.run(|| async {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid timespec to write.
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
        tokio::time::sleep(Duration::from_secs(1)).await;
    });
}

/// A task that sleeps in a loop without awaiting would hold the runtime thread forever once the
/// run is over, and no panic can leave a libc call: the process stops, saying why. The test runs
/// itself again as the process that stops.
#[test]
fn a_sleep_that_never_awaits_past_the_end_stops_the_process() {
    const CHILD: &str = "TICKLAB_TEST_SLEEP_PAST_THE_END";
    if std::env::var_os(CHILD).is_some() {
        let harness = Harness::on(Platform::Linux)
            .run_for(Duration::from_secs(10))
            .build()
            .unwrap();
        harness.run(|| async {
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        });
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_sleep_that_never_awaits_past_the_end_stops_the_process",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("(which std::thread::sleep calls) after the run ended at 10s"),
        "{stderr}"
    );
}

/// Built with `--cfg tokio_unstable`, tokio says which task it polls, and the warning names it.
#[cfg(tokio_unstable)]
#[test]
fn a_blocked_poll_names_the_task_and_where_it_was_spawned() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(10))
        .build()
        .unwrap()
        .warn_when_blocked_for(Duration::from_millis(20));
    let run = harness.run(|| async {
        let blocker = tokio::spawn(async {
            let (sender, receiver) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                sender.send(()).unwrap();
            });
            receiver.recv().unwrap();
        });
        blocker.await.unwrap();
    });
    assert_eq!(run.warnings().len(), 1, "{:?}", run.warnings());
    let warning = &run.warnings()[0];
    assert!(
        warning.contains(&format!("spawned at {}:", file!())),
        "{warning}"
    );
}
