//! The `[model]` table of an interval scenario, and its validation.

use ticklab_models::interval::MissedTick;
use ticklab_sim::NS_PER_MS;
use toml::Spanned;

use crate::interval::keys::IntervalSpec;
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::values::{DurationNs, DurationOrRange, PhaseSpec};

/// At most this many intervals in one scenario: enough for load tests, small enough that
/// per-interval state stays in cache.
pub const MAX_COUNT: i64 = 1_000_000;

/// A validated interval model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntervalConfig {
    pub missed_tick: MissedTick,
    pub period: Period,
    pub count: u32,
    /// CPU time the runtime thread spends on each tick.
    pub tick_cost_ns: u64,
    pub phase: Phase,
    /// The timer driver's granularity: deadlines round up to a multiple of it (tokio's wheel
    /// works in whole milliseconds).
    pub driver_resolution_ns: u64,
    /// `clock = "wall"`: the schedule is kept on the wall clock, which the run's `Instant`
    /// then reads; `None` keeps the platform's.
    pub clock: Option<ticklab_sim::ClockId>,
}

/// The values of the interval's `clock` key.
pub const CLOCKS: &[&str] = &["instant", "wall"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    Fixed {
        period_ns: u64,
    },
    /// Each interval draws a whole number of milliseconds from `low_ms..=high_ms`.
    DrawnMs {
        low_ms: u64,
        high_ms: u64,
    },
}

impl Period {
    pub fn shortest_ns(self) -> u64 {
        match self {
            Period::Fixed { period_ns } => period_ns,
            Period::DrawnMs { low_ms, .. } => low_ms * NS_PER_MS,
        }
    }
}

/// When each interval's first deadline falls, relative to the start of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Seeded, uniform over one period, in steps of the timer resolution.
    Random,
    Fixed {
        offset_ns: u64,
    },
}

/// Validates the `[model]` table of a run lasting `run_for_ns`.
pub(crate) fn validate(
    file: &Located<'_>,
    spec: &IntervalSpec,
    run_for_ns: u64,
) -> Result<IntervalConfig, ScenarioError> {
    // A tick that costs more than the whole run is never observed finishing, and bounding the
    // cost keeps the runtime thread's busy time within twice the run.
    let tick_cost_ns = match &spec.tick_cost {
        None => 0,
        Some(cost) if cost.get_ref().0 <= run_for_ns => cost.get_ref().0,
        Some(cost) => {
            return Err(file
                .error(cost.span(), "`tick_cost` is longer than the whole run")
                .with_hint("`tick_cost` is the CPU time of one tick, such as \"2ms\""));
        }
    };
    let period = validate_period(file, &spec.period)?;
    let count = match &spec.count {
        None => 1,
        Some(count) if (1..=MAX_COUNT).contains(count.get_ref()) => *count.get_ref() as u32,
        Some(count) => {
            return Err(file
                .error(
                    count.span(),
                    format!("`count` must be between 1 and {MAX_COUNT}"),
                )
                .with_hint("`count` is how many intervals run side by side"));
        }
    };
    let driver_resolution_ns = match &spec.driver_resolution {
        None => NS_PER_MS,
        Some(resolution) if resolution.get_ref().0 > 0 => resolution.get_ref().0,
        Some(resolution) => {
            return Err(file
                .error(
                    resolution.span(),
                    "`driver_resolution` must be more than zero",
                )
                .with_hint("use \"1ns\" for a driver that fires at exact deadlines"));
        }
    };
    let clock = match spec
        .clock
        .as_ref()
        .map(|clock| (clock.get_ref().as_str(), clock.span()))
    {
        None | Some(("instant", _)) => None,
        Some(("wall", _)) => Some(ticklab_sim::ClockId::Wall),
        Some((other, span)) => {
            return Err(file
                .error(span, format!("unknown clock `{other}`"))
                .with_hint("write `instant` (the platform's `Instant`) or `wall`"));
        }
    };
    Ok(IntervalConfig {
        clock,
        missed_tick: spec.missed_tick.0,
        period,
        count,
        tick_cost_ns,
        phase: match spec.phase {
            None | Some(PhaseSpec::Random) => Phase::Random,
            Some(PhaseSpec::Fixed(offset)) => Phase::Fixed {
                offset_ns: offset.0,
            },
        },
        driver_resolution_ns,
    })
}

fn validate_period(
    file: &Located<'_>,
    spec: &Spanned<DurationOrRange>,
) -> Result<Period, ScenarioError> {
    let error = |message: &str| file.error(spec.span(), message.to_string());
    match *spec.get_ref() {
        DurationOrRange::Fixed(DurationNs(0)) => {
            Err(error("an interval's period must be more than zero")
                .with_hint("tokio panics on a zero period"))
        }
        DurationOrRange::Fixed(DurationNs(period_ns)) => Ok(Period::Fixed { period_ns }),
        DurationOrRange::Range(DurationNs(low_ns), DurationNs(high_ns)) => {
            if low_ns % NS_PER_MS != 0 || high_ns % NS_PER_MS != 0 || low_ns == 0 {
                return Err(error(
                    "a period range's ends must be whole milliseconds of at least 1ms",
                )
                .with_hint("periods are drawn in whole milliseconds, such as [\"10ms\", \"1s\"]"));
            }
            if low_ns > high_ns {
                return Err(error(
                    "a period range must go from the shorter period to the longer one",
                )
                .with_hint("write the shorter period first, such as [\"10ms\", \"1s\"]"));
            }
            Ok(Period::DrawnMs {
                low_ms: low_ns / NS_PER_MS,
                high_ms: high_ns / NS_PER_MS,
            })
        }
    }
}
