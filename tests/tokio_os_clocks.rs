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
    let ticklab::tokio::Ended::Finished { value: (std_took, tokio_took), .. } = run.ended else {
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
    let ticklab::tokio::Ended::Finished { value: (before, after), .. } = run.ended else {
        panic!("the body finished");
    };
    assert_eq!(before.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs(), 1_584_022_098);
    assert_eq!(before.duration_since(after).unwrap(), Duration::from_secs(3580));
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
