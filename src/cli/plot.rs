use std::io::Write;
use std::path::PathBuf;

use super::{Failure, Limits};
use crate::output::AtomicFile;
use crate::registry::Registry;
use crate::run::replay_command;

#[derive(Debug, clap::Args)]
pub(super) struct PlotArgs {
    /// The scenario files; several are drawn one below the other.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the SVG here instead of to stdout (atomically; never over an existing file).
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    out: Option<PathBuf>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// Use this seed instead of the scenario's.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Lock and idle scenarios: charge system calls from this cost profile instead of the one the
    /// scenario names.
    #[arg(long, value_name = "PATH")]
    profile: Option<PathBuf>,
    #[command(flatten)]
    limits: Limits,
}

/// Draws the run whatever its expectations say, as a plot is most wanted of a failing run, then
/// exits as `run` would: 1 if an expectation failed.
pub(super) fn plot_command(
    registry: &Registry,
    program: &str,
    args: &PlotArgs,
) -> Result<(), Failure> {
    let scenarios = args
        .files
        .iter()
        .map(|file| super::load_scenario(registry, file, args.profile.as_deref()))
        .collect::<Result<Vec<_>, Failure>>()?;
    // Opened before the run, so a long run is not wasted on a file that cannot be written.
    let file = args
        .out
        .as_deref()
        .map(|out| AtomicFile::create(out, args.force))
        .transpose()
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    let options = args.limits.options(args.seed);
    let plot = crate::plot::plot(&scenarios, &options)
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    match (file, &args.out) {
        (Some(mut file), Some(out)) => {
            file.write_all(plot.svg.as_bytes())
                .and_then(|()| file.commit())
                .map_err(|error| Failure::Invalid(error.to_string()))?;
            note!("wrote {} ({} bytes)", out.display(), plot.svg.len());
        }
        _ => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(plot.svg.as_bytes())
                .and_then(|()| stdout.flush())
            {
                // A reader that went away (`ticklab plot x.toml | head`) is not an error: the
                // exit code still says whether the expectations held.
                Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(Failure::Invalid(format!("cannot write to stdout: {error}")));
                }
                _ => {}
            }
        }
    }
    // The picture is written whatever the expectations say, and the exit code says what `run`
    // and `check` would: 1 if one failed.
    let mut failed = false;
    for (file, report) in args.files.iter().zip(&plot.reports) {
        for outcome in report.outcomes.iter().filter(|outcome| !outcome.passed) {
            note!("{}: expect {outcome}", file.display());
        }
        if !report.passed() {
            failed = true;
            let replay = replay_command(
                program,
                &file.display().to_string(),
                report.seed,
                &options,
                args.profile.as_deref(),
            );
            note!("replay: {replay}");
        }
    }
    if failed {
        return Err(Failure::Expectation);
    }
    Ok(())
}
