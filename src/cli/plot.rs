use std::path::{Path, PathBuf};

use super::{Failure, Limits};
use crate::output::AtomicFile;
use crate::plot::collect::Collected;
use crate::plot::{PlotError, RunToDraw};
use crate::registry::Registry;
use crate::run::replay_command;
use crate::scenario::Scenario;

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
    let runs = crate::plot::run_to_draw(&scenarios, &options)
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    let pictured = crate::plot::pictured(&scenarios, &runs);
    match (file, &args.out) {
        (Some(file), Some(out)) => write_file(file, out, &pictured)?,
        _ => write_stdout(&pictured)?,
    }
    // The picture is written whatever the expectations say, and the exit code says what `run`
    // and `check` would: 1 if one failed.
    let mut failed = false;
    for (file, RunToDraw { report, .. }) in args.files.iter().zip(&runs) {
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

/// Streams the drawing into `file` as it is drawn, then moves the finished file into place.
fn write_file(
    mut file: AtomicFile,
    out: &Path,
    pictured: &[(&Scenario, &Collected)],
) -> Result<(), Failure> {
    let cannot_write = |error| Failure::Invalid(format!("cannot write {}: {error}", out.display()));
    let bytes = match crate::plot::write_svg(&mut file, pictured) {
        Ok(bytes) => bytes,
        Err(PlotError::Write(error)) => return Err(cannot_write(error)),
        Err(error) => return Err(Failure::Invalid(error.to_string())),
    };
    // `commit` names the file in its errors itself.
    file.commit()
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    note!("wrote {} ({bytes} bytes)", out.display());
    Ok(())
}

/// Streams the drawing to stdout as it is drawn.
fn write_stdout(pictured: &[(&Scenario, &Collected)]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    match crate::plot::write_svg(&mut stdout, pictured) {
        Ok(_) => Ok(()),
        // A reader that went away (`ticklab plot x.toml | head`) is not an error: the exit code
        // still says whether the expectations held.
        Err(PlotError::Write(error)) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(PlotError::Write(error)) => {
            Err(Failure::Invalid(format!("cannot write to stdout: {error}")))
        }
        Err(error) => Err(Failure::Invalid(error.to_string())),
    }
}
