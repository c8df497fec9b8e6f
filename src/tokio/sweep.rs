//! Random fault schedules around a harness, checked against an invariant of the user's own.
//!
//! The same search as `ticklab sweep`: each case adds up to six faults to the base, runs twice
//! (the traces must be the same bytes), and must keep the invariant. A failing case is shrunk
//! by proptest and written as a scenario file beside the base's, which every later run of the
//! same test replays before it searches.

use std::future::Future;
use std::path::{Path, PathBuf};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};

use super::harness::Harness;
use super::regressions;
use super::replay_command::Invocation;
use super::run::Run;
use crate::sweep::faults::{self, Case};

const DEFAULT_CASES: u64 = 64;
/// Each phase of shrinking stops after this many tries, however far it got.
const MAX_SHRINK_STEPS: u32 = 500;

/// A sweep of fault schedules around a base harness. See [the module](super).
#[derive(Clone, Debug)]
pub struct Sweep {
    base: Harness,
    cases: u64,
    seed: u64,
    regressions: PathBuf,
    replay: bool,
}

/// What broke, where it is written, and how to run it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepFailure {
    /// The invariant's complaint, or the runs' disagreement.
    pub reason: String,
    /// The case number and seed that found it; `None` for a replayed regression file.
    pub found: Option<(u64, u64)>,
    /// The shrunk case as a scenario file.
    pub file: PathBuf,
    pub text: String,
}

impl std::fmt::Display for SweepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let invocation = Invocation::current();
        match self.found {
            Some((case, seed)) => {
                writeln!(
                    f,
                    "ticklab sweep: case {case} of seed {seed} failed: {}",
                    self.reason
                )?;
                writeln!(f, "shrunk case written to {}:", self.file.display())?;
            }
            None => {
                writeln!(
                    f,
                    "ticklab sweep: the regression file {} still fails: {}",
                    self.file.display(),
                    self.reason
                )?;
                writeln!(f, "it holds:")?;
            }
        }
        for line in self.text.lines() {
            writeln!(f, "  | {line}")?;
        }
        writeln!(f, "replay: {}", invocation.command(None))?;
        if let Some((_, seed)) = self.found {
            write!(f, "search again: {}", invocation.command(Some(seed)))?;
        }
        Ok(())
    }
}

/// Set to 0, a sweep searches without replaying its base's regression files first.
pub(super) const REPLAY_VARIABLE: &str = "TICKLAB_SWEEP_REPLAY";

/// Whether `TICKLAB_SWEEP_REPLAY`'s value asks for the regression files to be replayed.
fn replays(value: Option<&str>) -> bool {
    match value.map(str::trim) {
        None | Some("1") => true,
        Some("0") => false,
        Some(other) => panic!(
            "ticklab: {REPLAY_VARIABLE}={other} is neither 0 (search without replaying the \
             regression files) nor 1 (replay them first, as without it)"
        ),
    }
}

impl Sweep {
    /// A sweep of 64 cases of seed 0 around `base`, or of `TICKLAB_SWEEP_CASES` cases of
    /// `TICKLAB_SWEEP_SEED` when they are set. Regression files go to a `regressions` folder
    /// beside the base's file, or, for a harness built in code, to `tests/regressions` under the
    /// folder the test runs in (the crate's own, under `cargo test`).
    pub fn new(base: &Harness) -> Sweep {
        let source = Path::new(&base.conditions().source);
        let regressions = if source.is_file() {
            source
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .join("regressions")
        } else {
            Path::new("tests").join("regressions")
        };
        let from_env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        Sweep {
            base: base.clone(),
            cases: from_env("TICKLAB_SWEEP_CASES").unwrap_or(DEFAULT_CASES),
            seed: from_env("TICKLAB_SWEEP_SEED").unwrap_or(0),
            regressions,
            replay: replays(std::env::var(REPLAY_VARIABLE).ok().as_deref()),
        }
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

    /// Whether [`Sweep::check`] replays the base's regression files before it searches: it does
    /// unless `TICKLAB_SWEEP_REPLAY=0` is set.
    pub fn replay_regressions(mut self, replay: bool) -> Self {
        self.replay = replay;
        self
    }

    /// Replays this base's regression files, then searches. Returns how many cases passed, or
    /// the first failure, shrunk and written.
    pub fn check<T, Fut: Future<Output = T>>(
        &self,
        body: impl Fn() -> Fut,
        invariant: impl Fn(&Run<T>) -> Result<(), String>,
    ) -> Result<u64, SweepFailure> {
        let verdict = |harness: &Harness| check_once(harness, &body, &invariant);
        let replayed = if self.replay {
            self.regression_files()
        } else {
            Vec::new()
        };
        for file in replayed {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let harness = Harness::parse(&file.display().to_string(), &text)
                .unwrap_or_else(|error| panic!("a regression file no longer parses:\n{error}"))
                .with_options_of(&self.base);
            if let Err(reason) = verdict(&harness) {
                return Err(SweepFailure {
                    reason,
                    found: None,
                    file,
                    text,
                });
            }
        }
        let run_for_ms = self.base.conditions().run_for_ns / 1_000_000;
        let strategy = faults::cases(run_for_ms);
        let mut passed = 0;
        for case in 0..self.cases {
            let mut runner = TestRunner::new_with_rng(
                Config::default(),
                crate::sweep::case_rng(self.seed, case),
            );
            let mut tree = strategy
                .new_tree(&mut runner)
                .expect("fault schedules can always be drawn");
            let Some(harness) = self.with_case(&tree.current()) else {
                continue;
            };
            match verdict(&harness) {
                Ok(()) => passed += 1,
                Err(reason) => {
                    let (minimal, reason) = self.shrink(&mut tree, reason, &verdict);
                    return Err(self.write_failure(case, minimal, reason));
                }
            }
        }
        Ok(passed)
    }

    /// [`Sweep::check`], panicking with the failure's report: what a test calls.
    pub fn assert<T, Fut: Future<Output = T>>(
        &self,
        body: impl Fn() -> Fut,
        invariant: impl Fn(&Run<T>) -> Result<(), String>,
    ) {
        if let Err(failure) = self.check(body, invariant) {
            panic!("{failure}");
        }
    }

    /// What regression files are named after: the base's file, or for a harness built in code,
    /// its `about` with everything but letters and digits turned into dashes.
    fn stem(&self) -> String {
        let conditions = self.base.conditions();
        let source = Path::new(&conditions.source);
        if source.is_file()
            && let Some(stem) = source.file_stem()
        {
            return stem.to_string_lossy().into_owned();
        }
        let slug: Vec<String> = conditions
            .about
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        if slug.is_empty() {
            "harness".into()
        } else {
            slug.join("-")
        }
    }

    /// This base's regression files, in name order.
    fn regression_files(&self) -> Vec<PathBuf> {
        regressions::files_of(
            &self.regressions,
            self.base.text(),
            &self.stem(),
            &self.name(),
        )
    }

    /// What the base is called in its regression files' `about`: its file's name, or for a
    /// harness built in code, its `about`.
    fn name(&self) -> String {
        let conditions = self.base.conditions();
        let source = Path::new(&conditions.source);
        match source.file_name() {
            Some(name) if source.is_file() => name.to_string_lossy().into_owned(),
            _ => conditions.about.clone(),
        }
    }

    /// The base with the case's faults added; `None` if that is no valid scenario (a wall clock
    /// pushed out of range).
    fn with_case(&self, case: &Case) -> Option<Harness> {
        let text = case_text(self.base.text(), case, None)?;
        Harness::parse(&self.base.conditions().source, &text)
            .ok()
            .map(|harness| harness.with_options_of(&self.base))
    }

    fn shrink(
        &self,
        tree: &mut impl ValueTree<Value = Case>,
        reason: String,
        verdict: &impl Fn(&Harness) -> Result<(), String>,
    ) -> (Case, String) {
        crate::sweep::shrink::shrink(tree, reason, MAX_SHRINK_STEPS, |case| {
            self.with_case(case)
                .and_then(|harness| verdict(&harness).err())
        })
    }

    fn write_failure(&self, case: u64, minimal: Case, reason: String) -> SweepFailure {
        let minimal = Case {
            tweaks: Vec::new(),
            ..minimal
        };
        let name = self.name();
        let about = faults::regression_about(&name, self.base.text(), &reason, &minimal);
        let text = case_text(self.base.text(), &minimal, Some(&about))
            .expect("the case parsed while it was run");
        let stem = self.stem();
        let (file, text) =
            regressions::write(&self.regressions, (&stem, &name), self.base.text(), &text);
        SweepFailure {
            reason,
            found: Some((case, self.seed)),
            file,
            text,
        }
    }
}

/// The base's text with the case's faults (never its parameter changes, which are a model's)
/// and, for a file without a model, no `[expect]`.
fn case_text(base: &str, case: &Case, about: Option<&str>) -> Option<String> {
    let case = Case {
        tweaks: Vec::new(),
        ..case.clone()
    };
    let text = match about {
        Some(about) => faults::regression(base, &case, about),
        None => faults::apply(base, &case),
    }
    .ok()?;
    let mut table: toml::Table = text.parse().ok()?;
    if !table.contains_key("model") {
        table.remove("expect");
    }
    Some(toml::to_string(&table).expect("a TOML table serialises"))
}

/// Runs `harness` twice: both traces must be the same bytes, and the invariant must hold.
fn check_once<T, Fut: Future<Output = T>>(
    harness: &Harness,
    body: &impl Fn() -> Fut,
    invariant: &impl Fn(&Run<T>) -> Result<(), String>,
) -> Result<(), String> {
    let first = harness.run(body);
    invariant(&first)?;
    let second = harness.run(body);
    if first.jsonl() != second.jsonl() {
        return Err(
            "two runs of the same case gave different traces: the code under test \
                    depends on something besides the harness's clocks (an unbiased `select!`, \
                    the OS clock, a real thread)"
                .to_string(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::strategy::Just;
    use ticklab_sim::Platform;

    use super::*;
    use crate::sweep::FaultSpec;

    async fn beats() {
        let mut interval = tokio::time::interval(Duration::from_secs(1));
        loop {
            interval.tick().await;
            crate::tokio::note("beat");
        }
    }

    /// The wall clock must not go back while the code's own `Instant` reads under 20 s.
    fn wall_keeps_on_early(run: &Run<()>) -> Result<(), String> {
        let notes: Vec<_> = run.notes_of("beat").collect();
        match notes
            .windows(2)
            .find(|pair| pair[1].instant_ns < 20_000_000_000 && pair[1].wall.0 < pair[0].wall.0)
        {
            Some(pair) => Err(format!("wall went back at {} ns", pair[1].t_ns)),
            None => Ok(()),
        }
    }

    #[test]
    fn a_suspend_needed_only_while_the_step_came_late_is_deleted_once_the_step_moves_early() {
        let base = Harness::on(Platform::Linux).about("wall").build().unwrap();
        let sweep = Sweep::new(&base);
        let verdict = |harness: &Harness| check_once(harness, &beats, &wall_keeps_on_early);
        let fails = |faults: Vec<FaultSpec>| {
            let case = Case {
                seed: 0,
                tweaks: Vec::new(),
                hosts: Vec::new(),
                faults,
                cluster: Vec::new(),
                loads: Vec::new(),
            };
            verdict(&sweep.with_case(&case).unwrap()).is_err()
        };
        // Linux's `Instant` stands still through the suspend, so the step at 30 s comes at 5 s of
        // it; without the suspend it comes at 30 s, and passes.
        let suspend = FaultSpec::Suspend {
            system: true,
            at_ms: 5_000,
            duration_ms: 28_000,
        };
        let late_step = FaultSpec::Step {
            at_ms: 30_000,
            by_ms: -3_600_000,
        };
        assert!(fails(vec![suspend.clone(), late_step.clone()]));
        assert!(!fails(vec![late_step.clone()]));
        assert!(!fails(vec![suspend.clone()]));
        let found = Case {
            seed: 0,
            tweaks: Vec::new(),
            hosts: Vec::new(),
            faults: vec![suspend, late_step],
            cluster: Vec::new(),
            loads: Vec::new(),
        };
        let mut tree = Just(found)
            .new_tree(&mut TestRunner::deterministic())
            .unwrap();
        let (minimal, _) = sweep.shrink(&mut tree, "found".into(), &verdict);
        let [FaultSpec::Step { at_ms, by_ms }] = minimal.faults[..] else {
            panic!("shrunk to {:?}", minimal.faults);
        };
        // A minimum: the step alone fails, and one millisecond closer to nothing, it passes.
        assert!(fails(vec![FaultSpec::Step { at_ms, by_ms }]));
        assert!(!fails(vec![FaultSpec::Step {
            at_ms: at_ms - 1,
            by_ms
        }]));
        assert!(!fails(vec![FaultSpec::Step {
            at_ms,
            by_ms: by_ms + 1
        }]));
    }
}
