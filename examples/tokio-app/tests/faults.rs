//! The application's timing code through a laptop's sleep, a process frozen at a breakpoint and a
//! wall clock stepped back, on the platforms where each behaves differently.

use std::time::Duration;

use ticklab::sim::Platform;
use ticklab::tokio::{Harness, Run, Sweep, note, note_with, physical_now, wall_now};
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;
use tokio_app::{LivenessClock, Sessions, call_with_retries, heartbeat, watch};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// A laptop that sleeps for 392 s, 15.5 s in.
fn laptop_sleep(platform: Platform) -> Harness {
    Harness::on(platform)
        .about(format!("a 392 s sleep on {}", platform.name()))
        .run_for(secs(600))
        .system_suspend(ms(15_500), secs(392))
        .build()
        .unwrap()
}

/// An Android app stopped at a breakpoint for 264 s, 10.5 s in: `Platform::Android` for an app
/// built with upstream Rust, `Platform::AndroidAosp` for code built with AOSP's toolchain.
fn breakpoint_freeze(platform: Platform) -> Harness {
    Harness::on(platform)
        .about(format!(
            "a 264 s freeze at a breakpoint on {}",
            platform.name()
        ))
        .run_for(secs(600))
        .process_suspend(ms(10_500), secs(264))
        .build()
        .unwrap()
}

/// The heartbeat, every beat its peer receives noted.
async fn beats(behavior: MissedTickBehavior) {
    let (peer, mut received) = mpsc::unbounded_channel();
    tokio::spawn(heartbeat(secs(1), behavior, wall_now, peer));
    while let Some(beat) = received.recv().await {
        note_with("beat", beat.seq);
    }
}

fn most_beats_in_a_second(harness: &Harness, behavior: MissedTickBehavior) -> usize {
    harness.run(|| beats(behavior)).most_within("beat", secs(1))
}

#[test]
fn burst_replays_a_windows_sleep_at_once_and_skip_does_not() {
    let windows = laptop_sleep(Platform::Windows);
    let burst = windows.run(|| beats(MissedTickBehavior::Burst));
    let skip = windows.run(|| beats(MissedTickBehavior::Skip));
    // Every second the laptop slept, sent the instant it wakes.
    assert_eq!(burst.most_within("beat", secs(1)), 393);
    assert_eq!(skip.most_within("beat", secs(1)), 2);
    insta::assert_snapshot!("heartbeat-burst-windows-392s-sleep", burst.snapshot());
    insta::assert_snapshot!("heartbeat-skip-windows-392s-sleep", skip.snapshot());

    // Linux's `Instant` does not count the sleep: neither behaviour sees a missed tick.
    let linux = laptop_sleep(Platform::Linux);
    assert_eq!(most_beats_in_a_second(&linux, MissedTickBehavior::Burst), 1);
    assert_eq!(most_beats_in_a_second(&linux, MissedTickBehavior::Skip), 1);
}

#[test]
fn a_breakpoint_freeze_bursts_on_android_whichever_toolchain_built_it() {
    // A freeze stops no clock, so CLOCK_MONOTONIC and CLOCK_BOOTTIME alike count it.
    for platform in [Platform::Android, Platform::AndroidAosp] {
        let freeze = breakpoint_freeze(platform);
        let burst = freeze.run(|| beats(MissedTickBehavior::Burst));
        let at_resume = burst
            .notes_of("beat")
            .filter(|beat| beat.t_ns == 274_500_000_000)
            .count();
        assert_eq!(at_resume, 264, "{}", platform.name());
        assert_eq!(most_beats_in_a_second(&freeze, MissedTickBehavior::Skip), 2);
    }
}

#[test]
fn an_android_sleep_is_replayed_only_in_code_built_with_aosps_toolchain() {
    // rustup's Android targets and cargo-ndk build std's `Instant` on CLOCK_MONOTONIC, which
    // stops in suspend; AOSP's toolchain patches it to CLOCK_BOOTTIME, which does not.
    let app = laptop_sleep(Platform::Android);
    assert_eq!(most_beats_in_a_second(&app, MissedTickBehavior::Burst), 1);
    let aosp = laptop_sleep(Platform::AndroidAosp);
    assert_eq!(
        most_beats_in_a_second(&aosp, MissedTickBehavior::Burst),
        393
    );
}

/// One session with a 60 s ttl, opened at the start: when physical time says it expired.
fn session_expires_at(harness: &Harness) -> Run<Duration> {
    harness.run(|| async {
        let (sessions, mut expired) = Sessions::new(secs(60));
        sessions.open(7);
        let id = expired.recv().await.expect("the session expires");
        note_with("expired", id);
        assert!(!sessions.is_live(id));
        physical_now()
    })
}

fn expiry(run: &Run<Duration>) -> Duration {
    *run.value().expect("the session never expired")
}

#[test]
fn a_sixty_second_expiry_takes_seventy_five_seconds_through_a_fifteen_second_linux_suspend() {
    let suspend = |platform| {
        Harness::on(platform)
            .about(format!("a 15 s suspend on {}", platform.name()))
            .run_for(secs(120))
            .system_suspend(secs(10), secs(15))
            .build()
            .unwrap()
    };
    let linux = session_expires_at(&suspend(Platform::Linux));
    assert_eq!(expiry(&linux), secs(75));
    insta::assert_snapshot!("sessions-linux-15s-suspend", linux.snapshot());
    assert_eq!(
        expiry(&session_expires_at(&suspend(Platform::Windows))),
        secs(60)
    );
    // Past the expiry when the app is let go: it expires that instant.
    assert_eq!(
        expiry(&session_expires_at(&breakpoint_freeze(Platform::Android))),
        ms(274_500)
    );
}

/// A backend that answers in 2 s, unless the machine slept or froze while the call was out: then
/// the connection is gone and the answer never comes.
async fn backend() -> &'static str {
    let sent = physical_now();
    tokio::time::sleep(secs(2)).await;
    if physical_now() - sent > secs(2) {
        std::future::pending::<()>().await;
    }
    "pong"
}

/// A request made 14 s in, with a 5 s timeout, two attempts and 1 s between them: when it was
/// answered, in physical time, and on which attempt.
fn request(harness: &Harness) -> (Duration, u32) {
    let run = harness.run(|| async {
        tokio::time::sleep(secs(14)).await;
        let (_, attempt) = call_with_retries(2, secs(5), secs(1), backend)
            .await
            .expect("the second attempt is answered");
        note_with("answered", attempt);
        (physical_now(), attempt)
    });
    *run.value().expect("never answered")
}

#[test]
fn a_request_out_during_a_sleep_times_out_when_the_clock_says_so() {
    // Windows counted the sleep: the timeout fires on waking, and the retry is answered 3 s later.
    assert_eq!(request(&laptop_sleep(Platform::Windows)), (ms(410_500), 2));
    // Linux did not: the attempt waits out the 3.5 s left of its timeout after waking.
    assert_eq!(request(&laptop_sleep(Platform::Linux)), (secs(414), 2));
    // A freeze at a breakpoint counts on every platform.
    let frozen = Harness::on(Platform::Android)
        .run_for(secs(600))
        .process_suspend(ms(15_500), secs(264))
        .build()
        .unwrap();
    assert_eq!(request(&frozen), (ms(282_500), 2));
}

/// A wall clock stepped back an hour, 40.5 s in.
fn stepped_back() -> Harness {
    Harness::on(Platform::Linux)
        .about("a -1 h wall step on linux")
        .wall_start("2024-03-10T09:00:00Z")
        .run_for(secs(7200))
        .wall_step_back(ms(40_500), secs(3600))
        .build()
        .unwrap()
}

/// A peer that beats every second and dies 40.2 s in, watched with a 3 s timeout on `clock`.
fn detect_death(harness: &Harness, clock: LivenessClock) -> Run<Duration> {
    harness.run(move || async move {
        let (peer, received) = mpsc::unbounded_channel();
        let sender = tokio::spawn(heartbeat(
            secs(1),
            MissedTickBehavior::Burst,
            wall_now,
            peer,
        ));
        tokio::spawn(async move {
            tokio::time::sleep(ms(40_200)).await;
            note("peer dies");
            sender.abort();
        });
        let last = watch(received, secs(3), secs(1), clock, wall_now).await;
        note_with("declared dead", last.expect("it beat").seq);
        physical_now()
    })
}

#[test]
fn a_wall_clock_stepped_back_hides_a_dead_peer_for_an_hour_from_a_wall_clock_watch() {
    let harness = stepped_back();
    let monotonic = detect_death(&harness, LivenessClock::Monotonic);
    let wall = detect_death(&harness, LivenessClock::Wall);
    let declared = |run: &Run<Duration>| *run.value().expect("never declared dead");
    // The last beat came at 40 s. On `Instant`, 3 s of silence are noticed at the next check.
    assert_eq!(declared(&monotonic), secs(43));
    // On the wall clock, "now" is an hour before that beat until the hour has passed again.
    assert_eq!(declared(&wall), secs(3643));
    insta::assert_snapshot!("liveness-wall-linux-1h-step-back", wall.snapshot());
    // Without the step, both notice at 43 s.
    let calm = Harness::on(Platform::Linux)
        .run_for(secs(120))
        .build()
        .unwrap();
    assert_eq!(
        declared(&detect_death(&calm, LivenessClock::Wall)),
        secs(43)
    );
}

#[test]
fn the_heartbeat_with_skip_never_sends_more_than_two_beats_in_a_second_whatever_the_faults() {
    // Random suspends, freezes, steps and slews around a Windows laptop's minute. A failure is
    // shrunk, written to tests/regressions and replayed by every later run of this test.
    let base = Harness::on(Platform::Windows)
        .about("heartbeat skip on windows")
        .run_for(secs(60))
        .build()
        .unwrap();
    let passed = Sweep::new(&base)
        .check(
            || beats(MissedTickBehavior::Skip),
            |run| match run.most_within("beat", secs(1)) {
                n if n <= 2 => Ok(()),
                n => Err(format!("{n} beats within a second")),
            },
        )
        .unwrap_or_else(|failure| panic!("{failure}"));
    println!("{passed} fault schedules kept the invariant");
    assert!(passed >= 32, "only {passed} cases ran");
}
