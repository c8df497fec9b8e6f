//! `ticklab compare`: the same timer workloads on every registered timer design, as one table.
//!
//! A workload is a timer scenario file; its `design` is replaced by each design in turn, so a
//! design from a user's crate, registered with `main_with`, gets a row beside the built-in ones.

use std::path::PathBuf;

use comfy_table::{Table, presets::ASCII_MARKDOWN};
use rayon::prelude::*;
use ticklab_sim::Approx;

use super::{Failure, Limits};
use crate::registry::Registry;
use crate::run::run_scenario;
use crate::runner::options::RunOptions;
use crate::scenario::Scenario;
use crate::timer::TimerConfig;
use crate::trace::{NoTrace, Summary};

/// Where the built-in workloads live, under `scenarios/`.
pub const WORKLOADS_FOLDER: &str = "timer/compare";

/// The built-in workloads in the order the table shows them: steady loads first, then what goes
/// wrong. A workload not listed comes after these, by name.
const BUILTIN_ORDER: [&str; 7] = [
    "rpc-10k",
    "rpc-100k",
    "slow-callback",
    "wall-step-forward",
    "wall-step-back",
    "suspend-30s",
    "cpu-load-85",
];

/// Which designs a comparison puts side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum CompareKind {
    /// Timer designs, on timer workloads.
    Timer,
    /// Scheduler designs, on executor workloads.
    Executor,
}

#[derive(Debug, clap::Args)]
pub(super) struct CompareArgs {
    /// Scenario files or folders to use as workloads; default: the built-in ones
    /// (scenarios/timer/compare/, or every scenario in scenarios/executor/ with --kind executor).
    paths: Vec<PathBuf>,
    /// What to compare: timer designs, or executor scheduler designs.
    #[arg(long, value_enum, default_value = "timer")]
    kind: CompareKind,
    /// The designs (or schedulers) to compare, by name, comma-separated; default: every one the
    /// binary knows.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    designs: Vec<String>,
    #[command(flatten)]
    limits: Limits,
}

/// One workload's file: where it came from and its text.
pub(super) struct Workload {
    pub(super) source: String,
    pub(super) text: String,
}

pub(super) fn compare(registry: &Registry, args: &CompareArgs) -> Result<(), Failure> {
    if args.kind == CompareKind::Executor {
        return super::compare_executor::compare(
            registry,
            &args.paths,
            &args.designs,
            &args.limits,
        );
    }
    let workloads = workloads_in(&args.paths, WORKLOADS_FOLDER, &BUILTIN_ORDER)?;
    let designs = designs(registry, &args.designs)?;
    let cells: Vec<(usize, usize)> = (0..workloads.len())
        .flat_map(|workload| (0..designs.len()).map(move |design| (workload, design)))
        .collect();
    let options = args.limits.options(None);
    let summaries: Vec<(Summary, u64)> = cells
        .par_iter()
        .map(|&(workload, design)| {
            run_cell(registry, &workloads[workload], designs[design], &options)
        })
        .collect::<Result<_, Failure>>()?;
    let mut table = Table::new();
    table
        .load_style(ASCII_MARKDOWN)
        .force_no_tty()
        .set_header(HEADER.to_vec());
    for (&(workload, design), (summary, run_for_ns)) in cells.iter().zip(&summaries) {
        table.add_row(row(
            &workloads[workload],
            designs[design],
            summary,
            *run_for_ns,
        ));
    }
    let plural = |count: usize, noun: &str| match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    };
    super::print(format!(
        "{} on {}; each workload's own clock, faults and machine",
        plural(workloads.len(), "workload"),
        plural(designs.len(), "timer design")
    ))?;
    super::print(table)?;
    let own = own_metrics(registry, &workloads, &designs, &cells, &summaries);
    if own.table.row_count() > 0 {
        super::print("\nWhat each design reports of its own:")?;
        super::print(own.table)?;
    }
    if !own.all_zero.is_empty() {
        super::print(format!(
            "\nLeft out, zero on every workload: {}",
            own.all_zero.join(", ")
        ))?;
    }
    Ok(())
}

/// The designs' own metrics, and those left out of the table.
struct OwnMetrics {
    table: Table,
    /// `<metric> (<design>)` for each metric that was zero on every workload.
    all_zero: Vec<String>,
}

/// The metrics designs declare for themselves, one row per workload, design and metric; a
/// metric that is zero on every workload gets no rows, only a mention, so that the table shows
/// what happened rather than every counter a design keeps.
fn own_metrics(
    registry: &Registry,
    workloads: &[Workload],
    designs: &[&str],
    cells: &[(usize, usize)],
    summaries: &[(Summary, u64)],
) -> OwnMetrics {
    let mut table = Table::new();
    table
        .load_style(ASCII_MARKDOWN)
        .force_no_tty()
        .set_header(vec!["workload", "design", "metric", "value"]);
    let declared = |design: usize| {
        registry
            .timer_design(designs[design])
            .map_or(&[][..], |entry| entry.metrics)
    };
    let value = |summary: &Summary, name: &str| summary.get(name).unwrap_or(0);
    let mut all_zero = Vec::new();
    for (design, name) in designs.iter().enumerate() {
        for metric in declared(design) {
            let zero = cells
                .iter()
                .zip(summaries)
                .filter(|((_, of), _)| *of == design)
                .all(|(_, (summary, _))| value(summary, metric.name) == 0);
            if zero {
                all_zero.push(format!("{} ({name})", metric.name));
            }
        }
    }
    for (&(workload, design), (summary, _)) in cells.iter().zip(summaries) {
        for metric in declared(design) {
            if all_zero.contains(&format!("{} ({})", metric.name, designs[design])) {
                continue;
            }
            table.add_row(vec![
                workload_name(&workloads[workload]),
                designs[design].to_string(),
                metric.name.to_string(),
                value(summary, metric.name).to_string(),
            ]);
        }
    }
    OwnMetrics { table, all_zero }
}

const HEADER: [&str; 11] = [
    "workload",
    "design",
    "wake-ups/s",
    "shared lock per schedule",
    "fires",
    "p99 late",
    "max late",
    "early",
    "missing",
    "twice",
    "peak live slots",
];

fn row(workload: &Workload, design: &str, summary: &Summary, run_for_ns: u64) -> Vec<String> {
    let get = |key: &str| summary.get(key).unwrap_or(0);
    let calls = get("calls").max(1);
    vec![
        workload_name(workload),
        design.to_string(),
        per_second(get("wakeups"), run_for_ns),
        format!("{:.2}", get("global_lock_schedules") as f64 / calls as f64),
        get("timeouts").to_string(),
        Approx(get("p99_lateness")).to_string(),
        Approx(get("max_lateness")).to_string(),
        get("early_fires").to_string(),
        get("lost").to_string(),
        get("duplicates").to_string(),
        format!(
            "{} ({})",
            get("peak_live_slots"),
            crate::timer::Bytes(get("peak_live_bytes"))
        ),
    ]
}

/// `count` over `run_for_ns` as a rate a second: whole from 100 up, else to three significant
/// digits (trailing zeros dropped), so that one wake-up a minute reads `0.0167` rather than `0`.
fn per_second(count: u64, run_for_ns: u64) -> String {
    let rate = count as f64 * 1e9 / run_for_ns.max(1) as f64;
    if rate == 0.0 || rate >= 100.0 {
        return format!("{rate:.0}");
    }
    let decimals = (2 - rate.log10().floor() as i32).max(0) as usize;
    let text = format!("{rate:.decimals$}");
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    }
}

/// A workload's file name without its folder or extension.
pub(super) fn workload_name(workload: &Workload) -> String {
    std::path::Path::new(&workload.source)
        .file_stem()
        .map_or_else(
            || workload.source.clone(),
            |stem| stem.to_string_lossy().into_owned(),
        )
}

fn run_cell(
    registry: &Registry,
    workload: &Workload,
    design: &str,
    options: &RunOptions,
) -> Result<(Summary, u64), Failure> {
    let (scenario, ()) = workload_on(registry, workload, "timer", "design", design, |model| {
        model.insert("design".into(), toml::Value::String(design.to_string()));
        // Each design runs at its own settings: another design's keys are left out.
        let reads = |key: &str| {
            registry
                .timer_design(design)
                .is_some_and(|entry| entry.reads(key))
        };
        let others: Vec<String> = model
            .keys()
            .filter(|key| !reads(key) && registry.timer_designs().any(|entry| entry.reads(key)))
            .cloned()
            .collect();
        for key in others {
            model.remove(&key);
        }
    })?;
    debug_assert!(scenario.model.config::<TimerConfig>().is_some());
    run_scenario(&scenario, options, &mut NoTrace)
        .map(|report| (report.summary, scenario.run_for_ns))
        .map_err(|error| Failure::Invalid(format!("{}: {error}", workload.source)))
}

/// The workload with its `[model]` changed by `change` for `design`, parsed again as
/// `<source> on <design>`. The file as written is parsed first, so that a mistake in it is shown
/// at its own line; it must be of `kind`, whose `replaced` the comparison replaces. Its own
/// `[expect]` is left out: it was written for its own design, and the comparison reads metrics.
pub(super) fn workload_on<T>(
    registry: &Registry,
    workload: &Workload,
    kind: &str,
    replaced: &str,
    design: &str,
    change: impl FnOnce(&mut toml::Table) -> T,
) -> Result<(Scenario, T), Failure> {
    let invalid = |message: String| Failure::Invalid(format!("{}: {message}", workload.source));
    registry
        .parse(&workload.source, &workload.text)
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    let mut table: toml::Table = workload
        .text
        .parse()
        .map_err(|error: toml::de::Error| invalid(error.to_string()))?;
    let model = table
        .get_mut("model")
        .and_then(toml::Value::as_table_mut)
        .ok_or_else(|| invalid("a workload has a [model] table".to_string()))?;
    if model.get("kind").and_then(toml::Value::as_str) != Some(kind) {
        let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return Err(invalid(format!(
            "a workload is {article} {kind} scenario (kind = \"{kind}\"), whose {replaced} the \
             comparison replaces"
        )));
    }
    let changed = change(model);
    table.remove("expect");
    let source = format!("{} on {design}", workload.source);
    let text = toml::to_string(&table).expect("a TOML table serialises");
    let scenario = registry
        .parse(&source, &text)
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    Ok((scenario, changed))
}

/// The files under `paths`, or the built-in ones under `folder`, those in `order` first.
pub(super) fn workloads_in(
    paths: &[PathBuf],
    folder: &str,
    order: &[&str],
) -> Result<Vec<Workload>, Failure> {
    if paths.is_empty() {
        let mut builtin: Vec<Workload> = crate::builtin::texts_under(folder)
            .into_iter()
            .map(|(source, text)| Workload {
                source,
                text: text.to_string(),
            })
            .collect();
        builtin.sort_by_key(|workload| {
            let name = workload_name(workload);
            let rank = order.iter().position(|listed| *listed == name);
            (rank.unwrap_or(order.len()), name)
        });
        return Ok(builtin);
    }
    let files = super::scenario_files(paths)?;
    if files.is_empty() {
        return Err(Failure::Invalid("no scenario files found".to_string()));
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|error| {
                Failure::Invalid(format!("{}: cannot read it: {error}", path.display()))
            })?;
            Ok(Workload {
                source: path.display().to_string(),
                text,
            })
        })
        .collect()
}

/// The designs named, in the order given, or every listed design in the registry's order.
fn designs<'r>(registry: &'r Registry, names: &[String]) -> Result<Vec<&'r str>, Failure> {
    if names.is_empty() {
        return Ok(registry
            .timer_designs()
            .filter(|entry| entry.listed)
            .map(|entry| entry.name)
            .collect());
    }
    names
        .iter()
        .map(|name| {
            registry
                .timer_design(name)
                .map(|entry| entry.name)
                .ok_or_else(|| {
                    let known: Vec<&str> = registry
                        .timer_designs()
                        .filter(|entry| entry.listed)
                        .map(|entry| entry.name)
                        .collect();
                    Failure::Invalid(format!(
                        "unknown timer design `{name}`; this binary knows {}",
                        known.join(", ")
                    ))
                })
        })
        .try_fold(Vec::new(), |mut designs, name| {
            // A design named twice is compared once.
            let name = name?;
            if !designs.contains(&name) {
                designs.push(name);
            }
            Ok(designs)
        })
}

#[cfg(test)]
mod tests {
    use super::per_second;

    #[test]
    fn a_rate_below_one_a_second_keeps_three_significant_digits() {
        const MINUTE_NS: u64 = 60_000_000_000;
        // One wake-up a minute for an hour: a 60 s timeout's timer thread.
        assert_eq!(per_second(60, 60 * MINUTE_NS), "0.0167");
        assert_eq!(per_second(1, 1_000_000_000), "1");
        assert_eq!(per_second(5, 2_000_000_000), "2.5");
        assert_eq!(per_second(1234, 100_000_000_000), "12.3");
        assert_eq!(per_second(10_428_000, 1_000_000_000_000), "10428");
        assert_eq!(per_second(0, MINUTE_NS), "0");
    }
}
