//! The `[model]` table of an idle scenario: one event loop per strategy, all seeing the same
//! events, or making a fixed number of idle calls with no events at all.

use ticklab_models::idle::Strategy;

use super::keys::IdleSpec;
use crate::profile::CostProfile;
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::numbers::optional_whole;
use crate::scenario::values::Named;

/// A strategy as a scenario names it; its timeout comes from the model's `timeout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrategyKind {
    Spin,
    Yield,
    SleepZero,
    Condvar,
    Sleep,
    Epoll,
}

impl Named for StrategyKind {
    const ALL: &'static [Self] = &[
        StrategyKind::Spin,
        StrategyKind::Yield,
        StrategyKind::SleepZero,
        StrategyKind::Condvar,
        StrategyKind::Sleep,
        StrategyKind::Epoll,
    ];
    const NAMES: &'static [&'static str] =
        &["spin", "yield", "sleep0", "condvar", "sleep", "epoll"];
}

/// When events arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    Periodic {
        every_ns: u64,
    },
    /// Exponential gaps with this mean.
    Poisson {
        mean_ns: u64,
    },
    /// `size` events `spacing_ns` apart, a burst every `every_ns`.
    Bursts {
        every_ns: u64,
        size: u32,
        spacing_ns: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArrivalKind {
    Periodic,
    Poisson,
    Bursts,
}

impl Named for ArrivalKind {
    const ALL: &'static [Self] = &[
        ArrivalKind::Periodic,
        ArrivalKind::Poisson,
        ArrivalKind::Bursts,
    ];
    const NAMES: &'static [&'static str] = &["periodic", "poisson", "bursts"];
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleConfig {
    pub profile: CostProfile,
    pub strategies: Vec<Strategy>,
    /// CPU each event takes to handle.
    pub handle_ns: u64,
    /// Replaces the profile's timer slack, as `PR_SET_TIMERSLACK` would.
    pub timer_slack_ns: Option<u64>,
    /// Each loop stops after this many idle calls.
    pub max_calls: Option<u64>,
    pub arrival: Option<Arrival>,
}

pub const DEFAULT_TIMEOUT_NS: u64 = 1_000_000;
pub const DEFAULT_HANDLE_NS: u64 = 1_000;
const MS: u64 = 1_000_000;

pub(crate) fn validate(file: &Located<'_>, spec: &IdleSpec) -> Result<IdleConfig, ScenarioError> {
    let profile = crate::profile::resolve(file.source, spec.profile.get_ref())
        .map_err(|(message, hint)| file.error(spec.profile.span(), message).with_hint(hint))?;
    let timeout_ns = match &spec.timeout {
        Some(timeout) if timeout.get_ref().0 == 0 => {
            return Err(file
                .error(timeout.span(), "`timeout` must be more than zero")
                .with_hint("the timed waits' and the fixed sleep's length, such as \"1ms\""));
        }
        Some(timeout) => timeout.get_ref().0,
        None => DEFAULT_TIMEOUT_NS,
    };
    let kinds = spec.strategies.get_ref();
    if kinds.is_empty() {
        return Err(file
            .error(spec.strategies.span(), "name at least one strategy")
            .with_hint(format!("strategies are {}", StrategyKind::NAMES.join(", "))));
    }
    let mut strategies = Vec::with_capacity(kinds.len());
    for kind in kinds {
        let strategy = match kind.0 {
            StrategyKind::Spin => Strategy::Spin,
            StrategyKind::Yield => Strategy::Yield,
            StrategyKind::SleepZero => Strategy::SleepZero,
            StrategyKind::Condvar => Strategy::Condvar { timeout_ns },
            StrategyKind::Sleep => Strategy::Sleep {
                duration_ns: timeout_ns,
            },
            // epoll_wait takes whole milliseconds, rounding up.
            StrategyKind::Epoll => Strategy::Epoll {
                timeout_ns: timeout_ns.div_ceil(MS) * MS,
            },
        };
        if strategies.contains(&strategy) {
            return Err(file
                .error(
                    spec.strategies.span(),
                    format!("`{}` is listed twice", strategy.name()),
                )
                .with_hint("name each strategy once"));
        }
        strategies.push(strategy);
    }
    let calls = optional_whole(
        file,
        &spec.calls,
        "calls",
        0..=1_000_000_000_000,
        0,
        "idle calls each loop makes before it stops",
    )?;
    let arrival = arrival(file, spec)?;
    if arrival.is_none() && calls == 0 {
        return Err(file
            .error(
                spec.strategies.span(),
                "an idle scenario needs events or `calls`",
            )
            .with_hint("add arrival = \"periodic\" with every = \"1ms\", or calls = 100000"));
    }
    Ok(IdleConfig {
        profile,
        strategies,
        handle_ns: spec.handle.map_or(DEFAULT_HANDLE_NS, |handle| handle.0),
        timer_slack_ns: spec.timer_slack.map(|slack| slack.0),
        max_calls: (calls > 0).then_some(calls as u64),
        arrival,
    })
}

fn arrival(file: &Located<'_>, spec: &IdleSpec) -> Result<Option<Arrival>, ScenarioError> {
    let Some(kind) = &spec.arrival else {
        if let Some(every) = &spec.every {
            return Err(file
                .error(every.span(), "`every` needs an `arrival`")
                .with_hint("add arrival = \"periodic\", \"poisson\" or \"bursts\""));
        }
        return Ok(None);
    };
    let Some(every) = &spec.every else {
        return Err(file
            .error(spec.strategies.span(), "events need `every`")
            .with_hint("the period, mean gap or gap between bursts, such as every = \"1ms\""));
    };
    let every_ns = every.get_ref().0;
    if every_ns == 0 {
        return Err(file
            .error(every.span(), "`every` must be more than zero")
            .with_hint("such as every = \"1ms\""));
    }
    let bursty = kind.0 == ArrivalKind::Bursts;
    if let (Some(burst), false) = (&spec.burst, bursty) {
        return Err(file
            .error(burst.span(), "`burst` is only for arrival = \"bursts\"")
            .with_hint("remove it, or set arrival = \"bursts\""));
    }
    Ok(Some(match kind.0 {
        ArrivalKind::Periodic => Arrival::Periodic { every_ns },
        ArrivalKind::Poisson => Arrival::Poisson { mean_ns: every_ns },
        ArrivalKind::Bursts => {
            let size = optional_whole(
                file,
                &spec.burst,
                "burst",
                1..=1_000_000,
                8,
                "events in each burst",
            )?;
            Arrival::Bursts {
                every_ns,
                size: size as u32,
                spacing_ns: spec.burst_spacing.map_or(10_000, |spacing| spacing.0),
            }
        }
    }))
}
