use std::io::{self, Write};
use std::path::PathBuf;

use super::{Failure, Format, Limits};
use crate::output::AtomicFile;
use crate::registry::Registry;
use crate::run::{RunReport, replay_command, run_scenario};
use crate::runner::error::RunError;
use crate::runner::options::RunOptions;
use crate::scenario;
use crate::trace::{JsonlSink, NoTrace, SummaryOnly, TextSink, TraceSink};

#[derive(Debug, clap::Args)]
pub(super) struct RunArgs {
    /// The scenario file.
    file: PathBuf,
    /// Use this seed instead of the scenario's.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the trace here instead of to stdout (atomically; never over an existing file).
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// Write only the header and the summary, for large runs.
    #[arg(long)]
    summary_only: bool,
    /// Text only: of each run of ticks between other events, print the first and last N and one
    /// line summing up the rest. N is at most 10000, as the last N are held until the run ends.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=MAX_ELIDE_KEEP))]
    elide: Option<u32>,
    /// Lock and idle scenarios: charge system calls from this cost profile instead of the one the
    /// scenario names, such as one `ticklab calibrate` wrote for this host.
    #[arg(long, value_name = "PATH")]
    profile: Option<PathBuf>,
    #[command(flatten)]
    limits: Limits,
}

/// The most routine events `--elide` keeps at each end of a run of them. The last ones wait in
/// memory until the run of events ends, which the memory bound does not count: this keeps them
/// to a few megabytes, more than anyone reads.
const MAX_ELIDE_KEEP: i64 = 10_000;

pub(super) fn run(registry: &Registry, program: &str, args: &RunArgs) -> Result<(), Failure> {
    if args.elide.is_some() && args.format != Format::Text {
        return Err(Failure::Invalid(
            "--elide applies to the text format only".to_string(),
        ));
    }
    let scenario = super::load_scenario(registry, &args.file, args.profile.as_deref())?;
    let options = args.limits.options(args.seed);
    let report = match &args.out {
        Some(path) => {
            let mut file = AtomicFile::create(path, args.force)
                .map_err(|e| Failure::Invalid(e.to_string()))?;
            let report = trace_into(&scenario, &options, args, &mut file)?;
            file.commit().map_err(|e| Failure::Invalid(e.to_string()))?;
            report
        }
        None => {
            let stdout = io::stdout().lock();
            trace_into(&scenario, &options, args, io::BufWriter::new(stdout))?
        }
    };
    let replay = |seed| {
        let source = args.file.display().to_string();
        replay_command(program, &source, seed, &options, args.profile.as_deref())
    };
    report_expectations(&report, replay)
}

fn trace_into<W: Write>(
    scenario: &scenario::Scenario,
    options: &RunOptions,
    args: &RunArgs,
    out: W,
) -> Result<RunReport, Failure> {
    let sink: Box<dyn TraceSink> = match (args.format, args.summary_only) {
        (Format::Text, false) => {
            let text = TextSink::new(out);
            Box::new(match args.elide {
                Some(limit) => text.eliding_after(limit as usize),
                None => text,
            })
        }
        (Format::Text, true) => Box::new(SummaryOnly(TextSink::new(out))),
        (Format::Jsonl, false) => Box::new(JsonlSink::new(out)),
        (Format::Jsonl, true) => Box::new(SummaryOnly(JsonlSink::new(out))),
    };
    let mut sink = sink;
    match run_scenario(scenario, options, &mut sink) {
        Ok(report) => Ok(report),
        // The reader went away (`ticklab run … | head`). Runs are deterministic, so finishing the
        // run without a trace gives the very report the full run would have, and the exit code
        // still says whether the expectations held.
        Err(RunError::Io(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            run_scenario(scenario, options, &mut NoTrace)
                .map_err(|error| Failure::Invalid(error.to_string()))
        }
        Err(error) => Err(Failure::Invalid(super::key_lines::with_key_lines(
            &args.file,
            error.to_string(),
        ))),
    }
}

/// Prints each expectation's outcome and, if one failed, the command that replays the run.
fn report_expectations(
    report: &RunReport,
    replay: impl FnOnce(u64) -> String,
) -> Result<(), Failure> {
    for outcome in &report.outcomes {
        note!("expect {outcome}");
    }
    if report.passed() {
        return Ok(());
    }
    note!("replay: {}", replay(report.seed));
    Err(Failure::Expectation)
}
