use std::io::{self, Write};
use std::path::PathBuf;

use rayon::prelude::*;

use super::check::{Loaded, Row, Verdict, gather, verdict};
use super::table::Matrix;
use super::{Failure, Limits};
use crate::interval::IntervalModel;
use crate::model::Model;
use crate::output::AtomicFile;
use crate::plot::PlotError;
use crate::plot::collect::Collected;
use crate::registry::Registry;
use crate::report::{Drawing, Entry, Grid, write_html};
use crate::run::run_scenario;
use crate::runner::options::RunOptions;
use crate::scenario::Scenario;
use crate::trace::{FirstBroken, NoTrace};

#[derive(Debug, clap::Args)]
pub(super) struct ReportArgs {
    /// Scenario files or folders; default: every scenario under ./scenarios (or the built-in ones).
    paths: Vec<PathBuf>,
    /// Where to write the HTML page (atomically; never over an existing file).
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    out: PathBuf,
    /// Replace the --out file if it exists.
    #[arg(long)]
    force: bool,
    /// Run lock and idle scenarios with this cost profile instead of the ones they name.
    #[arg(long, value_name = "PATH")]
    profile: Option<PathBuf>,
    /// Leave out the matrix of `ticklab table`, which is left out anyway unless an interval
    /// scenario is among those reported.
    #[arg(long)]
    no_matrix: bool,
    #[command(flatten)]
    limits: Limits,
}

/// Writes the page, then ends as `ticklab check` would on the same scenarios: 1 if one failed,
/// 2 if one was invalid.
pub(super) fn report_command(
    registry: &Registry,
    program: &str,
    args: &ReportArgs,
) -> Result<(), Failure> {
    // Opened first, so a long run is not wasted on a file that cannot be written.
    let mut file = AtomicFile::create(&args.out, args.force)
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    let scenarios = gather(registry, &args.paths, args.profile.as_deref())?;
    // The matrix is of interval behaviours across platforms: it says nothing about other kinds.
    let has_intervals = scenarios.iter().any(|loaded| {
        loaded
            .as_ref()
            .is_ok_and(|scenario| scenario.model.kind().name() == IntervalModel::KIND)
    });
    let options = args.limits.options(None);
    let drawn: Vec<(Row, Option<RunDrawing>)> = scenarios
        .into_par_iter()
        .map(|loaded| draw_one(loaded, &options))
        .collect();
    let matrix = if args.no_matrix || !has_intervals {
        None
    } else {
        let matrix = Matrix::run(&options)?;
        Some(Grid {
            caption: matrix.caption,
            header: matrix.header,
            rows: matrix.rows,
        })
    };
    // Each run moves into its entry, and is drawn straight into the page as the page is written.
    let (rows, entries): (Vec<Row>, Vec<Entry<RunDrawing>>) = drawn
        .into_iter()
        .map(|(row, svg)| {
            let (result, detail) = match &row.verdict {
                Verdict::Invalid(message) => ("invalid", message.clone()),
                Verdict::Checked(..) => row.result(),
            };
            let entry = Entry {
                source: row.source.clone(),
                model: row.model.to_string(),
                result: result.to_string(),
                detail,
                svg,
            };
            (row, entry)
        })
        .unzip();
    let bytes = write_html(&mut file, &entries, matrix.as_ref())
        .and_then(|bytes| file.commit().map(|()| bytes))
        .map_err(|error| Failure::Invalid(error.to_string()))?;
    note!(
        "wrote {} ({} scenarios, {bytes} bytes)",
        args.out.display(),
        entries.len(),
    );
    verdict(&rows, program, &options, args.profile.as_deref())
}

/// A scenario's run, kept to be drawn straight into the page: no drawing is held whole.
struct RunDrawing {
    scenario: Scenario,
    collected: Collected,
}

impl Drawing for RunDrawing {
    fn write_svg(&self, out: &mut dyn Write) -> io::Result<()> {
        match crate::plot::write_svg(out, &[(&self.scenario, &self.collected)]) {
            Ok(_) => Ok(()),
            Err(PlotError::Write(error)) => Err(error),
            Err(error) => Err(io::Error::other(format!(
                "{}: {error}",
                self.scenario.source
            ))),
        }
    }
}

/// Runs a scenario for its figure, or, if its kind has none, for its verdict alone.
fn draw_one(loaded: Loaded, options: &RunOptions) -> (Row, Option<RunDrawing>) {
    match loaded {
        Err((source, message)) => (
            Row {
                source,
                model: "-",
                verdict: Verdict::Invalid(message),
            },
            None,
        ),
        Ok(scenario) => {
            let ran = crate::plot::run_to_draw(std::slice::from_ref(&scenario), options);
            let (verdict, collected) = match ran {
                Ok(mut runs) => {
                    let run = runs.remove(0);
                    (Verdict::Checked(run.report, None), Some(run.collected))
                }
                Err(PlotError::Run(error)) => (
                    Verdict::Invalid(format!("{}: {error}", scenario.source)),
                    None,
                ),
                // Its kind has no picture (nothing is drawn yet, so nothing else fails here):
                // its verdict stands, shown without a figure.
                Err(error) => {
                    note!("{}: {error}", scenario.source);
                    let mut sink = FirstBroken::new(NoTrace);
                    let verdict = match run_scenario(&scenario, options, &mut sink) {
                        Ok(report) => Verdict::Checked(report, sink.first),
                        Err(error) => Verdict::Invalid(format!("{}: {error}", scenario.source)),
                    };
                    (verdict, None)
                }
            };
            let row = Row {
                source: scenario.source.clone(),
                model: scenario.model.kind().name(),
                verdict,
            };
            let drawing = collected.map(|collected| RunDrawing {
                scenario,
                collected,
            });
            (row, drawing)
        }
    }
}
