//! `ticklab sweep`: random fault schedules around a base scenario, each case run twice, checked
//! for the model's invariants and for byte-identical traces. A failing case is shrunk by
//! proptest to a minimal schedule and written as a scenario file a person can read and commit.

mod clock_fault;
mod cluster;
pub(crate) mod faults;
mod held;
mod load_fault;
mod rejections;
pub(crate) mod shrink;
mod tweak;

use std::hash::{DefaultHasher, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rand::RngCore;
use ticklab_sim::SimRng;

pub use cluster::ClusterFault;
pub use faults::{Case, FaultSpec};
pub use held::HeldFaults;
pub use rejections::{RejectedGroup, Rejection, RejectionKind, Rejections};
pub use tweak::Tweak;

use crate::registry::Registry;
use crate::run::run_scenario;
use crate::runner::error::RunError;
use crate::runner::options::RunOptions;
use crate::trace::{FirstBroken, JsonlSink};

/// Each phase of shrinking stops after this many tries, however far it got.
const MAX_SHRINK_STEPS: u32 = 2_000;

/// What one case did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// Not a valid or tractable scenario (a wall clock pushed out of range, too much work).
    Rejected(Rejection),
    Failed(String),
}

/// Which cases this machine runs: case `k` belongs to shard `k % count + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    pub fn owns(self, case: u64) -> bool {
        case % self.count + 1 == self.index
    }
}

/// A failing case, shrunk.
#[derive(Clone, Debug)]
pub struct Failure {
    pub case: u64,
    pub reason: String,
    pub minimal: Case,
    /// Every fault the regression file holds: the base's own and those the case added.
    pub held: HeldFaults,
    /// How many of `held` the case added.
    pub added_faults: usize,
    /// What the case changed in the base's parameters and hosts' clocks, one line each.
    pub changes: Vec<String>,
    /// The minimal case as a scenario file's text, its `about` saying what broke.
    pub text: String,
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub run: u64,
    pub passed: u64,
    pub rejected: u64,
    /// Why cases were rejected, by kind.
    pub rejections: Rejections,
    pub failure: Option<Failure>,
}

/// The cases' random values: case `k` of seed `s` is the same on every machine and shard.
pub(crate) fn case_rng(seed: u64, case: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    SimRng::for_purpose(seed, &format!("sweep-case-{case}")).fill_bytes(&mut bytes);
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// Runs `text` twice: its invariants must hold and both traces must be the same bytes.
pub fn check(registry: &Registry, source: &str, text: &str) -> Verdict {
    let scenario = match registry.parse(source, text) {
        Ok(scenario) => scenario,
        Err(error) => return Verdict::Rejected(Rejection::invalid(source, &error.to_string())),
    };
    let options = RunOptions::default();
    let trace_hash = || -> Result<(u64, crate::run::RunReport, Option<String>), RunError> {
        let mut sink = FirstBroken::new(JsonlSink::new(HashWriter(DefaultHasher::new())));
        let report = run_scenario(&scenario, &options, &mut sink)?;
        Ok((sink.inner.into_inner().0.finish(), report, sink.first))
    };
    let (first, report, first_broken) = match trace_hash() {
        Ok(result) => result,
        Err(RunError::TooMuchWork {
            events_bound,
            max_events,
            why,
            ..
        }) => {
            return Verdict::Rejected(Rejection {
                kind: RejectionKind::TooMuchWork,
                why: format!(
                    "could handle up to {events_bound} events ({why}), more than the limit of \
                     {max_events}"
                ),
            });
        }
        Err(
            error @ (RunError::TooMuchMemory { .. } | RunError::TooManyWakes { at_ns: None, .. }),
        ) => {
            // The first line says what would have filled it; the hint is for the command line.
            let why = error.to_string();
            let why = why.lines().next().unwrap_or_default();
            return Verdict::Rejected(Rejection {
                kind: RejectionKind::TooMuchMemory,
                why: why.trim_start_matches("this run ").to_string(),
            });
        }
        Err(error) => return Verdict::Failed(error.to_string()),
    };
    if let Some(broken) = report.outcomes.iter().find(|outcome| !outcome.passed) {
        let broken = broken.to_string();
        let broken = broken.trim_start_matches("FAILED: ");
        return Verdict::Failed(match first_broken {
            Some(what) => format!("{what} ({broken})"),
            None => broken.to_string(),
        });
    }
    match trace_hash() {
        Ok((second, _, _)) if second == first => Verdict::Passed,
        Ok(_) => Verdict::Failed("two runs of the same case gave different traces".to_string()),
        Err(error) => Verdict::Failed(error.to_string()),
    }
}

/// Sweeps `cases` cases of `seed` (those of `shard`) around the scenario `base` read from
/// `source`; `progress` hears of each case as it ends: its number, what it added to the base,
/// and its verdict. Stops at the first failure, shrunk.
pub fn sweep(
    registry: &Registry,
    source: &str,
    base: &str,
    cases: u64,
    seed: u64,
    shard: Shard,
    mut progress: impl FnMut(u64, &Case, &Verdict),
) -> Result<Outcome, String> {
    let base_scenario = registry
        .parse(source, base)
        .map_err(|error| error.to_string())?;
    let hosts = base_scenario.model.kind().name() == "hosts";
    let loads = faults::takes_load(base);
    let strategy = faults::cases_for(base_scenario.run_for_ns / 1_000_000, hosts, loads);
    let mut outcome = Outcome::default();
    for case in (0..cases).filter(|&case| shard.owns(case)) {
        let mut runner = TestRunner::new_with_rng(Config::default(), case_rng(seed, case));
        let mut tree = strategy
            .new_tree(&mut runner)
            .map_err(|reason| format!("cannot draw case {case}: {reason}"))?;
        let drawn = tree.current();
        let verdict = run_case(registry, source, base, &drawn);
        progress(case, &drawn, &verdict);
        outcome.run += 1;
        match verdict {
            Verdict::Passed => outcome.passed += 1,
            Verdict::Rejected(rejection) => {
                outcome.rejected += 1;
                outcome.rejections.record(case, rejection);
            }
            Verdict::Failed(reason) => {
                let (minimal, reason) = shrink(registry, source, base, &mut tree, reason);
                outcome.failure = Some(failure(source, base, case, minimal, reason));
                break;
            }
        }
    }
    Ok(outcome)
}

/// The shrunk `minimal` case as a regression file, and what that file holds.
fn failure(source: &str, base: &str, case: u64, minimal: Case, reason: String) -> Failure {
    let about = faults::regression_about(source, base, &reason, &minimal);
    let text = faults::regression(base, &minimal, &about).expect("the base parsed before");
    let (added, changes) = faults::case_parts(base, &minimal);
    Failure {
        case,
        reason,
        held: HeldFaults::of(&text),
        added_faults: added.len(),
        changes,
        minimal,
        text,
    }
}

fn run_case(registry: &Registry, source: &str, base: &str, case: &Case) -> Verdict {
    match faults::apply(base, case) {
        Ok(text) => check(registry, source, &text),
        Err(error) => Verdict::Rejected(Rejection::invalid(source, &error.to_string())),
    }
}

/// Shrinks a failing case to a minimum (see [`shrink::shrink`]).
fn shrink(
    registry: &Registry,
    source: &str,
    base: &str,
    tree: &mut impl ValueTree<Value = Case>,
    reason: String,
) -> (Case, String) {
    shrink::shrink(tree, reason, MAX_SHRINK_STEPS, |case| {
        match run_case(registry, source, base, case) {
            Verdict::Failed(why) => Some(why),
            Verdict::Passed | Verdict::Rejected(_) => None,
        }
    })
}

/// Where a failure's scenario file goes: `<folder>/<base name>-<hash of its text>.toml`.
pub fn regression_path(folder: &Path, source: &str, text: &str) -> PathBuf {
    let stem = Path::new(source)
        .file_stem()
        .map_or_else(|| "scenario".into(), |stem| stem.to_string_lossy());
    let mut hasher = DefaultHasher::new();
    hasher.write(text.as_bytes());
    folder.join(format!("{stem}-{:08x}.toml", hasher.finish() as u32))
}

/// Feeds everything written into a hasher: a trace's fingerprint without keeping it.
struct HashWriter(DefaultHasher);

impl Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_that_could_pass_the_memory_bound_is_rejected_as_such_not_failed() {
        let text = r#"
            about = "15 M calls in flight at once"
            platform = "linux"
            run_for = "400s"
            [model]
            kind = "timer"
            design = "global-heap"
            clock = "monotonic"
            clients = 100
            call_interval = "1ms"
            timeout = "300s"
            latency = "150s"
        "#;
        match check(&Registry::builtin(), "big.toml", text) {
            Verdict::Rejected(rejection) => {
                assert_eq!(rejection.kind, RejectionKind::TooMuchMemory);
                assert!(
                    rejection
                        .why
                        .starts_with("could hold up to 3.7 GiB of live state"),
                    "{}",
                    rejection.why
                );
            }
            other => panic!("expected a rejection, got {other:?}"),
        }
    }
}
