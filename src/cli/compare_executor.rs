//! `ticklab compare --kind executor`: the same executor workloads on every registered scheduler
//! design, as one table.
//!
//! A workload is an executor scenario file. Each of its runtimes is given each scheduler in
//! turn: keys the scheduler does not read are left out, so it runs at its own settings, and a
//! runtime with more workers than the scheduler runs (tokio's current-thread scheduler runs one)
//! gets that many, which the table's last column says.

use comfy_table::{Table, presets::ASCII_MARKDOWN};
use rayon::prelude::*;
use ticklab_sim::Approx;

use super::compare::{Workload, workload_name, workload_on, workloads_in};
use super::{Failure, Limits};
use crate::executor::ExecutorConfig;
use crate::registry::Registry;
use crate::registry::schedulers::{SCHEDULER_KEYS, SchedulerEntry};
use crate::run::run_scenario;
use crate::runner::options::RunOptions;
use crate::trace::{NoTrace, Summary};

/// Where the built-in workloads live, under `scenarios/`: every shipped executor scenario.
pub const WORKLOADS_FOLDER: &str = "executor";

const HEADER: [&str; 12] = [
    "workload",
    "scheduler",
    "p50 latency",
    "p99 latency",
    "max I/O latency",
    "broken",
    "starved",
    "unfinished",
    "cross-runtime I/O delay",
    "steals",
    "parks",
    "changed",
];

/// One cell's outcome: the summary, the group names, and what the scheduler changed in the file.
struct Cell {
    summary: Summary,
    groups: Vec<String>,
    changed: Vec<String>,
}

pub(super) fn compare(
    registry: &Registry,
    paths: &[std::path::PathBuf],
    names: &[String],
    limits: &Limits,
) -> Result<(), Failure> {
    let workloads = workloads_in(paths, WORKLOADS_FOLDER, &[])?;
    let schedulers = schedulers(registry, names)?;
    let cells: Vec<(usize, usize)> = (0..workloads.len())
        .flat_map(|workload| (0..schedulers.len()).map(move |design| (workload, design)))
        .collect();
    let options = limits.options(None);
    let outcomes: Vec<Cell> = cells
        .par_iter()
        .map(|&(workload, design)| {
            run_cell(registry, &workloads[workload], schedulers[design], &options)
        })
        .collect::<Result<_, Failure>>()?;
    let mut table = Table::new();
    table
        .load_style(ASCII_MARKDOWN)
        .force_no_tty()
        .set_header(HEADER.to_vec());
    for (&(workload, design), cell) in cells.iter().zip(&outcomes) {
        table.add_row(row(&workloads[workload], schedulers[design].name, cell));
    }
    super::print(format!(
        "{} workload{} on {} scheduler{}; each workload's own machine and faults; latency is the \
         task group with the worst p99; I/O latency the slowest io step of any group",
        workloads.len(),
        if workloads.len() == 1 { "" } else { "s" },
        schedulers.len(),
        if schedulers.len() == 1 { "" } else { "s" },
    ))?;
    super::print(table)
}

fn row(workload: &Workload, scheduler: &str, cell: &Cell) -> Vec<String> {
    let get = |key: &str| cell.summary.get(key).unwrap_or(0);
    let group = |group: &str, key: &str| cell.summary.lookup(Some(group), key).unwrap_or(0);
    // The group whose finished instances fared worst; none if no instance finished.
    let worst = cell
        .groups
        .iter()
        .filter(|name| group(name, "finished") > 0)
        .max_by_key(|name| (group(name, "p99_latency"), group(name, "p50_latency")));
    let (p50, p99) = match worst {
        Some(name) => (
            Approx(group(name, "p50_latency")).to_string(),
            format!("{} ({name})", Approx(group(name, "p99_latency"))),
        ),
        None => ("-".to_string(), "- (none finished)".to_string()),
    };
    // The slowest io step of any group, and whose.
    let slowest_io = cell
        .groups
        .iter()
        .map(|name| (group(name, "max_io_latency"), name))
        .max_by_key(|(latency_ns, _)| *latency_ns)
        .filter(|(latency_ns, _)| *latency_ns > 0)
        .map_or("-".to_string(), |(latency_ns, name)| {
            format!("{} ({name})", Approx(latency_ns))
        });
    vec![
        workload_name(workload),
        scheduler.to_string(),
        p50,
        p99,
        slowest_io,
        get("invariant_violations").to_string(),
        get("starvation_events").to_string(),
        get("tasks_unfinished").to_string(),
        Approx(get("max_send_wait").max(get("max_driver_wait"))).to_string(),
        get("steals").to_string(),
        get("parks").to_string(),
        cell.changed.join("; "),
    ]
}

/// The workload with every runtime on `design`: keys it does not read left out, workers cut to
/// the most it runs.
fn run_cell(
    registry: &Registry,
    workload: &Workload,
    design: &SchedulerEntry,
    options: &RunOptions,
) -> Result<Cell, Failure> {
    let (scenario, changed) = workload_on(
        registry,
        workload,
        "executor",
        "runtimes' scheduler",
        design.name,
        |model| put_on(model, design),
    )?;
    let groups = scenario
        .model
        .config::<ExecutorConfig>()
        .map(|config| {
            config
                .groups
                .iter()
                .map(|group| group.name.clone())
                .collect()
        })
        .unwrap_or_default();
    let summary = run_scenario(&scenario, options, &mut NoTrace)
        .map(|report| report.summary)
        .map_err(|error| Failure::Invalid(format!("{}: {error}", workload.source)))?;
    Ok(Cell {
        summary,
        groups,
        changed,
    })
}

/// Gives every runtime of `model` the scheduler `design`: the keys it does not read are left out,
/// and its workers cut to the most it runs. Returns what changed, in words.
fn put_on(model: &mut toml::Table, design: &SchedulerEntry) -> Vec<String> {
    let mut changed = Vec::new();
    let runtimes = model
        .get_mut("runtime")
        .and_then(toml::Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_table_mut);
    for runtime in runtimes {
        runtime.insert("scheduler".into(), design.name.into());
        for key in SCHEDULER_KEYS {
            if !design.reads(key) && runtime.remove(*key).is_some() {
                changed.push(format!("no {key}"));
            }
        }
        let workers = runtime.get("workers").and_then(toml::Value::as_integer);
        if let Some(workers) = workers.filter(|&workers| workers > design.max_workers as i64) {
            let name = runtime.get("name").and_then(toml::Value::as_str);
            changed.push(format!(
                "{}: {workers} workers -> {}",
                name.unwrap_or("runtime"),
                design.max_workers
            ));
            runtime.insert("workers".into(), (design.max_workers as i64).into());
        }
    }
    changed.dedup();
    changed
}

/// The schedulers named, in the order given, or every listed one in the registry's order.
fn schedulers<'r>(
    registry: &'r Registry,
    names: &[String],
) -> Result<Vec<&'r SchedulerEntry>, Failure> {
    if names.is_empty() {
        return Ok(registry.schedulers().collect());
    }
    let mut chosen: Vec<&SchedulerEntry> = Vec::new();
    for name in names {
        let Some(entry) = registry.scheduler(name) else {
            let known: Vec<&str> = registry.schedulers().map(|entry| entry.name).collect();
            return Err(Failure::Invalid(format!(
                "unknown scheduler `{name}`; this binary knows {}",
                known.join(", ")
            )));
        };
        // A scheduler named twice is compared once.
        if !chosen.contains(&entry) {
            chosen.push(entry);
        }
    }
    Ok(chosen)
}
