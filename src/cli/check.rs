use std::path::{Path, PathBuf};

use comfy_table::{Table, presets::ASCII_MARKDOWN};
use rayon::prelude::*;

use super::progress::{Progress, When};
use super::{Failure, Limits, scenario_files};
use crate::registry::Registry;
use crate::run::{RunReport, replay_command, run_scenario};
use crate::runner::options::RunOptions;
use crate::scenario::Scenario;
use crate::trace::{FirstBroken, NoTrace};

#[derive(Debug, clap::Args)]
pub(super) struct CheckArgs {
    /// Scenario files or folders; default: every scenario under ./scenarios (or the built-in ones).
    paths: Vec<PathBuf>,
    /// Run lock and idle scenarios with this cost profile instead of the ones they name; their
    /// expectations were written for those, so some may fail on another host's figures.
    #[arg(long, value_name = "PATH")]
    profile: Option<PathBuf>,
    /// Leave out the scenarios whose path contains this text, such as `full-scale`; repeat it to
    /// leave out more.
    #[arg(long, value_name = "TEXT")]
    skip: Vec<String>,
    /// Show progress on stderr: scenarios done, failures so far and the slowest still running.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    progress: When,
    #[command(flatten)]
    limits: Limits,
}

/// One row of the results table.
#[derive(Debug)]
pub(super) struct Row {
    pub source: String,
    pub model: &'static str,
    pub verdict: Verdict,
}

#[derive(Debug)]
pub(super) enum Verdict {
    /// The run, and the first invariant it broke, if any.
    Checked(RunReport, Option<String>),
    Invalid(String),
}

impl Row {
    /// Whether the scenario was invalid or failed an expectation.
    pub fn failed(&self) -> bool {
        match &self.verdict {
            Verdict::Invalid(_) => true,
            Verdict::Checked(report, _) => !report.passed(),
        }
    }

    /// The row's result (`ok`, `FAILED`, `invalid`) and its headline figures: the values its
    /// expectations bound, each with its bounds.
    pub fn result(&self) -> (&'static str, String) {
        match &self.verdict {
            Verdict::Invalid(_) => ("invalid", "see the error below".to_string()),
            Verdict::Checked(report, _) if report.outcomes.is_empty() => {
                ("ok", "no expectations".to_string())
            }
            Verdict::Checked(report, first_broken) => {
                let result = if report.passed() { "ok" } else { "FAILED" };
                let mut figures = crate::expect::headline(&report.outcomes);
                // Counts say how much broke; the first line says what.
                if let Some(first) = first_broken.as_ref().filter(|_| !report.passed()) {
                    figures.push_str(&format!("\nfirst BROKEN {first}"));
                }
                (result, figures)
            }
        }
    }
}

pub(super) fn check(registry: &Registry, program: &str, args: &CheckArgs) -> Result<(), Failure> {
    let mut scenarios = gather(registry, &args.paths, args.profile.as_deref())?;
    scenarios.retain(|loaded| !args.skip.iter().any(|text| source(loaded).contains(text)));
    if scenarios.is_empty() {
        return Err(Failure::Invalid(format!(
            "--skip {} left no scenario to check",
            args.skip.join(" --skip ")
        )));
    }
    let options = args.limits.options(None);
    let progress = Progress::new(args.progress, scenarios.len());
    let rows: Vec<Row> = scenarios
        .into_par_iter()
        .map(|loaded| {
            let name = source(&loaded).to_string();
            progress.run(&name, || check_one(loaded, &options), Row::failed)
        })
        .collect();
    progress.finish();
    super::print(results_table(&rows))?;
    verdict(&rows, program, &options, args.profile.as_deref())
}

/// Prints each invalid and failed scenario, with the command that replays a failure, and a
/// count; exits 2 if any was invalid, else 1 if any failed.
pub(super) fn verdict(
    rows: &[Row],
    program: &str,
    options: &RunOptions,
    profile: Option<&Path>,
) -> Result<(), Failure> {
    let mut invalid = 0;
    let mut failed = 0;
    for row in rows {
        match &row.verdict {
            Verdict::Invalid(message) => {
                invalid += 1;
                note!("error: {message}");
            }
            Verdict::Checked(report, _) if !report.passed() => {
                failed += 1;
                let replay = replay_command(program, &row.source, report.seed, options, profile);
                note!("{}: failed; replay: {replay}", row.source);
            }
            Verdict::Checked(..) => {}
        }
    }
    super::print(format!(
        "{} scenarios: {} passed, {failed} failed, {invalid} invalid",
        rows.len(),
        rows.len() - failed - invalid
    ))?;
    match (invalid, failed) {
        (0, 0) => Ok(()),
        (0, _) => Err(Failure::Expectation),
        _ => Err(Failure::Invalid(format!(
            "{invalid} scenario(s) are invalid"
        ))),
    }
}

/// A scenario, or where it came from and why it could not be loaded.
pub(super) type Loaded = Result<Scenario, (String, String)>;

/// Where a scenario came from: its file, or its path under the built-in `scenarios/`.
fn source(loaded: &Loaded) -> &str {
    match loaded {
        Ok(scenario) => &scenario.source,
        Err((source, _)) => source,
    }
}

/// Parsed scenarios (or the error each gave), from the paths or the default places, on the cost
/// profile at `profile` if given.
pub(super) fn gather(
    registry: &Registry,
    paths: &[PathBuf],
    profile: Option<&Path>,
) -> Result<Vec<Loaded>, Failure> {
    let mut scenarios = gather_files(registry, paths)?;
    if scenarios.is_empty() {
        return Err(Failure::Invalid("no scenario files found".to_string()));
    }
    if let Some(path) = profile {
        let profile =
            crate::profile::load(path).map_err(|error| Failure::Invalid(error.to_string()))?;
        for scenario in scenarios.iter_mut().flatten() {
            scenario.use_profile(profile.clone());
        }
    }
    Ok(scenarios)
}

fn gather_files(registry: &Registry, paths: &[PathBuf]) -> Result<Vec<Loaded>, Failure> {
    let load = |path: &Path| {
        registry
            .load(path)
            .map_err(|error| (path.display().to_string(), error.to_string()))
    };
    if !paths.is_empty() {
        return Ok(scenario_files(paths)?
            .iter()
            .map(|path| load(path))
            .collect());
    }
    let local = Path::new("scenarios");
    if local.is_dir() {
        return Ok(scenario_files(&[local.to_path_buf()])?
            .iter()
            .map(|path| load(path))
            .collect());
    }
    note!("no ./scenarios folder here: checking the built-in scenarios");
    let builtin =
        crate::builtin::scenarios_under("").map_err(|error| Failure::Invalid(error.to_string()))?;
    Ok(builtin.into_iter().map(Ok).collect())
}

fn check_one(loaded: Loaded, options: &RunOptions) -> Row {
    match loaded {
        Err((source, message)) => Row {
            source,
            model: "-",
            verdict: Verdict::Invalid(message),
        },
        Ok(scenario) => {
            let mut sink = FirstBroken::new(NoTrace);
            let verdict = match run_scenario(&scenario, options, &mut sink) {
                Ok(report) => Verdict::Checked(report, sink.first),
                Err(error) => Verdict::Invalid(format!("{}: {error}", scenario.source)),
            };
            Row {
                source: scenario.source.clone(),
                model: scenario.model.kind().name(),
                verdict,
            }
        }
    }
}

fn results_table(rows: &[Row]) -> Table {
    let mut table = Table::new();
    table.load_style(ASCII_MARKDOWN).force_no_tty().set_header([
        "scenario",
        "model",
        "result",
        "figures (and what the scenario expects)",
    ]);
    for row in rows {
        let (result, detail) = row.result();
        table.add_row([
            row.source.clone(),
            row.model.to_string(),
            result.to_string(),
            detail,
        ]);
    }
    table
}
