//! Real tokio is the oracle for its own `Interval`: on a paused current-thread runtime, the ticks
//! `tokio::time::interval` returns after random gaps must equal ticklab's `burst`, `delay` and
//! `skip` cores, and a tick that is not yet due must come when ticklab's driver would fire it: at
//! the deadline rounded up to tokio's millisecond wheel.
//!
//! One artefact of paused time is allowed for: when tokio auto-advances to a timer, it moves its
//! clock by whole milliseconds from wherever it stood, so it lands on the rounded deadline plus the
//! sub-millisecond part the clock already had. Real time has no such offset, and ticklab's driver
//! fires at the rounded deadline itself.

use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use ticklab_models::interval::{IntervalCore, MissedTick};
use tokio::time::{Instant, MissedTickBehavior};

const MS: i64 = 1_000_000;

fn round_up_to_ms(ns: i64) -> i64 {
    (ns + MS - 1) / MS * MS
}

/// Runs one schedule of gaps against tokio with `behavior` and the model `model`; returns the
/// first disagreement.
fn compare(
    behavior: MissedTick,
    model: MissedTick,
    period_ns: i64,
    gaps_ns: &[i64],
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(tokio::task::unconstrained(async {
        let start = Instant::now();
        let since_start = |instant: Instant| (instant - start).as_nanos() as i64;
        let mut interval = tokio::time::interval(Duration::from_nanos(period_ns as u64));
        interval.set_missed_tick_behavior(match behavior {
            MissedTick::Burst => MissedTickBehavior::Burst,
            MissedTick::Delay => MissedTickBehavior::Delay,
            MissedTick::Skip => MissedTickBehavior::Skip,
            other => unreachable!("tokio has no {other:?}"),
        });
        let mut core = IntervalCore::created_at(model, 0, period_ns);
        for (step, &gap_ns) in gaps_ns.iter().enumerate() {
            tokio::time::advance(Duration::from_nanos(gap_ns as u64)).await;
            let before_ns = since_start(Instant::now());
            let due_ns = core.deadline_ns();
            let returned_ns = since_start(interval.tick().await);
            let now_ns = since_start(Instant::now());
            let tick = core
                .tick(now_ns)
                .ok_or(format!("step {step}: the model is not due at {now_ns}"))?;
            if tick.deadline_ns != returned_ns {
                return Err(format!(
                    "step {step}: tokio returned {returned_ns}, the model {}",
                    tick.deadline_ns
                ));
            }
            let driver_ns = round_up_to_ms(due_ns);
            if due_ns > before_ns && now_ns != driver_ns + before_ns % MS {
                return Err(format!(
                    "step {step}: tokio fired at {now_ns}, ticklab's driver at {driver_ns}"
                ));
            }
        }
        Ok(())
    }))
}

fn period_ns() -> impl Strategy<Value = i64> {
    prop_oneof![
        (1i64..20).prop_map(|ms| ms * MS),
        1i64..30 * MS,
        (1i64..1_000).prop_map(|ms| ms * MS)
    ]
}

fn gap_ns() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0i64),
        (0i64..10).prop_map(|ms| ms * MS),
        0i64..3_000 * MS,
        (0i64..1_000).prop_map(|ms| ms * MS)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/tokio_oracle.proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn tokio_intervals_tick_exactly_like_the_models(
        behavior in prop::sample::select(vec![MissedTick::Burst, MissedTick::Delay, MissedTick::Skip]),
        period_ns in period_ns(),
        gaps_ns in prop::collection::vec(gap_ns(), 1..12),
    ) {
        prop_assert_eq!(compare(behavior, behavior, period_ns, &gaps_ns), Ok(()));
    }
}

#[test]
fn the_oracle_notices_a_wrong_model() {
    // A 50 ms interval, 120 ms late: Burst fires 100 ms at once, Skip resumes at 150 ms, Delay at
    // 170 ms.
    let late = [0, 120 * MS, 0, 0];
    for behavior in [MissedTick::Burst, MissedTick::Delay, MissedTick::Skip] {
        assert_eq!(
            compare(behavior, behavior, 50 * MS, &late),
            Ok(()),
            "{behavior:?}"
        );
        for model in [MissedTick::Burst, MissedTick::Delay, MissedTick::Skip] {
            if model != behavior {
                assert!(
                    compare(behavior, model, 50 * MS, &late).is_err(),
                    "{model:?} passed for {behavior:?}"
                );
            }
        }
    }
}

/// A suspend in a generated schedule, in whole milliseconds of physical time.
#[derive(Clone, Copy, Debug)]
struct Suspend {
    system: bool,
    at_ms: u64,
    duration_ms: u64,
}

const RUN_FOR_MS: u64 = 20_000;

/// The deadlines ticklab's simulator ticks one interval for, on `platform`, under `suspends`.
fn simulated_deadlines(
    platform: &str,
    behavior: &str,
    period_ms: u64,
    suspends: &[Suspend],
) -> Vec<i64> {
    // tokio's paused clock wakes every timer exactly at its deadline: so does this machine.
    let mut text = format!(
        "about = \"oracle\"\nplatform = \"{platform}\"\nrun_for = \"{RUN_FOR_MS}ms\"\n\
         [machine]\ntimer_resolution = \"0s\"\ntimer_slack = \"0s\"\n\
         [model]\nkind = \"interval\"\nmissed_tick = \"{behavior}\"\nperiod = \"{period_ms}ms\"\nphase = \"0s\"\n"
    );
    for suspend in suspends {
        let kind = if suspend.system {
            "system-suspend"
        } else {
            "process-suspend"
        };
        text.push_str(&format!(
            "[[fault]]\nkind = \"{kind}\"\nat = \"{}ms\"\nduration = \"{}ms\"\n",
            suspend.at_ms, suspend.duration_ms
        ));
    }
    let scenario = ticklab::loader::parse("oracle.toml", &text).unwrap();
    let mut ticks = Deadlines(Vec::new());
    ticklab::run::run_scenario(&scenario, &ticklab::run::RunOptions::default(), &mut ticks)
        .unwrap();
    ticks.0
}

struct Deadlines(Vec<i64>);

impl ticklab::trace::TraceSink for Deadlines {
    fn record(&mut self, event: &ticklab::trace::Event<'_>) -> std::io::Result<()> {
        if let ticklab::trace::Event::Model(event) = event
            && let Some(tick) = event
                .as_any()
                .downcast_ref::<ticklab::interval::TickEvent>()
        {
            self.0.push(tick.deadline_ns);
        }
        Ok(())
    }
}

/// The same schedule on real tokio: between suspends the task polls its interval while paused
/// time runs; a suspend the platform's `Instant` counts is one `advance` with nothing polled, and
/// one it does not count (a system sleep on Linux or Apple) is no advance at all.
fn tokio_deadlines(
    instant_counts_sleep: bool,
    behavior: MissedTickBehavior,
    period_ms: u64,
    suspends: &[Suspend],
) -> Vec<i64> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(tokio::task::unconstrained(async {
        let start = Instant::now();
        let mut interval = tokio::time::interval(Duration::from_millis(period_ms));
        interval.set_missed_tick_behavior(behavior);
        let mut deadlines = Vec::new();
        let mut physical_ms = 0;
        let mut instant_ms = 0;
        for suspend in suspends {
            instant_ms += suspend.at_ms - physical_ms;
            run_until(&mut interval, start, instant_ms, &mut deadlines).await;
            if !suspend.system || instant_counts_sleep {
                tokio::time::advance(Duration::from_millis(suspend.duration_ms)).await;
                instant_ms += suspend.duration_ms;
            }
            physical_ms = suspend.at_ms + suspend.duration_ms;
        }
        instant_ms += RUN_FOR_MS - physical_ms;
        run_until(&mut interval, start, instant_ms, &mut deadlines).await;
        deadlines
    }))
}

/// Polls `interval` until `until_ms` after `start`, recording each deadline it returns.
async fn run_until(
    interval: &mut tokio::time::Interval,
    start: Instant,
    until_ms: u64,
    deadlines: &mut Vec<i64>,
) {
    let until = start + Duration::from_millis(until_ms);
    loop {
        // The suspend comes first when a tick falls due at its very start, as in the simulator,
        // where a fault at a moment precedes the wakes due then.
        tokio::select! {
            biased;
            () = tokio::time::sleep_until(until) => break,
            tick = interval.tick() => deadlines.push((tick - start).as_nanos() as i64),
        }
    }
}

/// Up to four suspends that do not overlap, each ending before the run does.
fn suspends() -> impl Strategy<Value = Vec<Suspend>> {
    prop::collection::vec((any::<bool>(), 1u64..4_000, 1u64..3_000), 0..4).prop_map(|gaps| {
        let mut at_ms = 0;
        let mut suspends = Vec::new();
        for (system, gap_ms, duration_ms) in gaps {
            at_ms += gap_ms;
            if at_ms + duration_ms >= RUN_FOR_MS {
                break;
            }
            suspends.push(Suspend {
                system,
                at_ms,
                duration_ms,
            });
            at_ms += duration_ms;
        }
        suspends
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/tokio_oracle.proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    /// The whole simulator, platform clocks included, against tokio on the same suspends.
    #[test]
    fn the_simulator_ticks_like_tokio_through_suspends(
        platform in prop::sample::select(vec![
            "linux", "windows", "macos", "ios", "android", "android-aosp",
        ]),
        behavior in prop::sample::select(vec![
            ("burst", MissedTickBehavior::Burst),
            ("delay", MissedTickBehavior::Delay),
            ("skip", MissedTickBehavior::Skip),
        ]),
        period_ms in prop_oneof![1u64..20, 20u64..1_000],
        suspends in suspends(),
    ) {
        // Windows' QueryPerformanceCounter and the CLOCK_BOOTTIME of AOSP's patched toolchain
        // count a system sleep; an app built with upstream Rust reads CLOCK_MONOTONIC on Android.
        let counts_sleep = matches!(platform, "windows" | "android-aosp");
        let simulated = simulated_deadlines(platform, behavior.0, period_ms, &suspends);
        let real = tokio_deadlines(counts_sleep, behavior.1, period_ms, &suspends);
        prop_assert_eq!(simulated, real);
    }
}
