//! `ticklab::tokio`: real tokio code on a paused runtime whose clock the harness moves through
//! suspends, freezes and wall-clock faults.

use std::time::{Duration, SystemTime};

use ticklab::sim::Platform;
use ticklab::tokio::{Ended, Harness, Run, Sweep, busy, note, physical_now, started_at, wall_now};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/tokio"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

async fn heartbeat(behavior: tokio::time::MissedTickBehavior) {
    let mut interval = tokio::time::interval(secs(1));
    interval.set_missed_tick_behavior(behavior);
    loop {
        interval.tick().await;
        note("beat");
    }
}

fn heartbeat_through_sleep(platform: Platform) -> Run<()> {
    Harness::on(platform)
        .run_for(secs(600))
        .system_suspend(ms(15_500), secs(392))
        .build()
        .unwrap()
        .run(|| heartbeat(tokio::time::MissedTickBehavior::Burst))
}

#[test]
fn a_burst_interval_replays_a_windows_sleep_and_not_a_linux_one() {
    let windows = heartbeat_through_sleep(Platform::Windows);
    // 392 beats fell due while the laptop slept, and come at once on waking, with the next one
    // half a second later inside the same second.
    assert_eq!(windows.most_within("beat", secs(1)), 393);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("windows-392s-sleep-burst", windows.snapshot());
    });
    let linux = heartbeat_through_sleep(Platform::Linux);
    assert_eq!(linux.most_within("beat", secs(1)), 1);
    // Linux's `Instant` stood still for the 392 s: 600 s of physical time hold 208 beats.
    assert_eq!(linux.notes_of("beat").count(), 208);
}

#[test]
fn a_burst_interval_replays_an_android_sleep_only_under_aosps_toolchain() {
    // Upstream std reads CLOCK_MONOTONIC on Android, as on Linux: the sleep is not seen.
    let app = heartbeat_through_sleep(Platform::Android);
    assert_eq!(app.most_within("beat", secs(1)), 1);
    assert_eq!(app.notes_of("beat").count(), 208);
    // AOSP's toolchain patches `Instant` to CLOCK_BOOTTIME, which counts the sleep.
    let aosp = heartbeat_through_sleep(Platform::AndroidAosp);
    assert_eq!(aosp.most_within("beat", secs(1)), 393);
}

fn sleep_sixty_through(platform: Platform) -> Run<Duration> {
    Harness::on(platform)
        .run_for(secs(120))
        .system_suspend(secs(10), secs(15))
        .build()
        .unwrap()
        .run(|| async {
            tokio::time::sleep(secs(60)).await;
            physical_now()
        })
}

#[test]
fn a_sixty_second_sleep_takes_seventy_five_through_a_fifteen_second_linux_suspend() {
    let linux = sleep_sixty_through(Platform::Linux);
    assert_eq!(
        linux.ended,
        Ended::Finished {
            value: secs(75),
            at_ns: 75_000_000_000
        }
    );
    let windows = sleep_sixty_through(Platform::Windows);
    assert_eq!(
        windows.ended,
        Ended::Finished {
            value: secs(60),
            at_ns: 60_000_000_000
        }
    );
}

fn beats_at_resume(platform: Platform) -> usize {
    let run = Harness::on(platform)
        .run_for(secs(400))
        .process_suspend(ms(10_500), secs(264))
        .build()
        .unwrap()
        .run(|| heartbeat(tokio::time::MissedTickBehavior::Burst));
    run.notes_of("beat")
        .filter(|beat| beat.t_ns == 274_500_000_000)
        .count()
}

#[test]
fn a_process_freeze_jumps_the_clock_on_every_platform() {
    // Beats due at 11 s through 274 s all run the instant the process is let go.
    for platform in Platform::ALL {
        assert_eq!(beats_at_resume(platform), 264, "{}", platform.name());
    }
}

#[test]
fn wall_steps_and_slews_reach_wall_now_and_leave_tokio_alone() {
    let start = SystemTime::UNIX_EPOCH + secs(1_584_022_098); // 2020-03-12T14:08:18Z
    let stepped = Harness::on(Platform::Linux)
        .wall_start("2020-03-12T14:08:18Z")
        .wall_step_back(secs(30), secs(3600))
        .build()
        .unwrap()
        .run(|| async {
            let before = wall_now();
            tokio::time::sleep(secs(31)).await;
            (before, wall_now())
        });
    let Ended::Finished { value, at_ns } = stepped.ended else {
        panic!("the run ran out");
    };
    assert_eq!(value, (start, start + secs(31) - secs(3600)));
    assert_eq!(at_ns, 31_000_000_000);

    let slewed = Harness::on(Platform::Linux)
        .wall_start("2020-03-12T14:08:18Z")
        .run_for(secs(200))
        .wall_slew(Duration::ZERO, secs(100), 0.0005)
        .build()
        .unwrap()
        .run(|| async {
            tokio::time::sleep(secs(150)).await;
            wall_now()
        });
    let Ended::Finished { value, .. } = slewed.ended else {
        panic!("the run ran out");
    };
    assert_eq!(value, start + secs(150) + ms(50));
}

#[test]
fn busy_work_holds_the_runtime_thread() {
    let run = Harness::on(Platform::Linux).build().unwrap().run(|| async {
        let ticker = tokio::spawn(async {
            tokio::time::sleep(secs(1)).await;
            note("tick");
        });
        tokio::time::sleep(ms(500)).await;
        busy(secs(5));
        note("done");
        ticker.await.unwrap();
    });
    let times: Vec<(&str, u64)> = run.notes().map(|n| (n.label, n.t_ns)).collect();
    // The work ends at 5.5 s; the tick, due at 1 s, runs only once the thread is free.
    assert_eq!(times, [("done", 5_500_000_000), ("tick", 5_500_000_000)]);
    assert!(run.text().contains("busy"), "{}", run.text());
}

#[test]
fn a_suspend_inside_busy_work_stops_it_as_it_stops_the_clock() {
    let run = Harness::on(Platform::Linux)
        .system_suspend(secs(2), secs(10))
        .build()
        .unwrap()
        .run(|| async {
            tokio::time::sleep(ms(500)).await;
            busy(secs(5));
            (physical_now(), started_at().elapsed())
        });
    let Ended::Finished { value, .. } = run.ended else {
        panic!("the run ran out");
    };
    // 5 s of work from 0.5 s, with 10 s asleep in the middle that Linux's `Instant` skips.
    assert_eq!(value, (ms(15_500), ms(5_500)));
}

fn sleep_ends_at(sleep: Duration, suspend_at: Duration) -> u64 {
    let run = Harness::on(Platform::Linux)
        .system_suspend(suspend_at, secs(10))
        .build()
        .unwrap()
        .run(|| async move {
            tokio::time::sleep(sleep).await;
        });
    match run.ended {
        Ended::Finished { at_ns, .. } => at_ns,
        Ended::RanOut => panic!("the run ran out"),
    }
}

#[test]
fn a_fault_comes_before_the_timers_due_at_its_instant_and_after_those_due_earlier() {
    // Due at the suspend's own instant: the machine sleeps first.
    assert_eq!(sleep_ends_at(secs(1), secs(1)), 11_000_000_000);
    // Due half a millisecond before it: the timer has fired.
    assert_eq!(
        sleep_ends_at(secs(1), ms(1) * 1000 + Duration::from_micros(500)),
        1_000_000_000
    );
    // Due half a millisecond after it: 10 s later, the suspend not counted.
    assert_eq!(
        sleep_ends_at(ms(1001), Duration::from_micros(1_000_500)),
        11_001_000_000
    );
}

#[test]
fn a_run_is_the_same_bytes_every_time() {
    let first = heartbeat_through_sleep(Platform::Windows).jsonl();
    let second = heartbeat_through_sleep(Platform::Windows).jsonl();
    assert_eq!(first, second);
}

#[test]
fn a_scenario_file_drives_the_harness_and_its_model_is_set_aside() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/interval/matrix/windows-system-suspend-burst.toml"
    );
    let harness = Harness::load(path).unwrap();
    assert_eq!(harness.conditions().platform, Platform::Windows);
    assert!(!harness.conditions().faults.is_empty());
    let run = harness.run(|| heartbeat(tokio::time::MissedTickBehavior::Burst));
    assert!(run.most_within("beat", secs(1)) > 2);
}

#[test]
fn harness_files_reject_what_only_models_have() {
    let machine = Harness::parse(
        "laptop.toml",
        "about = \"a laptop\"\nplatform = \"windows\"\nrun_for = \"60s\"\n[machine]\ncores = 2\n",
    )
    .unwrap_err()
    .to_string();
    assert!(machine.contains("[machine]"), "{machine}");
    let expect = Harness::parse(
        "laptop.toml",
        "about = \"a laptop\"\nplatform = \"windows\"\nrun_for = \"60s\"\n[expect]\nmax_burst = 2\n",
    )
    .unwrap_err()
    .to_string();
    assert!(expect.contains("[expect]"), "{expect}");
    let wall = Harness::parse(
        "laptop.toml",
        "about = \"a server\"\nplatform = \"linux\"\nrun_for = \"60s\"\ninstant_clock = \"wall\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(wall.contains("instant_clock"), "{wall}");
    let negative = Harness::parse(
        "laptop.toml",
        "about = \"a server\"\nplatform = \"linux\"\nrun_for = \"-60s\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(negative.contains("run_for"), "{negative}");
    let unknown = Harness::parse(
        "laptop.toml",
        "about = \"a server\"\nplatform = \"linux\"\nrun_fro = \"60s\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(unknown.contains("run_fro"), "{unknown}");
}

#[test]
#[should_panic(expected = "outside a harness run")]
fn noting_outside_a_run_says_where_notes_belong() {
    note("stray");
}

#[test]
#[should_panic(expected = "must not call `tokio::time::advance`")]
fn moving_tokio_s_clock_past_a_fault_is_refused() {
    Harness::on(Platform::Linux)
        .system_suspend(secs(10), secs(5))
        .build()
        .unwrap()
        .run(|| async {
            tokio::time::advance(secs(20)).await;
            note("after");
        });
}

#[test]
#[should_panic(expected = "has not awaited since")]
fn work_that_never_awaits_is_stopped_at_the_end_of_the_run() {
    Harness::on(Platform::Linux).build().unwrap().run(|| async {
        loop {
            busy(secs(1));
        }
    });
}

#[test]
fn a_sweep_finds_a_burst_shrinks_it_writes_it_and_replays_it() {
    let folder = tempfile::tempdir().unwrap();
    let base = Harness::on(Platform::Windows)
        .about("heartbeat on windows")
        .run_for(secs(60))
        .build()
        .unwrap();
    let at_most_two = |run: &Run<()>| match run.most_within("beat", secs(1)) {
        n if n <= 2 => Ok(()),
        n => Err(format!("{n} beats within a second")),
    };
    let sweep = Sweep::new(&base)
        .cases(64)
        .seed(0)
        .regressions(folder.path());
    let failure = sweep
        .check(
            || heartbeat(tokio::time::MissedTickBehavior::Burst),
            at_most_two,
        )
        .unwrap_err();
    assert!(failure.found.is_some());
    assert!(
        failure.reason.contains("beats within a second"),
        "{failure}"
    );
    let report = failure.to_string();
    println!("{report}");
    assert!(report.contains("replay: cargo test"), "{report}");
    assert!(report.contains("TICKLAB_SWEEP_SEED=0"), "{report}");
    // Shrunk to the one fault that matters: a suspend `Instant` counts, or a freeze.
    let written = std::fs::read_to_string(&failure.file).unwrap();
    assert_eq!(written, failure.text);
    assert_eq!(written.matches("[[fault]]").count(), 1, "{written}");
    let name = failure.file.file_name().unwrap().to_string_lossy();
    assert!(name.starts_with("heartbeat-on-windows-"), "{name}");

    // The next run of the same test replays the file before it searches.
    let replayed = Sweep::new(&base)
        .cases(0)
        .regressions(folder.path())
        .check(
            || heartbeat(tokio::time::MissedTickBehavior::Burst),
            at_most_two,
        )
        .unwrap_err();
    assert_eq!(replayed.found, None);
    assert_eq!(replayed.file, failure.file);

    // `Skip` keeps the invariant through the same file and the whole search.
    let passed = Sweep::new(&base)
        .cases(16)
        .regressions(folder.path())
        .check(
            || heartbeat(tokio::time::MissedTickBehavior::Skip),
            at_most_two,
        )
        .unwrap();
    assert!(passed > 0);
}

#[test]
fn a_run_inside_a_tokio_runtime_says_to_use_a_plain_test() {
    let outer = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let caught = outer.block_on(async {
        std::panic::catch_unwind(|| heartbeat_through_sleep(Platform::Linux)).unwrap_err()
    });
    let message = caught
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| caught.downcast_ref::<&str>().map(|text| text.to_string()))
        .unwrap_or_default();
    assert!(
        message.contains("inside a tokio runtime") && message.contains("plain #[test]"),
        "{message}"
    );
}
