//! Random fault schedules around a service's base file, checked against an invariant of the
//! user's own: the search `ticklab sweep` makes of a hosts scenario, over the user's code.
//!
//! Each case adds faults to the base's hosts (freezes, suspends, wall steps and slews) and to its
//! network (partitions, latency spikes, drift), runs twice (the traces must be the same bytes),
//! and must keep the invariant. A failing case is shrunk and written as a scenario file in a
//! `regressions` folder beside the base, which every later run of the same test replays before
//! it searches.

use std::path::{Path, PathBuf};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};

use super::declare::Service;
use super::outcome::ServiceRun;
use crate::scenario::error::ScenarioError;
use crate::sweep::FaultSpec;
use crate::sweep::faults::{self, Case};
use crate::tokio::SweepFailure;
use crate::tokio::regressions;
use ticklab_sim::FaultKind;

const DEFAULT_CASES: u64 = 32;
/// Each phase of shrinking stops after this many tries, however far it got.
const MAX_SHRINK_STEPS: u32 = 300;

/// A sweep of fault schedules around a service's base file. See [the service module](super).
#[derive(Clone, Debug)]
pub struct ServiceSweep {
    base_text: String,
    source: PathBuf,
    run_for_ms: u64,
    cases: u64,
    seed: u64,
    regressions: PathBuf,
    replay: bool,
    /// The host faults a case may hold; `None` for every kind, and the network's faults too.
    only: Option<Vec<FaultKind>>,
}

impl ServiceSweep {
    /// A sweep of 32 cases of seed 0 around the hosts scenario at `path`, or of
    /// `TICKLAB_SWEEP_CASES` cases of `TICKLAB_SWEEP_SEED` when they are set; regression files
    /// go to a `regressions` folder beside it.
    pub fn load(path: impl AsRef<Path>) -> Result<ServiceSweep, ScenarioError> {
        let path = path.as_ref();
        let base = Service::load(path)?;
        let base_text = std::fs::read_to_string(path).expect("read just now");
        let from_env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        let replay = std::env::var("TICKLAB_SWEEP_REPLAY").map_or(true, |value| value != "0");
        Ok(ServiceSweep {
            base_text,
            source: path.to_path_buf(),
            run_for_ms: base.run_for_ns / 1_000_000,
            cases: from_env("TICKLAB_SWEEP_CASES").unwrap_or(DEFAULT_CASES),
            seed: from_env("TICKLAB_SWEEP_SEED").unwrap_or(0),
            regressions: path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .join("regressions"),
            replay,
            only: None,
        })
    }

    /// Draws only host faults of these kinds (process freezes, say), and no network faults:
    /// a search for one way of failing among the many a sweep finds.
    pub fn only(mut self, kinds: &[FaultKind]) -> Self {
        self.only = Some(kinds.to_vec());
        self
    }

    /// The case as this sweep runs it: its host faults of the kinds it draws, and no parameter
    /// changes (which are a model's).
    fn filtered(&self, case: &Case) -> Case {
        let mut case = Case {
            tweaks: Vec::new(),
            ..case.clone()
        };
        if let Some(kinds) = &self.only {
            case.faults.retain(|fault| kinds.contains(&kind_of(fault)));
            case.cluster.clear();
        }
        case
    }

    pub fn cases(mut self, cases: u64) -> Self {
        self.cases = cases;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Where failures are written and replayed from.
    pub fn regressions(mut self, folder: impl Into<PathBuf>) -> Self {
        self.regressions = folder.into();
        self
    }

    /// Whether [`ServiceSweep::check`] replays the base's regression files before it searches:
    /// it does unless `TICKLAB_SWEEP_REPLAY=0` is set.
    pub fn replay_regressions(mut self, replay: bool) -> Self {
        self.replay = replay;
        self
    }

    /// Replays this base's regression files, then searches. `code` gives each host of a case
    /// its code, as for the base; a run that fails (a panic, a client's error) breaks the
    /// invariant too. Returns how many cases passed, or the first failure, shrunk and written.
    pub fn check(
        &self,
        code: impl Fn(&mut Service),
        invariant: impl Fn(&ServiceRun) -> Result<(), String>,
    ) -> Result<u64, SweepFailure> {
        let verdict = |text: &str| check_once(&self.source, text, &code, &invariant);
        if self.replay {
            for file in self.regression_files() {
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                if let Err(reason) = verdict(&text) {
                    let found = None;
                    return Err(SweepFailure {
                        reason,
                        found,
                        file,
                        text,
                    });
                }
            }
        }
        let strategy = faults::cases_for(self.run_for_ms, true, false);
        let mut passed = 0;
        for case in 0..self.cases {
            let rng = crate::sweep::case_rng(self.seed, case);
            let mut runner = TestRunner::new_with_rng(Config::default(), rng);
            let mut tree = strategy
                .new_tree(&mut runner)
                .expect("fault schedules can always be drawn");
            let Some(text) = self.case_text(&tree.current()) else {
                continue;
            };
            match verdict(&text) {
                Ok(()) => passed += 1,
                Err(reason) => {
                    let (minimal, reason) =
                        crate::sweep::shrink::shrink(&mut tree, reason, MAX_SHRINK_STEPS, |case| {
                            verdict(&self.case_text(case)?).err()
                        });
                    return Err(self.write_failure(case, minimal, reason));
                }
            }
        }
        Ok(passed)
    }

    /// [`ServiceSweep::check`], panicking with the failure's report: what a test calls.
    pub fn assert(
        &self,
        code: impl Fn(&mut Service),
        invariant: impl Fn(&ServiceRun) -> Result<(), String>,
    ) {
        if let Err(failure) = self.check(code, invariant) {
            panic!("{failure}");
        }
    }

    fn stem(&self) -> String {
        self.source
            .file_stem()
            .map_or("service".into(), |stem| stem.to_string_lossy().into_owned())
    }

    fn name(&self) -> String {
        self.source
            .file_name()
            .map_or("service".into(), |name| name.to_string_lossy().into_owned())
    }

    fn regression_files(&self) -> Vec<PathBuf> {
        regressions::files_of(
            &self.regressions,
            &self.base_text,
            &self.stem(),
            &self.name(),
        )
    }

    /// The base with the case's faults.
    fn case_text(&self, case: &Case) -> Option<String> {
        faults::apply(&self.base_text, &self.filtered(case)).ok()
    }

    fn write_failure(&self, case: u64, minimal: Case, reason: String) -> SweepFailure {
        let minimal = self.filtered(&minimal);
        let name = self.name();
        let about = faults::regression_about(&name, &self.base_text, &reason, &minimal);
        let text = faults::regression(&self.base_text, &minimal, &about)
            .expect("the case parsed while it was run");
        let stem = self.stem();
        let (file, text) =
            regressions::write(&self.regressions, (&stem, &name), &self.base_text, &text);
        SweepFailure {
            reason,
            found: Some((case, self.seed)),
            file,
            text,
        }
    }
}

/// Runs the case twice: both traces must be the same bytes, and the invariant must hold.
fn check_once(
    source: &Path,
    text: &str,
    code: &impl Fn(&mut Service),
    invariant: &impl Fn(&ServiceRun) -> Result<(), String>,
) -> Result<(), String> {
    let run = || {
        let mut service = Service::parse(&source.display().to_string(), text)
            .map_err(|error| format!("the case is no valid scenario: {error}"))?;
        code(&mut service);
        service.run().map_err(|error| error.to_string())
    };
    let first = run()?;
    invariant(&first)?;
    let second = run()?;
    if first.trace() != second.trace() || first.notes() != second.notes() {
        return Err(
            "two runs of the same case gave different traces: the code under test \
                    depends on something besides its hosts' clocks (an unbiased `select!`, a \
                    HashMap's order, the OS)"
                .to_string(),
        );
    }
    Ok(())
}

fn kind_of(fault: &FaultSpec) -> FaultKind {
    match fault {
        FaultSpec::Suspend { system: true, .. } => FaultKind::SystemSuspend,
        FaultSpec::Suspend { system: false, .. } => FaultKind::ProcessSuspend,
        FaultSpec::Step { .. } => FaultKind::WallStep,
        FaultSpec::Slew { .. } => FaultKind::WallSlew,
    }
}
