//! Properties of the Interval family, on the pure next-deadline functions and through the whole
//! simulator with random suspends.

use std::io;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use ticklab::interval::TickEvent;
use ticklab::interval::{IntervalConfig, IntervalModel, Period, Phase};
use ticklab::model::ModelSetup;
use ticklab::run::{RunOptions, run_scenario};
use ticklab::scenario::{Conditions, Scenario, Setting};
use ticklab::trace::{Event, JsonlSink, TraceSink};
use ticklab_models::interval::{IntervalCore, LATE_TOLERANCE_NS, MissedTick, next_deadline_ns};
use ticklab_sim::{ClockId, Fault, NS_PER_MS, NS_PER_SEC, Platform};

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/properties.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

/// tokio's designs and the 0.1 fix, whose late ticks these properties work out.
fn behavior() -> impl Strategy<Value = MissedTick> {
    prop::sample::select(MissedTick::TOKIO.to_vec())
}

fn drops_missed_ticks() -> impl Strategy<Value = MissedTick> {
    prop::sample::select(vec![MissedTick::Delay, MissedTick::Skip, MissedTick::Fixed])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_next_deadline_is_at_least_a_period_later(
        behavior in behavior(),
        deadline_ns in 0i64..1 << 50,
        late_ns in 0i64..1 << 40,
        period_ns in 1i64..1 << 36,
    ) {
        let next = next_deadline_ns(behavior, deadline_ns, deadline_ns + late_ns, period_ns);
        prop_assert!(next >= deadline_ns + period_ns);
        if !behavior.replays_missed_ticks() && late_ns > LATE_TOLERANCE_NS {
            // A late tick never leaves the next one already due.
            prop_assert!(next > deadline_ns + late_ns);
        }
    }

    #[test]
    fn skip_stays_on_the_grid_and_delay_keeps_the_period(
        deadline_ns in 0i64..1 << 50,
        late_ns in 0i64..1 << 40,
        period_ns in 1i64..1 << 36,
    ) {
        let now_ns = deadline_ns + late_ns;
        let skip = next_deadline_ns(MissedTick::Skip, deadline_ns, now_ns, period_ns);
        prop_assert_eq!((skip - deadline_ns) % period_ns, 0);
        prop_assert!(skip - now_ns <= period_ns);
        let delay = next_deadline_ns(MissedTick::Delay, deadline_ns, now_ns, period_ns);
        let expected = if late_ns > LATE_TOLERANCE_NS { now_ns + period_ns } else { deadline_ns + period_ns };
        prop_assert_eq!(delay, expected);
    }

    #[test]
    fn after_a_gap_replaying_designs_fire_one_tick_per_missed_period(
        behavior in prop::sample::select(vec![MissedTick::Naive, MissedTick::Burst]),
        period_ns in NS_PER_MS as i64..10 * NS_PER_SEC as i64,
        on_time_ticks in 1usize..50,
        gap_ns in 0i64..1_000 * NS_PER_SEC as i64,
    ) {
        let mut core = IntervalCore::created_at(behavior, 0, period_ns);
        for _ in 0..on_time_ticks {
            let deadline = core.deadline_ns();
            prop_assert!(core.tick(deadline).is_some());
        }
        let now_ns = core.deadline_ns() - period_ns + gap_ns;
        let fired = std::iter::from_fn(|| core.tick(now_ns)).count() as i64;
        prop_assert!((fired - gap_ns / period_ns).abs() <= 1, "fired {fired} after a gap of {gap_ns} at {period_ns}");
    }

    #[test]
    fn after_a_gap_dropping_designs_fire_once(
        behavior in drops_missed_ticks(),
        period_ns in NS_PER_MS as i64..10 * NS_PER_SEC as i64,
        gap_periods in 2i64..1_000,
    ) {
        let mut core = IntervalCore::created_at(behavior, 0, period_ns);
        let first = core.deadline_ns();
        prop_assert!(core.tick(first).is_some());
        let now_ns = first + gap_periods * period_ns + 7 * NS_PER_MS as i64;
        prop_assert_eq!(std::iter::from_fn(|| core.tick(now_ns)).count(), 1);
    }
}

/// Keeps what the properties need from a trace: ticks and when the process stopped or resumed.
#[derive(Default)]
struct Timeline {
    ticks: Vec<(u64, i64, i64)>,
    resumes: Vec<(u64, u64)>,
}

impl TraceSink for Timeline {
    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        match event {
            Event::Model(event) => {
                if let Some(tick) = event.as_any().downcast_ref::<TickEvent>() {
                    self.ticks
                        .push((tick.t_ns, tick.instant_ns, tick.deadline_ns));
                }
            }
            Event::Resume(resume) => self.resumes.push((resume.t_ns, resume.stopped_ns)),
            _ => {}
        }
        Ok(())
    }
}

fn suspend_of(system: bool, at_ns: u64, duration_ns: u64) -> Fault {
    if system {
        Fault::SystemSuspend { at_ns, duration_ns }
    } else {
        Fault::ProcessSuspend { at_ns, duration_ns }
    }
}

/// One suspend of either kind, within the first ten minutes: whole seconds long, or a few
/// milliseconds (around tokio's 5 ms lateness rule, and shorter than most periods) starting at
/// any millisecond.
fn suspend() -> impl Strategy<Value = Fault> {
    prop_oneof![
        (any::<bool>(), 0u64..600, 1u64..600).prop_map(|(system, at_s, duration_s)| {
            suspend_of(
                system,
                at_s * NS_PER_SEC + 250 * NS_PER_MS,
                duration_s * NS_PER_SEC,
            )
        }),
        (any::<bool>(), 0u64..600_000, 1u64..30).prop_map(|(system, at_ms, duration_ms)| {
            suspend_of(system, at_ms * NS_PER_MS, duration_ms * NS_PER_MS)
        }),
    ]
}

/// Any fault, so that schedules overlap and compose.
fn any_fault() -> impl Strategy<Value = Fault> {
    prop_oneof![
        suspend(),
        (0u64..600, -7_200i64..7_200)
            .prop_filter("a step moves the clock", |(_, by_s)| *by_s != 0)
            .prop_map(|(at_s, by_s)| Fault::WallStep {
                at_ns: at_s * NS_PER_SEC,
                by_ns: by_s * NS_PER_SEC as i64
            }),
        (0u64..600, 1u64..600, -500_000i64..500_000).prop_map(|(at_s, duration_s, rate_ppb)| {
            Fault::WallSlew {
                at_ns: at_s * NS_PER_SEC,
                duration_ns: duration_s * NS_PER_SEC,
                rate_ppb,
            }
        }),
    ]
}

fn interval_scenario(
    platform: Platform,
    instant_clock: ClockId,
    behavior: MissedTick,
    period_ns: u64,
    faults: Vec<Fault>,
) -> Scenario {
    let setting = Setting {
        conditions: Conditions {
            source: "property".to_string(),
            about: "generated".to_string(),
            platform,
            instant_clock,
            seed: 0,
            run_for_ns: 1_300 * NS_PER_SEC,
            wall_start_ns: 1_600_000_000 * NS_PER_SEC as i64,
            faults,
        },
        machine: ticklab::machine::MachineConfig::ideal(),
        expectations: Vec::new(),
        max_memory_bytes: None,
        max_events: None,
    };
    let model = ModelSetup::new::<IntervalModel>(IntervalConfig {
        missed_tick: behavior,
        period: Period::Fixed { period_ns },
        count: 1,
        tick_cost_ns: 0,
        phase: Phase::Fixed { offset_ns: 0 },
        driver_resolution_ns: NS_PER_MS,
        clock: None,
    });
    Scenario { setting, model }
}

fn timeline(scenario: &Scenario) -> Timeline {
    let mut timeline = Timeline::default();
    run_scenario(scenario, &RunOptions::default(), &mut timeline).unwrap();
    timeline
}

fn platform() -> impl Strategy<Value = Platform> {
    prop::sample::select(Platform::ALL.to_vec())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn dropping_designs_never_fire_more_than_two_ticks_within_a_period_of_a_resume(
        platform in platform(),
        behavior in drops_missed_ticks(),
        period_ms in 10u64..3_000,
        fault in suspend(),
    ) {
        let scenario = interval_scenario(platform, platform.instant_clock(), behavior, period_ms * NS_PER_MS, vec![fault]);
        let timeline = timeline(&scenario);
        for &(resume_ns, _) in &timeline.resumes {
            let window = resume_ns..resume_ns + period_ms * NS_PER_MS;
            let ticks = timeline.ticks.iter().filter(|(t_ns, ..)| window.contains(t_ns)).count();
            prop_assert!(ticks <= 2, "{ticks} ticks within a period of the resume at {resume_ns}");
        }
    }

    #[test]
    fn replaying_designs_fire_the_missed_periods_at_the_resume(
        platform in platform(),
        behavior in prop::sample::select(vec![MissedTick::Naive, MissedTick::Burst]),
        period_ms in 10u64..3_000,
        fault in suspend(),
    ) {
        let scenario = interval_scenario(platform, platform.instant_clock(), behavior, period_ms * NS_PER_MS, vec![fault]);
        let timeline = timeline(&scenario);
        prop_assert_eq!(timeline.resumes.len(), 1);
        let (resume_ns, stopped_ns) = timeline.resumes[0];
        // The gap the interval sees is what its Instant counted while the process was stopped.
        let counted_ns = match (fault, platform.instant_clock()) {
            (Fault::SystemSuspend { .. }, ClockId::Monotonic) => 0,
            _ => stopped_ns,
        };
        let at_resume = timeline.ticks.iter().filter(|(t_ns, ..)| *t_ns == resume_ns).count() as i64;
        let missed = (counted_ns / (period_ms * NS_PER_MS)) as i64;
        prop_assert!((at_resume - missed).abs() <= 1, "{at_resume} ticks at the resume, {missed} periods missed");
    }

    /// tokio's rule for a late tick: at most 5 ms late, the next deadline stays on the grid;
    /// later, Delay re-anchors a period after the late tick, while Skip's next grid point is still
    /// one period on. Naive and Burst never leave the grid, and Fixed always re-anchors. Here a
    /// process suspend shorter than a period makes one tick 0-12 ms late.
    #[test]
    fn a_few_ms_late_tick_keeps_the_grid_unless_delay_is_more_than_5_ms_late(
        platform in platform(),
        behavior in behavior(),
        period_ms in 40u64..500,
        (late_tick, lead_ms) in (1u64..20, 1u64..20),
        late_ms in prop_oneof![Just(5u64), Just(6), 0u64..=12],
    ) {
        let (period_ns, late_ns) = (period_ms * NS_PER_MS, late_ms * NS_PER_MS);
        let at_ns = late_tick * period_ns - lead_ms * NS_PER_MS;
        let fault = Fault::ProcessSuspend { at_ns, duration_ns: (lead_ms + late_ms) * NS_PER_MS };
        let clock = platform.instant_clock();
        let timeline = timeline(&interval_scenario(platform, clock, behavior, period_ns, vec![fault]));
        let resume_ns = fault.end_ns();
        let late = timeline.ticks.iter().position(|&(t_ns, ..)| t_ns == resume_ns);
        let late = late.unwrap_or_else(|| panic!("no tick at the resume at {resume_ns}"));
        let (_, instant_ns, deadline_ns) = timeline.ticks[late];
        prop_assert_eq!(instant_ns - deadline_ns, late_ns as i64);
        let (period_ns, late_ns) = (period_ns as i64, late_ns as i64);
        let expected_ns = match behavior {
            MissedTick::Delay if late_ns > 5 * NS_PER_MS as i64 => instant_ns + period_ns,
            MissedTick::Fixed => instant_ns + period_ns,
            _ => deadline_ns + period_ns,
        };
        let next = &timeline.ticks[late..late + 2];
        prop_assert_eq!(next[1].2, expected_ns, "{:?}", next);
    }

    #[test]
    fn no_tick_fires_before_the_driver_deadline_or_while_the_process_is_stopped(
        platform in platform(),
        instant_clock in prop::sample::select(ClockId::ALL.to_vec()),
        behavior in behavior(),
        period_ns in 10 * NS_PER_MS..3 * NS_PER_SEC,
        faults in prop::collection::vec(any_fault(), 0..6),
    ) {
        let stopped: Vec<_> = faults
            .iter()
            .filter(|fault| matches!(fault, Fault::SystemSuspend { .. } | Fault::ProcessSuspend { .. }))
            .map(|fault| fault.at_ns()..fault.end_ns())
            .collect();
        let scenario = interval_scenario(platform, instant_clock, behavior, period_ns, faults);
        let timeline = timeline(&scenario);
        let mut last_ns = 0;
        for &(t_ns, instant_ns, deadline_ns) in &timeline.ticks {
            // Periods off the millisecond grid make the driver's round-up matter: a world that woke
            // at the raw deadline would pass the core's own check but fail this one.
            let ms = NS_PER_MS as i64;
            let driver_ns = deadline_ns + (ms - deadline_ns.rem_euclid(ms)) % ms;
            prop_assert!(instant_ns >= driver_ns, "a tick at instant {instant_ns} before the driver's {driver_ns}");
            prop_assert!(t_ns >= last_ns, "time went backwards");
            prop_assert!(!stopped.iter().any(|range| range.contains(&t_ns)), "a tick at {t_ns} while stopped");
            last_ns = t_ns;
        }
    }

    #[test]
    fn random_fault_schedules_replay_byte_for_byte(
        platform in platform(),
        instant_clock in prop::sample::select(ClockId::ALL.to_vec()),
        behavior in behavior(),
        period_ms in 10u64..3_000,
        faults in prop::collection::vec(any_fault(), 0..6),
    ) {
        let scenario = interval_scenario(platform, instant_clock, behavior, period_ms * NS_PER_MS, faults);
        let trace = || {
            let mut sink = JsonlSink::new(Vec::new());
            run_scenario(&scenario, &RunOptions::default(), &mut sink).unwrap();
            sink.into_inner()
        };
        prop_assert_eq!(trace(), trace());
    }

    /// The model's own invariants hold under any mix of suspends, freezes, steps and slews.
    #[test]
    fn random_fault_schedules_keep_the_interval_invariants(
        platform in platform(),
        instant_clock in prop::sample::select(ClockId::ALL.to_vec()),
        behavior in behavior(),
        period_ms in 10u64..3_000,
        faults in prop::collection::vec(any_fault(), 0..6),
    ) {
        let scenario = interval_scenario(platform, instant_clock, behavior, period_ms * NS_PER_MS, faults);
        let report = run_scenario(&scenario, &RunOptions::default(), &mut ticklab::trace::NoTrace).unwrap();
        prop_assert_eq!(report.summary.get("invariant_violations"), Some(0));
    }
}

/// A scenario file with values drawn far beyond the sensible: huge steps, fast slews, long runs,
/// early and late wall clocks. Every such file must either be refused with an error or run.
fn wild_scenario() -> impl Strategy<Value = String> {
    let fault = prop_oneof![
        (0u64..1_000, 0u64..40_000).prop_map(|(at, days)| format!(
            "[[fault]]\nkind = \"system-suspend\"\nat = \"{at}s\"\nduration = \"{days}d\"\n"
        )),
        (0u64..1_000, -80_000i64..80_000).prop_map(|(at, days)| format!(
            "[[fault]]\nkind = \"wall-step\"\nat = \"{at}s\"\nby = \"{days}d\"\n"
        )),
        (0u64..1_000, 0u64..40_000, -1.5f64..1.5).prop_map(|(at, days, rate)| format!(
            "[[fault]]\nkind = \"wall-slew\"\nat = \"{at}s\"\nduration = \"{days}d\"\nrate = {rate}\n"
        )),
    ];
    (
        prop::sample::select(Platform::NAMES.to_vec()),
        prop::sample::select(ClockId::NAMES.to_vec()),
        prop::sample::select(MissedTick::NAMES.to_vec()),
        prop_oneof![4 => 1900u32..2100, 1 => 1850u32..2150],
        prop_oneof![4 => (1u64..900).prop_map(|s| format!("{s}s")), 1 => (1u64..80_000).prop_map(|d| format!("{d}d"))],
        prop_oneof![1 => Just("1ns".to_string()), 9 => (1u64..5_000).prop_map(|ms| format!("{ms}ms"))],
        prop::collection::vec(fault, 0..5),
        (
            model_extras(),
            prop_oneof![
                3 => Just("0s".to_string()),
                3 => (0u64..100).prop_map(|ms| format!("{ms}ms")),
                1 => (0u64..100_000).prop_map(|d| format!("{d}d")),
            ],
        ),
    )
        .prop_map(|(platform, clock, behavior, year, run_for, period, faults, (extras, tick_cost))| {
            format!(
                "about = \"wild\"\nplatform = \"{platform}\"\ninstant_clock = \"{clock}\"\n\
                 run_for = \"{run_for}\"\nwall_start = \"{year}-06-01T00:00:00Z\"\n\
                 [model]\nkind = \"interval\"\nmissed_tick = \"{behavior}\"\nperiod = \"{period}\"\n\
                 tick_cost = \"{tick_cost}\"\n{extras}{}",
                faults.join("")
            )
        })
}

/// Optional interval keys at the edges of their ranges.
fn model_extras() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(1u64), 1u64..50, Just(1_000_000)],
        prop_oneof![
            Just("\"random\"".to_string()),
            (0u64..10_000).prop_map(|ms| format!("\"{ms}ms\""))
        ],
        prop_oneof![Just("1ns"), Just("1ms"), Just("1s"), Just("1h")],
    )
        .prop_map(|(count, phase, resolution)| {
            format!("count = {count}\nphase = {phase}\ndriver_resolution = \"{resolution}\"\n")
        })
}

/// Runs `work` on its own thread; `Err` if it panicked or outlived `limit` (a hang).
fn within<T: Send + 'static>(
    limit: std::time::Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(work()));
    result.recv_timeout(limit).map_err(|error| match error {
        std::sync::mpsc::RecvTimeoutError::Timeout => format!("still running after {limit:?}"),
        std::sync::mpsc::RecvTimeoutError::Disconnected => "panicked".to_string(),
    })
}

/// Asserts that `error` points into `text`: a line of the file and a column of that line, named
/// in its headline with a message.
fn assert_located(error: &ticklab::scenario::ScenarioError, text: &str) {
    let Some((line, col)) = error.position() else {
        panic!("an error without a position: {error}\n{text}");
    };
    let line_text = text.lines().nth(line.wrapping_sub(1));
    let line_text = line_text.unwrap_or_else(|| panic!("{error} names line {line}\n{text}"));
    assert!(
        (1..=line_text.len() + 1).contains(&col),
        "{error} names column {col} of {line_text:?}"
    );
    assert!(
        error
            .headline()
            .starts_with(&format!("wild.toml:{line}:{col}: "))
            && !error.message().is_empty(),
        "{error}"
    );
}

/// A fault inside the limits: a suspend of up to a day, a wall step of up to 5 minutes either
/// way, or a slew of up to 15% either way, so that even five overlapping slews stay slower than
/// double speed and faster than a stop.
fn sane_fault() -> impl Strategy<Value = String> {
    let suspend = prop::sample::select(vec!["system-suspend", "process-suspend"]);
    prop_oneof![
        (suspend, 0u64..300_000, 1u64..86_400_000).prop_map(|(kind, at, ms)| {
            format!("[[fault]]\nkind = \"{kind}\"\nat = \"{at}ms\"\nduration = \"{ms}ms\"\n")
        }),
        (0u64..300_000, -300_000i64..300_000)
            .prop_filter("a step moves the clock", |(_, by)| *by != 0)
            .prop_map(|(at, by)| {
                format!("[[fault]]\nkind = \"wall-step\"\nat = \"{at}ms\"\nby = \"{by}ms\"\n")
            }),
        (0u64..300, 1u64..600, -0.15f64..0.15).prop_map(|(at, duration, rate)| {
            format!(
                "[[fault]]\nkind = \"wall-slew\"\nat = \"{at}s\"\nduration = \"{duration}s\"\n\
                 rate = {rate}\n"
            )
        }),
    ]
}

/// An interval `[model]` table inside the limits: any design, periods from 100 ms to 5 s, one or
/// two intervals, any phase and timer resolution, and a tick cost under half the shortest period.
fn sane_interval() -> impl Strategy<Value = String> {
    let phase = prop_oneof![
        Just("\"random\"".to_string()),
        (0u64..1_000).prop_map(|ms| format!("\"{ms}ms\""))
    ];
    let resolution = prop::sample::select(vec!["1ns", "1ms", "15ms", "1s"]);
    let behavior = prop::sample::select(MissedTick::NAMES.to_vec());
    (
        behavior,
        100u64..5_000,
        1u64..=2,
        phase,
        resolution,
        0u64..50,
    )
        .prop_map(|(behavior, period_ms, count, phase, resolution, cost_ms)| {
            format!(
                "[model]\nkind = \"interval\"\nmissed_tick = \"{behavior}\"\n\
                 period = \"{period_ms}ms\"\ntick_cost = \"{cost_ms}ms\"\ncount = {count}\n\
                 phase = {phase}\ntimer_resolution = \"{resolution}\"\n"
            )
        })
}

/// A scenario file with every value inside the limits: any platform and clock, wall clocks from
/// 1900 to 2100, runs of 5 to 10 minutes, and faults within the first 5 minutes that keep the wall
/// clock in range and the work small.
fn sane_scenario() -> impl Strategy<Value = String> {
    (
        prop::sample::select(Platform::NAMES.to_vec()),
        prop::sample::select(ClockId::NAMES.to_vec()),
        (1900u32..2100, 300u64..600),
        sane_interval(),
        prop::collection::vec(sane_fault(), 0..5),
    )
        .prop_map(|(platform, clock, (year, run_for_s), model, faults)| {
            format!(
                "about = \"sane\"\nplatform = \"{platform}\"\ninstant_clock = \"{clock}\"\n\
                 run_for = \"{run_for_s}s\"\nwall_start = \"{year}-06-01T00:00:00Z\"\n{model}{}",
                faults.join("")
            )
        })
}

proptest! {
    #![proptest_config(config())]

    /// A parser fuzz: values far beyond the sensible either parse and then run (or are refused as
    /// too much work) without crashing or hanging, or are refused with an error located in the
    /// file. About two in three files are refused.
    #[test]
    fn wild_scenarios_run_or_are_refused_with_an_error_located_in_the_file(
        text in wild_scenario(),
    ) {
        let scenario = match ticklab::loader::parse("wild.toml", &text) {
            Ok(scenario) => scenario,
            Err(error) => {
                assert_located(&error, &text);
                return Ok(());
            }
        };
        let options = RunOptions { max_events: 200_000, ..RunOptions::default() };
        let outcome = within(std::time::Duration::from_secs(30), move || {
            match run_scenario(&scenario, &options, &mut ticklab::trace::NoTrace) {
                Ok(_) | Err(ticklab::run::RunError::TooMuchWork { .. }) => Ok(()),
                Err(error) => Err(error.to_string()),
            }
        });
        prop_assert_eq!(outcome, Ok(Ok(())), "{}", text);
    }

    /// Files whose every value lies within the limits always parse, and always run to their
    /// end, however their faults overlap.
    #[test]
    fn scenarios_within_every_limit_always_parse_and_run_to_the_end(text in sane_scenario()) {
        let scenario = ticklab::loader::parse("sane.toml", &text)
            .unwrap_or_else(|error| panic!("{error}\n{text}"));
        let report = run_scenario(&scenario, &RunOptions::default(), &mut ticklab::trace::NoTrace);
        let report = report.unwrap_or_else(|error| panic!("{error}\n{text}"));
        prop_assert_eq!(report.summary.t_ns, scenario.run_for_ns, "{}", text);
    }
}
