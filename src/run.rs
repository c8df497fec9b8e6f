//! Running a scenario: the top level that a command, a sweep or a user's test calls. What every
//! model's runner shares lives below the machine and the kinds, in `runner`; its options and
//! errors are named here too, since every caller of [`run_scenario`] needs them.

pub use crate::runner::error::RunError;
pub use crate::runner::options::{DEFAULT_MAX_EVENTS, RunOptions};

use crate::expect::Outcome;
use crate::memory::DEFAULT_MAX_MEMORY_BYTES;
use crate::model::RunContext;
use crate::scenario::Scenario;
use crate::trace::{Summary, TraceSink};

/// A finished run: its summary and how its expectations fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunReport {
    pub seed: u64,
    pub summary: Summary,
    pub outcomes: Vec<Outcome>,
}

impl RunReport {
    pub fn passed(&self) -> bool {
        self.outcomes.iter().all(|outcome| outcome.passed)
    }
}

/// Runs `scenario`, streaming its trace into `sink`, and checks its `[expect]`.
pub fn run_scenario<S: TraceSink>(
    scenario: &Scenario,
    options: &RunOptions,
    sink: &mut S,
) -> Result<RunReport, RunError> {
    let seed = options.seed.unwrap_or(scenario.seed);
    let options = &options.for_scenario(scenario);
    let run = RunContext {
        setting: &scenario.setting,
        seed,
        options,
        sink: sink as &mut dyn TraceSink,
    };
    let summary = scenario.model.kind().run(&scenario.model, run)?;
    let outcomes = scenario
        .expectations
        .iter()
        .map(|expectation| {
            let actual = summary
                .lookup(expectation.group.as_deref(), expectation.metric.name)
                .expect("expectations name the model's own metrics");
            expectation.check(actual)
        })
        .collect();
    Ok(RunReport {
        seed,
        summary,
        outcomes,
    })
}

/// The one command that reproduces a run, byte for byte. `program` is the command that runs the
/// command line holding the scenario's designs, as a shell would take it: `ticklab`, or for a
/// user's own binary what [`crate::cli::invoked_as`] gives (`cargo run -p my-timers --`).
/// `profile` is a cost profile given on the command line in place of the scenario's.
pub fn replay_command(
    program: &str,
    source: &str,
    seed: u64,
    options: &RunOptions,
    profile: Option<&std::path::Path>,
) -> String {
    let quote = |text: &str| {
        shlex::try_quote(text)
            .unwrap_or_else(|_| text.into())
            .into_owned()
    };
    let mut command = format!("{program} run {} --seed {seed}", quote(source));
    if options.max_events != DEFAULT_MAX_EVENTS {
        command.push_str(&format!(" --max-events {}", options.max_events));
    }
    if options.max_memory_bytes != DEFAULT_MAX_MEMORY_BYTES {
        command.push_str(&format!(" --max-memory {}B", options.max_memory_bytes));
    }
    if let Some(profile) = profile {
        command.push_str(&format!(
            " --profile {}",
            quote(&profile.display().to_string())
        ));
    }
    command
}
