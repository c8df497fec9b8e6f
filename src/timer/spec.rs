//! The `[model]` table of a timer scenario: an RPC-style load on one timer design.

use ticklab_models::timer::{DesignKey, KeyValue, TimerClock, TimerParams};
use toml::Spanned;

use super::thaw::ThawOrder;
use crate::expect::Metric;
use crate::registry::designs::{Registry, TimerDesignEntry};
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::values::{DurationNs, DurationOrRange, Named};
use crate::timer::keys::TimerSpec;

impl Named for TimerClock {
    const ALL: &'static [Self] = &TimerClock::ALL;
    const NAMES: &'static [&'static str] = TimerClock::NAMES;
}

/// A validated timer model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerConfig {
    pub design: TimerDesignEntry,
    pub clock: TimerClock,
    /// The design's own keys the file sets, in the file's order.
    pub design_settings: Vec<(DesignKey, KeyValue)>,
    /// What the summary reports and `[expect]` may bound: every timer run's metrics, then the
    /// design's own.
    pub metrics: Vec<Metric>,
    /// The other registered designs' own metrics, with their designs, for `[expect]`'s errors.
    pub metrics_elsewhere: Vec<(&'static str, &'static str)>,
    /// Bytes a timer slot stands for in the memory metrics: brpc's `Task` is one 64-byte cache
    /// line.
    pub task_bytes: u64,
    /// Timer slots of the whole design, made as they are first needed; a schedule that finds
    /// none free fails, as brpc's does when allocation fails.
    pub capacity: usize,
    pub clients: u32,
    /// Each client starts a call this often.
    pub call_interval_ns: u64,
    /// Each call arms a timer this far ahead.
    pub timeout_ns: u64,
    /// Response latencies are drawn uniformly from this range.
    pub latency_ns: (u64, u64),
    /// A fraction (parts per million) of responses instead take `slow_latency_ns`.
    pub slow_responses_ppm: u32,
    pub slow_latency_ns: u64,
    /// CPU time of a timer's callback on its timer thread.
    pub callback_cost_ns: u64,
    /// Every `n`th callback takes `cost` instead.
    pub slow_callback: Option<(u64, u64)>,
    /// How late a timed sleep ends: timer slack and wake-up latency (about 60 µs for a condvar
    /// or futex timeout on Linux, semantics.md §7).
    /// `None`: as the platform's timed waits end ([`crate::machine::Timing`]).
    pub sleep_overshoot_ns: Option<u64>,
    /// What runs first at a thaw: the timer threads or the callers.
    pub thaw_order: ThawOrder,
}

/// brpc's `TimerThread::Task` is `BAIDU_CACHELINE_ALIGNMENT`: 64 bytes each.
pub const DEFAULT_TASK_BYTES: u64 = 64;
/// As many as a design may have: brpc's slots grow until memory runs out, and a run that would
/// hold more is better told so than silently slowed.
pub const DEFAULT_CAPACITY: usize = ticklab_models::timer::MAX_CAPACITY;

/// Reads an optional count within `range`, or its default.
fn count(
    file: &Located<'_>,
    value: &Option<Spanned<i64>>,
    key: &str,
    range: std::ops::RangeInclusive<i64>,
    default: i64,
    hint: &str,
) -> Result<i64, ScenarioError> {
    match value {
        None => Ok(default),
        Some(value) if range.contains(value.get_ref()) => Ok(*value.get_ref()),
        Some(value) => Err(file
            .error(
                value.span(),
                format!(
                    "`{key}` must be between {} and {}",
                    range.start(),
                    range.end()
                ),
            )
            .with_hint(hint.to_string())),
    }
}

fn positive(
    file: &Located<'_>,
    value: &Spanned<DurationNs>,
    key: &str,
    hint: &str,
) -> Result<u64, ScenarioError> {
    match value.get_ref().0 {
        0 => Err(file
            .error(value.span(), format!("`{key}` must be more than zero"))
            .with_hint(hint.to_string())),
        ns => Ok(ns),
    }
}

impl TimerConfig {
    /// What the design is built with, on a machine of `cores` cores.
    pub fn params(&self, cores: usize) -> TimerParams {
        let mut params = TimerParams::new(self.clock, self.capacity);
        params.cores = cores;
        self.design_settings
            .iter()
            .fold(params, |params, (key, value)| params.with(key, *value))
    }

    /// The most timer threads the design runs on any machine.
    pub fn most_timer_threads(&self) -> usize {
        self.design
            .build(&self.params(ticklab_models::timer::go_timers::MAX_PROCS))
            .timer_threads()
    }
}

/// The design the scenario names, from the registry.
pub(crate) fn design(
    file: &Located<'_>,
    registry: &Registry,
    name: &Spanned<String>,
) -> Result<TimerDesignEntry, ScenarioError> {
    if let Some(entry) = registry.timer_design(name.get_ref()) {
        return Ok(*entry);
    }
    let names: Vec<&str> = registry.timer_designs().map(|entry| entry.name).collect();
    Err(crate::scenario::explain::unknown_choice(
        file,
        name,
        "timer design",
        &names,
    ))
}

pub(crate) fn validate(
    file: &Located<'_>,
    registry: &Registry,
    spec: &TimerSpec,
    run_for_ns: u64,
) -> Result<TimerConfig, ScenarioError> {
    let design = design(file, registry, &spec.design)?;
    let design_settings = super::design_keys::read(
        file,
        registry,
        &design,
        crate::scenario::keys_of::<TimerSpec>(),
    )?;
    let (task_bytes, capacity) = slots(file, spec)?;
    let clients = count(
        file,
        &Some(spec.clients.clone()),
        "clients",
        1..=100_000,
        1,
        "each client is a calling thread",
    )?;
    let call_interval_ns = positive(
        file,
        &spec.call_interval,
        "call_interval",
        "each client starts a call this often, such as \"10ms\"",
    )?;
    let timeout_ns = positive(
        file,
        &spec.timeout,
        "timeout",
        "each call's timeout, such as \"100ms\"",
    )?;
    let latency_ns = latency(file, spec)?;
    let (slow_responses_ppm, slow_latency_ns) = slow_responses(file, spec)?;
    let callback_cost_ns = at_most_run(file, &spec.callback_cost, "callback_cost", run_for_ns)?;
    let slow_callback = slow_callback(file, spec, run_for_ns)?;
    Ok(TimerConfig {
        design,
        clock: spec.clock.0,
        design_settings,
        metrics: metrics(&design),
        metrics_elsewhere: metrics_elsewhere(registry, &design),
        task_bytes,
        capacity,
        clients: clients as u32,
        call_interval_ns,
        timeout_ns,
        latency_ns,
        slow_responses_ppm,
        slow_latency_ns,
        callback_cost_ns,
        slow_callback,
        sleep_overshoot_ns: spec.sleep_overshoot.map(|overshoot| overshoot.0),
        thaw_order: spec
            .thaw_order
            .map_or_else(ThawOrder::default, |order| order.0),
    })
}

/// The bytes a timer slot stands for and the most slots the design may hold.
fn slots(file: &Located<'_>, spec: &TimerSpec) -> Result<(u64, usize), ScenarioError> {
    let task_bytes = count(
        file,
        &spec.task_bytes,
        "task_bytes",
        1..=1 << 20,
        DEFAULT_TASK_BYTES as i64,
        "the bytes one timer slot stands for in the memory metrics; brpc's Task is 64",
    )?;
    let capacity = count(
        file,
        &spec.capacity,
        "capacity",
        1..=DEFAULT_CAPACITY as i64,
        DEFAULT_CAPACITY as i64,
        "the most timers the whole design may hold at once (scheduled, or cancelled but not yet \
         freed), whatever bucket or thread they are in; slots are made as they are first needed",
    )?;
    Ok((task_bytes as u64, capacity as usize))
}

/// The latency of an answer, as a range from the shortest to the longest.
fn latency(file: &Located<'_>, spec: &TimerSpec) -> Result<(u64, u64), ScenarioError> {
    match *spec.latency.get_ref() {
        DurationOrRange::Fixed(latency) => Ok((latency.0, latency.0)),
        DurationOrRange::Range(low, high) if low <= high => Ok((low.0, high.0)),
        DurationOrRange::Range(..) => Err(file
            .error(
                spec.latency.span(),
                "a latency range must go from the shorter latency to the longer one",
            )
            .with_hint("write the shorter latency first, such as [\"1ms\", \"20ms\"]")),
    }
}

/// Every nth callback's cost, when both keys are given; they go together.
fn slow_callback(
    file: &Located<'_>,
    spec: &TimerSpec,
    run_for_ns: u64,
) -> Result<Option<(u64, u64)>, ScenarioError> {
    match (&spec.slow_callback_every, &spec.slow_callback_cost) {
        (None, None) => Ok(None),
        (Some(every), Some(cost)) => {
            let every = count(
                file,
                &Some(every.clone()),
                "slow_callback_every",
                1..=i64::MAX,
                1,
                "every nth callback is slow",
            )?;
            let cost = at_most_run(file, &Some(cost.clone()), "slow_callback_cost", run_for_ns)?;
            Ok(Some((every as u64, cost)))
        }
        (every, cost) => {
            let span = value_span(every, cost).unwrap_or(0..0);
            Err(file
                .error(
                    span,
                    "`slow_callback_every` and `slow_callback_cost` go together",
                )
                .with_hint("such as slow_callback_every = 1000 and slow_callback_cost = \"200ms\""))
        }
    }
}

/// The metrics every timer design reports, then the design's own.
fn metrics(design: &TimerDesignEntry) -> Vec<Metric> {
    super::METRICS
        .iter()
        .copied()
        .chain(
            design
                .metrics
                .iter()
                .map(|own| Metric::count(own.name, own.about)),
        )
        .collect()
}

/// The metrics other designs report, with the design that reports each.
fn metrics_elsewhere(
    registry: &Registry,
    design: &TimerDesignEntry,
) -> Vec<(&'static str, &'static str)> {
    registry
        .timer_designs()
        .filter(|other| other.name != design.name)
        .flat_map(|other| other.metrics.iter().map(|metric| (metric.name, other.name)))
        .collect()
}

fn value_span(
    every: &Option<Spanned<i64>>,
    cost: &Option<Spanned<DurationNs>>,
) -> Option<std::ops::Range<usize>> {
    every
        .as_ref()
        .map(Spanned::span)
        .or_else(|| cost.as_ref().map(Spanned::span))
}

fn at_most_run(
    file: &Located<'_>,
    value: &Option<Spanned<DurationNs>>,
    key: &str,
    run_for_ns: u64,
) -> Result<u64, ScenarioError> {
    match value {
        None => Ok(0),
        Some(value) if value.get_ref().0 <= run_for_ns => Ok(value.get_ref().0),
        Some(value) => Err(file
            .error(
                value.span(),
                format!("`{key}` is longer than the whole run"),
            )
            .with_hint(format!(
                "`{key}` is the CPU time of one callback, such as \"2us\""
            ))),
    }
}

fn slow_responses(file: &Located<'_>, spec: &TimerSpec) -> Result<(u32, u64), ScenarioError> {
    let fraction = match &spec.slow_responses {
        None => 0.0,
        Some(fraction) if (0.0..=1.0).contains(fraction.get_ref()) => *fraction.get_ref(),
        Some(fraction) => {
            return Err(file
                .error(
                    fraction.span(),
                    "`slow_responses` is a fraction between 0 and 1",
                )
                .with_hint("such as slow_responses = 0.01 for one call in a hundred"));
        }
    };
    match (&spec.slow_latency, fraction > 0.0) {
        (Some(latency), _) => Ok(((fraction * 1e6).round() as u32, latency.get_ref().0)),
        (None, false) => Ok((0, 0)),
        (None, true) => Err(file
            .error(
                spec.slow_responses.as_ref().map_or(0..0, Spanned::span),
                "slow responses need a `slow_latency`",
            )
            .with_hint(
                "such as slow_latency = \"300ms\", longer than the timeout so the timers fire",
            )),
    }
}
