//! The `[model]` table of an executor scenario: runtimes, connection pools and task groups whose
//! tasks are sequences of steps.

use std::ops::Range;

use ticklab_models::executor::SchedulerConfig;
use ticklab_models::interval::MissedTick;
use toml::Spanned;

use super::runtime_spec::validate_runtime;
use crate::executor::keys::{ExecutorSpec, PoolSpec, StepSpec, TaskSpec};
use crate::expect::Metric;
use crate::registry::designs::Registry;
use crate::registry::schedulers::SchedulerEntry;
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::numbers::{optional_whole, whole};
use crate::scenario::values::{DurationNs, DurationOrRange};

/// A validated executor model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorConfig {
    /// `cores` and `time_slice` as older files wrote them in `[model]`; `[machine]` says them now.
    pub cores: Option<usize>,
    pub time_slice_ns: Option<u64>,
    /// A runnable task that waits longer than this to be polled is reported as starving.
    pub starvation_threshold_ns: u64,
    pub runtimes: Vec<RuntimeConfig>,
    /// Every executor run's metrics, then those of the schedulers its runtimes run.
    pub metrics: Vec<Metric>,
    /// The metrics other schedulers report, with the scheduler that reports each.
    pub metrics_elsewhere: Vec<(&'static str, &'static str)>,
    pub pools: Vec<PoolConfig>,
    pub groups: Vec<GroupConfig>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeConfig {
    pub name: String,
    /// Its scheduler design, and the design's settings.
    pub design: SchedulerEntry,
    pub scheduler: SchedulerConfig,
    pub blocking_threads: usize,
    /// Its I/O and timer driver.
    pub driver: ticklab_models::executor::DriverKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    pub name: String,
    /// Idle connections kept for reuse; 0 opens a connection per request.
    pub idle: usize,
    /// One pool for every runtime, as one HTTP client shared by both; otherwise one per runtime.
    pub shared: bool,
    pub connect_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Every instance starts at `start`.
    AtOnce,
    /// One instance every period from `start`.
    Every { period_ns: u64 },
    /// Exponential gaps with this mean, from the seeded RNG.
    Poisson { mean_ns: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupConfig {
    pub name: String,
    /// Index into `ExecutorConfig::runtimes`.
    pub runtime: usize,
    /// Instances that arrive on their own; 0 for a group only `spawn` steps start.
    pub count: u32,
    pub start_ns: u64,
    pub arrival: Arrival,
    pub steps: Vec<Step>,
    /// Times each instance runs its steps, as a loop around them; 1 runs them once.
    pub repeat: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Busy on the worker, without yielding.
    Cpu {
        ns: u64,
    },
    /// Back of the queue, as `tokio::task::yield_now`.
    Yield,
    Sleep {
        ns: u64,
    },
    /// `interval.tick().await` on the task's own interval, made with this period and missed-tick
    /// behaviour the first time the step runs, and kept across repeats.
    Tick {
        period_ns: u64,
        missed_tick: MissedTick,
    },
    /// The poll's thread blocks without using CPU, as `std::thread::sleep` or a blocking system
    /// call inside a task does: its worker runs nothing else meanwhile.
    Block {
        ns: u64,
    },
    /// A request over a connection from `pool`, answered after a latency drawn from the range.
    Io {
        pool: usize,
        latency_ns: (u64, u64),
        /// `tokio::time::timeout` around the request: past it the task goes on without the reply.
        timeout_ns: Option<u64>,
    },
    /// Starts one task of `group` on that group's runtime: onto the spawning worker when it is
    /// the same runtime (its LIFO slot, as `tokio::spawn`), else through the other's inject queue.
    Spawn {
        group: usize,
    },
    /// CPU work on the runtime's blocking pool, awaited.
    SpawnBlocking {
        ns: u64,
    },
    /// CPU work on the worker's own thread after handing its core to another thread.
    BlockInPlace {
        ns: u64,
    },
}

pub const DEFAULT_STARVATION_THRESHOLD_NS: u64 = 100_000_000;
pub const DEFAULT_BLOCKING_THREADS: i64 = 512;
const STEP_KINDS: &str = "`cpu`, `yield`, `sleep`, `tick`, `block`, `io`, `spawn`, \
     `spawn_blocking` or `block_in_place`";

/// Finds `name` among `names`, or says which names exist.
fn resolve(
    file: &Located<'_>,
    span: Range<usize>,
    name: &str,
    what: &str,
    names: &[&str],
) -> Result<usize, ScenarioError> {
    names
        .iter()
        .position(|known| *known == name)
        .ok_or_else(|| {
            let hint = match names {
                [] => format!("declare a [[model.{what}]] table first"),
                _ => format!(
                    "the {what}s are {}",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            file.error(span, format!("no {what} is named `{name}`"))
                .with_hint(hint)
        })
}

fn unique_names<'a>(
    file: &Located<'_>,
    names: impl Iterator<Item = &'a Spanned<String>>,
    what: &str,
) -> Result<Vec<&'a str>, ScenarioError> {
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        if name.get_ref().is_empty() || seen.contains(&name.get_ref().as_str()) {
            return Err(file
                .error(
                    name.span(),
                    format!("every {what} needs its own, non-empty name"),
                )
                .with_hint(format!("rename this {what}")));
        }
        seen.push(name.get_ref());
    }
    Ok(seen)
}

/// Every executor run's metrics, then each scheduler's own, once per scheduler however many
/// runtimes run it.
fn run_metrics(runtimes: &[RuntimeConfig]) -> Vec<Metric> {
    let mut designs: Vec<&SchedulerEntry> = Vec::new();
    for runtime in runtimes {
        if !designs.contains(&&runtime.design) {
            designs.push(&runtime.design);
        }
    }
    super::METRICS
        .iter()
        .copied()
        .chain(designs.iter().flat_map(|design| {
            design
                .metrics
                .iter()
                .map(|own| Metric::count(own.name, own.about))
        }))
        .collect()
}

/// The metrics of the schedulers no runtime here runs, with the scheduler of each.
fn metrics_elsewhere(
    registry: &Registry,
    runtimes: &[RuntimeConfig],
) -> Vec<(&'static str, &'static str)> {
    registry
        .schedulers()
        .filter(|other| !runtimes.iter().any(|runtime| runtime.design == **other))
        .flat_map(|other| other.metrics.iter().map(|metric| (metric.name, other.name)))
        .collect()
}

pub(crate) fn validate(
    file: &Located<'_>,
    spec: &ExecutorSpec,
    registry: &Registry,
) -> Result<ExecutorConfig, ScenarioError> {
    let cores = spec
        .cores
        .as_ref()
        .map(|cores| {
            whole(
                file,
                cores,
                "cores",
                1..=1024,
                "the machine's CPU cores, such as 8",
            )
        })
        .transpose()?;
    let runtime_names = unique_names(file, spec.runtime.iter().map(|r| &r.name), "runtime")?;
    let pool_names = unique_names(file, spec.pool.iter().map(|p| &p.name), "pool")?;
    let group_names = unique_names(file, spec.task.iter().map(|t| &t.name), "task")?;
    let runtimes = spec
        .runtime
        .iter()
        .map(|runtime| validate_runtime(file, runtime, registry))
        .collect::<Result<Vec<_>, _>>()?;
    let pools = spec
        .pool
        .iter()
        .map(|pool| validate_pool(file, pool))
        .collect::<Result<Vec<_>, _>>()?;
    let groups = spec
        .task
        .iter()
        .map(|task| validate_group(file, task, &runtime_names, &pool_names, &group_names))
        .collect::<Result<Vec<_>, _>>()?;
    if runtimes.is_empty() {
        return Err(file
            .error(
                spec.kind.span(),
                "an executor scenario needs at least one [[model.runtime]]",
            )
            .with_hint("such as [[model.runtime]] with name = \"main\" and workers = 4"));
    }
    reject_spawn_cycles(file, spec, &groups)?;
    Ok(ExecutorConfig {
        cores: cores.map(|cores| cores as usize),
        time_slice_ns: time_slice(file, spec, cores)?,
        starvation_threshold_ns: spec
            .starvation_threshold
            .as_ref()
            .map_or(DEFAULT_STARVATION_THRESHOLD_NS, |threshold| {
                threshold.get_ref().0
            }),
        metrics: run_metrics(&runtimes),
        metrics_elsewhere: metrics_elsewhere(registry, &runtimes),
        runtimes,
        pools,
        groups,
    })
}

fn validate_pool(file: &Located<'_>, pool: &PoolSpec) -> Result<PoolConfig, ScenarioError> {
    let idle = whole(
        file,
        &pool.idle,
        "idle",
        0..=100_000,
        "idle connections kept; 0 disables reuse",
    )?;
    Ok(PoolConfig {
        name: pool.name.get_ref().clone(),
        idle: idle as usize,
        shared: pool.shared.unwrap_or(true),
        connect_ns: pool.connect.map_or(0, |connect| connect.0),
    })
}

/// A task group: its runtime, how many arrive and when, and the steps each runs.
fn validate_group(
    file: &Located<'_>,
    task: &TaskSpec,
    runtime_names: &[&str],
    pool_names: &[&str],
    group_names: &[&str],
) -> Result<GroupConfig, ScenarioError> {
    let runtime = resolve(
        file,
        task.runtime.span(),
        task.runtime.get_ref(),
        "runtime",
        runtime_names,
    )?;
    let count = optional_whole(
        file,
        &task.count,
        "count",
        0..=10_000_000,
        0,
        "instances of the group that arrive",
    )?;
    let arrival = arrival(file, task)?;
    let steps = task
        .steps
        .get_ref()
        .iter()
        .map(|step| validate_step(file, step, pool_names, group_names))
        .collect::<Result<Vec<_>, _>>()?;
    check_steps(file, task, &steps)?;
    let repeat = optional_whole(
        file,
        &task.repeat,
        "repeat",
        1..=100_000_000,
        1,
        "times each instance runs its steps, such as 60 for a ticker's minute",
    )?;
    Ok(GroupConfig {
        name: task.name.get_ref().clone(),
        runtime,
        count: count as u32,
        start_ns: task.start.map_or(0, |start| start.0),
        arrival,
        steps,
        repeat: repeat as u32,
    })
}

/// A task runs at least one step, and owns at most one interval.
fn check_steps(file: &Located<'_>, task: &TaskSpec, steps: &[Step]) -> Result<(), ScenarioError> {
    if steps.is_empty() {
        return Err(file
            .error(task.steps.span(), "a task needs at least one step")
            .with_hint(format!(
                "such as steps = [{{ cpu = \"1ms\" }}]; the kinds are {STEP_KINDS}"
            )));
    }
    if steps
        .iter()
        .filter(|step| matches!(step, Step::Tick { .. }))
        .count()
        > 1
    {
        return Err(file
            .error(task.steps.span(), "a task has at most one `tick` step")
            .with_hint(
                "each task owns one interval; give a second ticker a task group of its own",
            ));
    }
    Ok(())
}

/// The round-robin slice of threads sharing a core: the platform's for the cores, unless set.
fn time_slice(
    file: &Located<'_>,
    spec: &ExecutorSpec,
    cores: Option<i64>,
) -> Result<Option<u64>, ScenarioError> {
    match &spec.time_slice {
        Some(slice) if slice.get_ref().0 == 0 => Err(file
            .error(slice.span(), "`time_slice` must be more than zero")
            .with_hint("the round-robin slice of threads sharing a core, such as \"3ms\"")),
        Some(slice) => Ok(Some(slice.get_ref().0)),
        None => Ok(cores.map(|cores| ticklab_sim::default_slice_ns(cores as usize))),
    }
}

/// A group that spawns itself, directly or through others, would start tasks without end.
fn reject_spawn_cycles(
    file: &Located<'_>,
    spec: &ExecutorSpec,
    groups: &[GroupConfig],
) -> Result<(), ScenarioError> {
    // Depth-first search with three colours: 0 unvisited, 1 on the current path, 2 done.
    fn visit(
        group: usize,
        groups: &[GroupConfig],
        colour: &mut [u8],
        path: &mut Vec<usize>,
    ) -> bool {
        colour[group] = 1;
        path.push(group);
        for step in &groups[group].steps {
            if let Step::Spawn { group: child } = *step {
                if colour[child] == 1 {
                    path.push(child);
                    return true;
                }
                if colour[child] == 0 && visit(child, groups, colour, path) {
                    return true;
                }
            }
        }
        path.pop();
        colour[group] = 2;
        false
    }
    let mut colour = vec![0u8; groups.len()];
    for start in 0..groups.len() {
        let mut path = Vec::new();
        if colour[start] == 0 && visit(start, groups, &mut colour, &mut path) {
            let last = *path.last().expect("a cycle has a group");
            let first = path
                .iter()
                .position(|&g| g == last)
                .expect("the cycle closes");
            let cycle: Vec<&str> = path[first..]
                .iter()
                .map(|&g| groups[g].name.as_str())
                .collect();
            let spawner = path[path.len() - 2];
            let span = spec.task[spawner]
                .steps
                .get_ref()
                .iter()
                .find(|step| step.get_ref().spawn.as_deref() == Some(groups[last].name.as_str()))
                .map_or(spec.task[spawner].name.span(), |step| step.span());
            return Err(file
                .error(
                    span,
                    format!(
                        "spawns form a cycle ({}), which would start tasks without end",
                        cycle.join(" -> ")
                    ),
                )
                .with_hint(
                    "give the repeating work its own group with a `count` and an `every` instead",
                ));
        }
    }
    Ok(())
}

fn arrival(file: &Located<'_>, task: &TaskSpec) -> Result<Arrival, ScenarioError> {
    let kind = task
        .arrival
        .as_ref()
        .map(|kind| (kind.get_ref().as_str(), kind.span()));
    match (kind, &task.every) {
        (None | Some(("periodic", _)), None) => Ok(Arrival::AtOnce),
        (None | Some(("periodic", _)), Some(every)) if every.get_ref().0 > 0 => Ok(Arrival::Every { period_ns: every.get_ref().0 }),
        (Some(("poisson", _)), Some(every)) if every.get_ref().0 > 0 => Ok(Arrival::Poisson { mean_ns: every.get_ref().0 }),
        (Some(("poisson", span)), None) => Err(file
            .error(span, "poisson arrivals need `every`, the mean gap")
            .with_hint("such as every = \"20ms\"")),
        (Some((other, span)), _) if other != "periodic" && other != "poisson" => Err(file
            .error(span, format!("unknown arrival `{other}`"))
            .with_hint("write `periodic` or `poisson`")),
        (_, Some(every)) => Err(file
            .error(every.span(), "`every` must be more than zero")
            .with_hint("the gap between arrivals, such as \"20ms\"; leave it out to start every task at once")),
        _ => unreachable!("every combination of arrival and every is matched above"),
    }
}

fn validate_step(
    file: &Located<'_>,
    step: &Spanned<StepSpec>,
    pools: &[&str],
    groups: &[&str],
) -> Result<Step, ScenarioError> {
    let raw = step.get_ref();
    let span = step.span();
    check_step_keys(file, raw, &span)?;
    let step = if let Some(cpu) = raw.cpu {
        Step::Cpu { ns: cpu.0 }
    } else if let Some(yield_now) = raw.yield_now {
        if !yield_now {
            return Err(file
                .error(span, "`yield = false` does nothing")
                .with_hint("write { yield = true }, or remove the step"));
        }
        Step::Yield
    } else if let Some(sleep) = raw.sleep {
        Step::Sleep { ns: sleep.0 }
    } else if let Some(period) = raw.tick {
        tick_step(file, raw, &span, period)?
    } else if let Some(block) = raw.block {
        Step::Block { ns: block.0 }
    } else if let Some(pool) = &raw.io {
        io_step(file, raw, &span, pool, pools)?
    } else if let Some(group) = &raw.spawn {
        Step::Spawn {
            group: resolve(file, span.clone(), group, "task", groups)?,
        }
    } else if let Some(blocking) = raw.spawn_blocking {
        Step::SpawnBlocking { ns: blocking.0 }
    } else {
        Step::BlockInPlace {
            ns: raw.block_in_place.map_or(0, |ns| ns.0),
        }
    };
    Ok(step)
}

/// A step has one kind, and only the keys its kind takes.
fn check_step_keys(
    file: &Located<'_>,
    raw: &StepSpec,
    span: &Range<usize>,
) -> Result<(), ScenarioError> {
    let span = span.clone();
    let kinds = [
        raw.cpu.is_some(),
        raw.yield_now.is_some(),
        raw.sleep.is_some(),
        raw.tick.is_some(),
        raw.block.is_some(),
        raw.io.is_some(),
        raw.spawn.is_some(),
        raw.spawn_blocking.is_some(),
        raw.block_in_place.is_some(),
    ];
    if kinds.iter().filter(|&&kind| kind).count() != 1 {
        return Err(file
            .error(span, "a step needs exactly one kind")
            .with_hint(format!(
                "write one of {STEP_KINDS}, such as {{ cpu = \"300ms\" }}"
            )));
    }
    if raw.latency.is_some() && raw.io.is_none() {
        return Err(file
            .error(span, "only an `io` step has a `latency`")
            .with_hint("move `latency` to an `io` step"));
    }
    if raw.timeout.is_some() && raw.io.is_none() {
        return Err(file
            .error(span, "only an `io` step has a `timeout`")
            .with_hint("such as { io = \"http\", latency = \"50ms\", timeout = \"100ms\" }; a plain wait is a `sleep`"));
    }
    if raw.timeout.is_some_and(|timeout| timeout.0 == 0) {
        return Err(file
            .error(span, "an `io` step's `timeout` must be more than zero")
            .with_hint(
                "a timeout of zero gives up at the first poll, before any reply can come; such as \"100ms\"",
            ));
    }
    if raw.missed_tick.is_some() && raw.tick.is_none() {
        return Err(file
            .error(span, "only a `tick` step has a `missed_tick`")
            .with_hint("such as { tick = \"1s\", missed_tick = \"skip\" }"));
    }
    Ok(())
}

fn tick_step(
    file: &Located<'_>,
    raw: &StepSpec,
    span: &Range<usize>,
    period: DurationNs,
) -> Result<Step, ScenarioError> {
    let span = span.clone();
    if period.0 == 0 {
        return Err(file
            .error(span, "a `tick` period must be more than zero")
            .with_hint("as tokio's `interval` panics on a zero period; such as \"1s\""));
    }
    Ok(Step::Tick {
        period_ns: period.0,
        // tokio's default.
        missed_tick: raw
            .missed_tick
            .as_ref()
            .map_or(MissedTick::Burst, |name| name.0),
    })
}

fn io_step(
    file: &Located<'_>,
    raw: &StepSpec,
    span: &Range<usize>,
    pool: &str,
    pools: &[&str],
) -> Result<Step, ScenarioError> {
    let span = span.clone();
    let latency_ns = match raw.latency {
        None => {
            return Err(file
                .error(span, "an `io` step needs a `latency`")
                .with_hint("such as { io = \"http\", latency = \"50ms\" } or latency = [\"40ms\", \"60ms\"]"));
        }
        Some(DurationOrRange::Fixed(latency)) => (latency.0, latency.0),
        Some(DurationOrRange::Range(low, high)) if low <= high => (low.0, high.0),
        Some(DurationOrRange::Range(..)) => {
            return Err(file
                .error(
                    span,
                    "a latency range must go from the shorter latency to the longer one",
                )
                .with_hint("write the shorter latency first, such as [\"40ms\", \"60ms\"]"));
        }
    };
    Ok(Step::Io {
        pool: resolve(file, span.clone(), pool, "pool", pools)?,
        latency_ns,
        timeout_ns: raw.timeout.map(|timeout| timeout.0),
    })
}
