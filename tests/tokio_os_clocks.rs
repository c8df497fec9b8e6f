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
    let (std_took, tokio_took) = *run.value().expect("the body finished");
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
    let value = *run.value().expect("the body finished");
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
    let (before, after) = *run.value().expect("the body finished");
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
    let value = *run.value().expect("the body finished");
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
    let value = *run.value().expect("the body finished");
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
    let value = *run.value().expect("the body finished");
    assert!(value > Duration::from_secs(290), "{value:?}");
}

#[test]
fn a_runtime_thread_blocked_in_real_time_is_a_warning_that_changes_nothing() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(10))
        .build()
        .unwrap()
        .warn_when_blocked_for(Duration::from_millis(150));
    let run = harness.run(|| async {
        tokio::time::sleep(Duration::from_secs(2)).await;
        note("before");
        // A thread of its own sleeps in real time; waiting for it blocks the runtime thread.
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(600));
            sender.send(()).unwrap();
        });
        receiver.recv().unwrap();
        ticklab::tokio::physical_now()
    });
    // Only the stall is named after the note; a slow start on a loaded machine may add another.
    let stalls: Vec<&String> = run
        .warnings()
        .iter()
        .filter(|warning| warning.contains("after the note \"before\""))
        .collect();
    assert_eq!(stalls.len(), 1, "{:?}", run.warnings());
    assert!(
        stalls[0].contains("at 2s of physical time"),
        "{}",
        stalls[0]
    );
    let value = *run.value().expect("the body finished");
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
        stderr.contains(
            "(which std::thread::sleep calls) 1000 times after the run ended at 10s without \
             awaiting"
        ),
        "{stderr}"
    );
}

// Built with `--cfg tokio_unstable`, tokio says which task it polls, and the warning names it:
// `.ci/crate-user.sh` builds the packages that way, and the fresh crate's tests/blocked.rs checks
// the warning there (`bash .ci/crate-user.sh` runs it alone).

#[test]
fn a_runtime_thread_stuck_in_real_time_is_reported_while_it_lasts() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(10))
        .build()
        .unwrap()
        .warn_when_blocked_for(Duration::from_millis(20));
    let run = harness.run(|| async {
        tokio::time::sleep(Duration::from_secs(3)).await;
        // A timed wait on a std channel: its deadline comes from the simulated Instant, and the
        // kernel waits in real time. Another thread ends it after 1.5 s.
        let (sender, receiver) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1_500));
            drop(sender);
        });
        let _ = receiver.recv_timeout(Duration::from_secs(3_600));
    });
    let stuck: Vec<&String> = run
        .warnings()
        .iter()
        .filter(|warning| warning.contains("may be stuck"))
        .collect();
    assert_eq!(stuck.len(), 1, "{:?}", run.warnings());
    assert!(stuck[0].contains("at 3s of physical time"), "{}", stuck[0]);
}

#[test]
fn a_sleep_as_the_body_is_built_costs_simulated_time_too() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    let run = harness.run(|| {
        std::thread::sleep(Duration::from_secs(5));
        async { ticklab::tokio::physical_now() }
    });
    let value = *run.value().expect("the body finished");
    assert_eq!(value, Duration::from_secs(5));
}

#[test]
fn a_sleep_longer_than_the_run_ends_with_it_and_counts_what_it_held() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(10))
        .build()
        .unwrap();
    let run = harness.run(|| async {
        std::thread::sleep(Duration::MAX);
        tokio::time::sleep(Duration::from_secs(1)).await;
    });
    assert_eq!(run.ended, ticklab::tokio::Ended::RanOut);
    let text = run.text();
    assert!(
        text.contains("\nslept                       10s\n"),
        "{text}"
    );
}

/// libc's clock and sleep functions called directly, as C libraries call them.
#[allow(unsafe_code)]
mod libc_calls {
    use super::*;

    unsafe extern "C" {
        /// C11's, which the libc crate does not declare.
        fn timespec_get(ts: *mut libc::timespec, base: libc::c_int) -> libc::c_int;
    }

    fn timespec(ns: i128) -> libc::timespec {
        libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        }
    }

    fn read(clock: libc::clockid_t) -> i128 {
        let mut now = timespec(0);
        // SAFETY: `now` is a valid timespec to write.
        assert_eq!(unsafe { libc::clock_gettime(clock, &mut now) }, 0);
        i128::from(now.tv_sec) * 1_000_000_000 + i128::from(now.tv_nsec)
    }

    /// A Linux laptop that sleeps 60 s from 10 s, with its wall clock at 2020-03-12T14:08:18Z.
    fn laptop() -> Harness {
        Harness::on(Platform::Linux)
            .run_for(Duration::from_secs(600))
            .wall_start("2020-03-12T14:08:18Z")
            .system_suspend(Duration::from_secs(10), Duration::from_secs(60))
            .build()
            .unwrap()
    }

    #[test]
    fn boottime_counts_a_suspend_and_monotonic_does_not() {
        let run = laptop().run(|| async {
            let (mono, boot) = (read(libc::CLOCK_MONOTONIC), read(libc::CLOCK_BOOTTIME));
            tokio::time::sleep(Duration::from_secs(20)).await;
            (
                read(libc::CLOCK_MONOTONIC) - mono,
                read(libc::CLOCK_BOOTTIME) - boot,
            )
        });
        let value = *run.value().expect("the body finished");
        assert_eq!(value, (20_000_000_000, 80_000_000_000));
    }

    #[test]
    fn gettimeofday_time_and_timespec_get_read_the_simulated_wall_clock() {
        let run = laptop().run(|| async {
            let mut tv = libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            };
            let mut tz = [-1 as libc::c_int; 2];
            let mut ts = timespec(0);
            // SAFETY: each pointer is valid to write, and `tz` holds a struct timezone.
            unsafe {
                assert_eq!(libc::gettimeofday(&mut tv, tz.as_mut_ptr().cast()), 0);
                assert_eq!(timespec_get(&mut ts, 1), 1);
            }
            // SAFETY: a null pointer asks only for the result.
            let seconds = unsafe { libc::time(std::ptr::null_mut()) };
            (tv.tv_sec, tz, seconds, ts.tv_sec)
        });
        let value = *run.value().expect("the body finished");
        assert_eq!(value, (1_584_022_098, [0, 0], 1_584_022_098, 1_584_022_098));
    }

    #[test]
    fn nanosleep_holds_the_thread_and_says_nothing_is_left() {
        let run = laptop().run(|| async {
            let request = timespec(2_500_000_000);
            let mut left = timespec(7);
            // SAFETY: both timespecs are valid.
            assert_eq!(unsafe { libc::nanosleep(&request, &mut left) }, 0);
            (ticklab::tokio::physical_now(), left.tv_sec, left.tv_nsec)
        });
        let value = *run.value().expect("the body finished");
        assert_eq!(value, (Duration::from_millis(2_500), 0, 0));
    }

    #[test]
    fn a_sleep_until_a_wall_time_waits_out_a_step_back() {
        let harness = Harness::on(Platform::Linux)
            .run_for(Duration::from_secs(600))
            .wall_start("2020-03-12T14:08:18Z")
            .wall_step_back(Duration::from_secs(5), Duration::from_secs(30))
            .build()
            .unwrap();
        let run = harness.run(|| async {
            // Until the wall clock reads 10 s past its start: the step back at 5 s puts that
            // 30 s further away.
            let until = timespec(read(libc::CLOCK_REALTIME) + 10_000_000_000);
            // SAFETY: `until` is a valid timespec, and no remainder is asked for.
            let slept = unsafe {
                libc::clock_nanosleep(
                    libc::CLOCK_REALTIME,
                    libc::TIMER_ABSTIME,
                    &until,
                    std::ptr::null_mut(),
                )
            };
            (slept, ticklab::tokio::physical_now())
        });
        let value = *run.value().expect("the body finished");
        assert_eq!(value, (0, Duration::from_secs(40)));
    }

    #[test]
    fn a_request_libc_refuses_is_refused_as_libc_does() {
        let run = laptop().run(|| async {
            let negative = libc::timespec {
                tv_sec: -1,
                tv_nsec: 0,
            };
            // SAFETY: `negative` is a valid timespec to read.
            let relative = unsafe {
                libc::clock_nanosleep(libc::CLOCK_MONOTONIC, 0, &negative, std::ptr::null_mut())
            };
            // SAFETY: as above.
            let raw = unsafe {
                libc::clock_nanosleep(
                    libc::CLOCK_MONOTONIC_RAW,
                    0,
                    &timespec(1),
                    std::ptr::null_mut(),
                )
            };
            (relative, raw != 0, ticklab::tokio::physical_now())
        });
        let value = *run.value().expect("the body finished");
        assert_eq!(value, (libc::EINVAL, true, Duration::ZERO));
    }
}
