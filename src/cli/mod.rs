//! The `ticklab` command line.
//!
//! Exit codes: 0 ok, 1 an expectation failed, 2 invalid input (a bad scenario, bad arguments, a
//! run whose work would be unbounded, an output file that would be overwritten, a calibration that
//! cannot run on this host).

/// `eprintln!` that survives a closed stderr: see [`crate::output::note`].
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::output::note(format_args!($($arg)*))
    };
}

mod calibrate;
mod check;
mod compare;
mod compare_executor;
mod key_lines;
mod plot;
mod program;
mod progress;
mod reference;
mod report;
mod run;
mod sweep;
mod table;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::registry::Registry;
use crate::runner::options::{DEFAULT_MAX_EVENTS, RunOptions};

pub use program::invoked_as;
pub use reference::{help_texts, reference_pages};

#[derive(Debug, Parser)]
#[command(
    name = "ticklab",
    version,
    about = "Deterministic simulation of timers and schedulers under suspends, freezes and clock steps",
    after_help = "Exit codes: 0 ok, 1 an expectation failed, 2 invalid input."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one scenario and print its trace.
    Run(run::RunArgs),
    /// Run scenarios and check each one's [expect]; prints a results table.
    Check(check::CheckArgs),
    /// Ticks in the first second after resume, per platform, suspend kind and missed-tick behaviour.
    Table(table::TableArgs),
    /// The same timer workloads on every timer design (wake-ups, locking, lateness, lost and
    /// duplicate fires, memory), or with --kind executor the executor workloads on every
    /// scheduler (latency, starved and unfinished tasks, I/O delay, steals, parks), as one table.
    Compare(compare::CompareArgs),
    /// Measure this host's system calls and write a cost profile.
    Calibrate(calibrate::CalibrateArgs),
    /// Random fault schedules around a scenario; a failure is shrunk and written as a scenario.
    Sweep(sweep::SweepArgs),
    /// Run one scenario and draw it as an SVG timeline.
    Plot(plot::PlotArgs),
    /// Check scenarios and write one HTML page with the results, the table and every plot.
    Report(report::ReportArgs),
    /// Write the reference pages and the scenario files' JSON Schema from the code.
    Reference(reference::ReferenceArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines like a printed log.
    Text,
    /// One JSON object per line.
    Jsonl,
}

/// Options shared by the commands that run scenarios.
#[derive(Clone, Copy, Debug, clap::Args)]
struct Limits {
    /// Refuse runs that could handle more than this many events.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EVENTS)]
    max_events: u64,
    /// Refuse, or stop, runs whose live state could pass this much memory, such as 4GiB; a
    /// scenario's own `max_memory` raises it for that scenario. Runs in parallel share it.
    #[arg(long, value_name = "SIZE", default_value = "1GiB", value_parser = parse_size)]
    max_memory: u64,
}

impl Limits {
    /// Run options with these limits and `seed`.
    fn options(&self, seed: Option<u64>) -> RunOptions {
        RunOptions {
            seed,
            max_events: self.max_events,
            max_memory_bytes: self.max_memory,
        }
    }
}

/// A memory size with its unit, as `--max-memory` takes it.
fn parse_size(text: &str) -> Result<u64, String> {
    let digits_first = text.trim_start().starts_with(|c: char| c.is_ascii_digit());
    match text.parse::<bytesize::ByteSize>() {
        Ok(size) if digits_first && size.as_u64() > 0 => Ok(size.as_u64()),
        Ok(_) if digits_first => Err("a run needs some memory: give more than 0".to_string()),
        _ => Err(format!(
            "\"{text}\" is not an amount of memory: write a size with its unit, such as 512MiB or 4GiB"
        )),
    }
}

/// How a command ended, mapped to the exit code.
#[derive(Debug)]
pub enum Failure {
    /// An expectation failed (exit 1). The details were already printed.
    Expectation,
    /// Invalid input (exit 2), with the message to print.
    Invalid(String),
}

/// The `ticklab` command line over the built-in designs; its replay lines say `ticklab run …`.
pub fn main() -> ExitCode {
    run_cli(&Registry::builtin(), "ticklab")
}

/// The `ticklab` command line over `registry`'s designs: the entry point of a program that tests
/// its own design, so that its scenario files can name it.
///
/// ```no_run
/// # use ticklab::models::timer::builtin::GlobalHeapDesign as MyDesign;
/// fn main() -> std::process::ExitCode {
///     ticklab::cli::main_with(ticklab::Registry::builtin().with_timer_design::<MyDesign>())
/// }
/// ```
///
/// Its replay lines name the command that ran it ([`invoked_as`]): `cargo run -p <package> --`
/// under `cargo run`, else the binary as it was started, so that a pasted line finds the design.
pub fn main_with(registry: Registry) -> ExitCode {
    run_cli(&registry, &invoked_as())
}

/// The command line over `registry`'s designs; `program` starts its replay lines.
fn run_cli(registry: &Registry, program: &str) -> ExitCode {
    let cli = Cli::parse();
    crate::output::remove_partials_when_interrupted();
    let result = match cli.command {
        Command::Run(args) => run::run(registry, program, &args),
        Command::Check(args) => check::check(registry, program, &args),
        Command::Table(args) => table::table(&args),
        Command::Compare(args) => compare::compare(registry, &args),
        Command::Calibrate(args) => calibrate::calibrate(&args),
        Command::Sweep(args) => sweep::sweep_command(registry, program, &args),
        Command::Plot(args) => plot::plot_command(registry, program, &args),
        Command::Report(args) => report::report_command(registry, program, &args),
        Command::Reference(args) => reference::reference_command(registry, &args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Expectation) => ExitCode::from(1),
        Err(Failure::Invalid(message)) => {
            note!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Prints a line to stdout. A reader that went away (`ticklab check | head`) is not an error: the
/// command carries on, so its exit code still tells whether the scenarios passed.
fn print(text: impl std::fmt::Display) -> Result<(), Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::Invalid(format!("cannot write to stdout: {error}")))
        }
        _ => Ok(()),
    }
}

/// Loads one scenario, charging its system calls from the cost profile at `profile` if given.
fn load_scenario(
    registry: &Registry,
    file: &std::path::Path,
    profile: Option<&std::path::Path>,
) -> Result<crate::scenario::Scenario, Failure> {
    let mut scenario = registry
        .load(file)
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    if let Some(path) = profile {
        let profile =
            crate::profile::load(path).map_err(|error| Failure::Invalid(error.to_string()))?;
        if !scenario.use_profile(profile) {
            return Err(Failure::Invalid(format!(
                "--profile applies to lock and idle scenarios; {} is a {} scenario, which charges nothing from a cost profile",
                scenario.source,
                scenario.model.kind().name()
            )));
        }
    }
    Ok(scenario)
}

/// The scenario files under `paths` (files as given, folders searched for `*.toml`), sorted.
fn scenario_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push(path.clone());
            continue;
        }
        if !path.is_dir() {
            return Err(Failure::Invalid(format!(
                "{} does not exist",
                path.display()
            )));
        }
        for entry in walkdir::WalkDir::new(path)
            .follow_links(true)
            .sort_by_file_name()
        {
            let entry = entry.map_err(|error| Failure::Invalid(error.to_string()))?;
            if entry.file_type().is_file()
                && entry.path().extension().is_some_and(|ext| ext == "toml")
            {
                files.push(entry.into_path());
            }
        }
    }
    Ok(files)
}
