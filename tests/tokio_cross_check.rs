//! The same interval scenario files two ways: through the simulator's interval model, and as real
//! `tokio::time::interval` code under `ticklab::tokio`. Every scenario whose interval tokio itself
//! has (Burst, Delay, Skip) must give the same table of ticks: when each came, what `Instant` read
//! then, and which deadline `tick()` returned.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ticklab::interval::{IntervalConfig, Period, Phase, TickEvent};
use ticklab::models::interval::MissedTick;
use ticklab::run::{RunOptions, run_scenario};
use ticklab::scenario::Scenario;
use ticklab::tokio::{Harness, note_with, started_at};
use ticklab::trace::{Event, TraceSink};
use tokio::time::MissedTickBehavior;

/// One tick: physical time, `Instant` when handled, and the deadline `tick()` returned.
type Tick = (u64, i64, i64);

struct Ticks(Vec<Tick>);

impl TraceSink for Ticks {
    fn record(&mut self, event: &Event<'_>) -> std::io::Result<()> {
        if let Event::Model(event) = event
            && let Some(tick) = event.as_any().downcast_ref::<TickEvent>()
        {
            self.0.push((tick.t_ns, tick.instant_ns, tick.deadline_ns));
        }
        Ok(())
    }
}

/// The scenario in the simulator on an ideal machine: tokio's paused clock wakes every timer
/// exactly at its deadline, so the simulated OS must add no timer slack or resolution either.
/// Every interval scenario leaves `[machine]` at its defaults, so the table is appended.
fn simulated(path: &Path) -> Vec<Tick> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        !text.contains("[machine]"),
        "{}: sets [machine] already",
        path.display()
    );
    let ideal = format!("{text}\n[machine]\ntimer_resolution = \"0s\"\ntimer_slack = \"0s\"\n");
    let scenario = ticklab::loader::parse(&path.display().to_string(), &ideal).unwrap();
    let mut ticks = Ticks(Vec::new());
    run_scenario(&scenario, &RunOptions::default(), &mut ticks).unwrap();
    ticks.0
}

/// The scenario's one interval as tokio code: `tick()` in a loop, each deadline noted.
fn with_tokio(path: &Path, behavior: MissedTickBehavior, period: Duration) -> Vec<Tick> {
    let harness = Harness::load(path).unwrap();
    let run = harness.run(|| async {
        let mut interval = tokio::time::interval(period);
        interval.set_missed_tick_behavior(behavior);
        loop {
            let deadline = interval.tick().await;
            note_with("tick", (deadline - started_at()).as_nanos());
        }
    });
    run.notes()
        .map(|note| (note.t_ns, note.instant_ns, note.detail.parse().unwrap()))
        .collect()
}

/// The interval scenarios tokio can run as they are: one interval with a fixed period and no
/// phase, of a behaviour tokio has, with `Instant` on a clock that only moves forward.
fn tokio_shaped(scenario: &Scenario) -> Option<(MissedTickBehavior, Duration)> {
    let config = scenario.model.config::<IntervalConfig>()?;
    let behavior = match config.missed_tick {
        MissedTick::Burst => MissedTickBehavior::Burst,
        MissedTick::Delay => MissedTickBehavior::Delay,
        MissedTick::Skip => MissedTickBehavior::Skip,
        _ => return None,
    };
    let Period::Fixed { period_ns } = config.period else {
        return None;
    };
    let no_phase = config.phase == Phase::Fixed { offset_ns: 0 };
    let one = config.count == 1 && config.tick_cost_ns == 0;
    let instant = scenario.instant_clock != ticklab::sim::ClockId::Wall;
    (no_phase && one && instant).then_some((behavior, Duration::from_nanos(period_ns)))
}

fn interval_scenarios() -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/interval");
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(folder)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_tokio_shaped_interval_scenario_ticks_the_same_in_the_simulator_and_in_tokio() {
    let mut compared = Vec::new();
    for path in interval_scenarios() {
        let scenario = ticklab::loader::load(&path).unwrap();
        let Some((behavior, period)) = tokio_shaped(&scenario) else {
            continue;
        };
        let simulated = simulated(&path);
        let real = with_tokio(&path, behavior, period);
        assert!(!simulated.is_empty(), "{}: no ticks", path.display());
        let first_difference = simulated
            .iter()
            .zip(&real)
            .position(|(a, b)| a != b)
            .or((simulated.len() != real.len()).then(|| simulated.len().min(real.len())));
        if let Some(at) = first_difference {
            panic!(
                "{}: tick {at} differs: simulator {:?}, tokio {:?} ({} ticks against {})",
                path.display(),
                simulated.get(at),
                real.get(at),
                simulated.len(),
                real.len()
            );
        }
        compared.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    println!(
        "{} scenarios tick the same: {}",
        compared.len(),
        compared.join(", ")
    );
    // Both tokio #3184 files and the 36 platform × suspend × burst/delay/skip files, at least.
    assert!(compared.len() >= 38, "compared only {compared:?}");
}
