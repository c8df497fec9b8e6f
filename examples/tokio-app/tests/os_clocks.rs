//! Code that reads `std::time::Instant` and `SystemTime::now()` straight from the OS, as libraries
//! do, through the same sleeps, freezes and wall steps as the rest of the app: each row equals
//! the row of the same logic on tokio's clock, or on the harness's `wall_now`.

use std::time::{Duration, SystemTime};

use ticklab::sim::Platform;
use ticklab::tokio::{Harness, Run, Sweep, busy, note, note_with, physical_now, wall_now};
use tokio::time::MissedTickBehavior;
use tokio_app::{Lease, Moment, TokenBucket};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// The faults each row goes through: every one moves some clock and not others.
fn faults() -> Vec<Harness> {
    let on = |platform: Platform| Harness::on(platform).run_for(secs(600));
    vec![
        on(Platform::Windows)
            .about("a 392 s sleep on windows")
            .system_suspend(ms(15_500), secs(392)),
        on(Platform::Linux)
            .about("a 392 s suspend on linux")
            .system_suspend(ms(15_500), secs(392)),
        on(Platform::Android)
            .about("a 264 s freeze on android")
            .process_suspend(ms(10_500), secs(264)),
        on(Platform::Linux)
            .about("a -1 h wall step on linux")
            .wall_start("2024-03-10T09:00:00Z")
            .wall_step_back(ms(31_500), secs(3600)),
        on(Platform::Linux)
            .about("a +1 h wall step on linux")
            .wall_start("2024-03-10T09:00:00Z")
            .wall_step_forward(ms(31_500), secs(3600)),
    ]
    .into_iter()
    .map(|builder| builder.build().unwrap())
    .collect()
}

/// Every note as (physical time, label, detail, `Instant`): what a row compares.
fn rows<T>(run: &Run<T>) -> Vec<(u64, &'static str, String, i64)> {
    run.notes()
        .map(|note| (note.t_ns, note.label, note.detail.clone(), note.instant_ns))
        .collect()
}

/// A request every 100 ms against a bucket of 10 refilled once a second.
async fn admit<M: Moment>() {
    let mut bucket = TokenBucket::<M>::new(10, secs(1));
    let mut attempts = tokio::time::interval(ms(100));
    attempts.set_missed_tick_behavior(MissedTickBehavior::Skip);
    loop {
        attempts.tick().await;
        note(if bucket.try_acquire() {
            "admitted"
        } else {
            "refused"
        });
    }
}

#[test]
fn a_token_bucket_on_std_instant_admits_what_the_same_bucket_on_tokio_instant_does() {
    for harness in faults() {
        let on_std = harness.run(admit::<std::time::Instant>);
        let on_tokio = harness.run(admit::<tokio::time::Instant>);
        let about = &harness.conditions().about;
        assert_eq!(rows(&on_std), rows(&on_tokio), "{about}");
        let admitted = on_std.notes_of("admitted").count();
        assert!(admitted > 10, "{about}: only {admitted} admitted");
    }
    // Windows counts the sleep: the bucket is full on waking, so ten go through within the
    // second after it, the first of them the instant it wakes.
    let windows = &faults()[0];
    let run = windows.run(admit::<std::time::Instant>);
    let at_wake = run
        .notes_of("admitted")
        .filter(|note| note.t_ns == 407_500_000_000)
        .count();
    assert_eq!(at_wake, 1);
    assert_eq!(run.most_within("admitted", secs(1)), 10);
}

/// A lease of 10 s, renewed every 3 s until the lock service stops answering 30 s in; the holder
/// acts once a second while it believes it holds the lease.
async fn hold_lease<W: Fn() -> SystemTime>(mut lease: Lease<W>) {
    let start = tokio::time::Instant::now();
    let mut renewed_at = Duration::ZERO;
    note("granted");
    let mut ticks = tokio::time::interval(secs(1));
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = start.elapsed();
        if now < secs(30) && now - renewed_at >= secs(3) {
            lease.renew();
            renewed_at = now;
            note("granted");
        }
        if lease.is_held() {
            note_with("act", physical_now().as_secs());
        }
    }
}

/// The acts that came more than the lease's 10 s after its last grant, in physical time.
fn acts_on_an_expired_lease<T>(run: &Run<T>) -> usize {
    let mut granted_ns = 0;
    let mut expired = 0;
    for note in run.notes() {
        match note.label {
            "granted" => granted_ns = note.t_ns,
            "act" if note.t_ns >= granted_ns + 10_000_000_000 => expired += 1,
            _ => {}
        }
    }
    expired
}

#[test]
fn a_lease_on_system_time_does_what_the_same_lease_on_the_harness_wall_clock_does() {
    for harness in faults() {
        let on_os = harness.run(|| hold_lease(Lease::on_system_time(secs(10))));
        let on_harness = harness.run(|| hold_lease(Lease::on(secs(10), wall_now)));
        let about = &harness.conditions().about;
        assert_eq!(rows(&on_os), rows(&on_harness), "{about}");
    }
    // Only the step back keeps the holder acting: the lease ran out at 37 s, and the holder acts
    // every second from 38 s to the end of the run, for the clock went back an hour.
    let expired: Vec<usize> = faults()
        .iter()
        .map(|harness| {
            acts_on_an_expired_lease(&harness.run(|| hold_lease(Lease::on_system_time(secs(10)))))
        })
        .collect();
    assert_eq!(expired, [0, 0, 0, 563, 0]);
}

#[test]
fn a_sweep_finds_the_wall_step_that_keeps_a_system_time_lease_and_shrinks_it_to_the_step() {
    let base = Harness::on(Platform::Linux)
        .about("lease on SystemTime")
        .wall_start("2024-03-10T09:00:00Z")
        .run_for(secs(120))
        .build()
        .unwrap();
    let regressions = tempfile::tempdir().unwrap();
    let failure = Sweep::new(&base)
        .seed(1)
        .regressions(regressions.path())
        .check(
            || hold_lease(Lease::on_system_time(secs(10))),
            |run| match acts_on_an_expired_lease(run) {
                0 => Ok(()),
                n => Err(format!("{n} acts on an expired lease")),
            },
        )
        .expect_err("a step back keeps the lease");
    let kinds: Vec<&str> = failure
        .text
        .lines()
        .filter_map(|line| line.strip_prefix("kind = "))
        .collect();
    assert_eq!(kinds, ["\"wall-step\""], "{failure}");
    assert!(failure.text.contains("by = \"-"), "{failure}");
    println!("{failure}");
}

/// A flush that retries with a blocking back-off, as synchronous client libraries do: three
/// tries, 200 ms apart.
fn flush_with_back_off() {
    for _ in 0..3 {
        std::thread::sleep(ms(200));
    }
}

#[test]
fn an_unmarked_thread_sleep_costs_what_a_marked_busy_section_does() {
    let windows = &faults()[0];
    let slept = windows.run(|| async {
        tokio::time::sleep(secs(15)).await;
        flush_with_back_off();
        note("flushed");
    });
    let marked = windows.run(|| async {
        tokio::time::sleep(secs(15)).await;
        for _ in 0..3 {
            busy(ms(200));
        }
        note("flushed");
    });
    assert_eq!(rows(&slept), rows(&marked));
    // The third try began before the sleep at 15.5 s and ended after it.
    let flushed = slept.notes_of("flushed").next().unwrap();
    assert_eq!(flushed.t_ns, 407_600_000_000);
}
