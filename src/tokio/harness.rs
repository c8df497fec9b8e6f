//! A harness: the conditions a user's tokio code runs under, from a scenario file or built in
//! code, validated the same way either way.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use ticklab_sim::{ClockId, Compact, Platform};

use super::run::{Run, run};
use crate::loader::parse_conditions;
use crate::registry::designs::Registry;
use crate::scenario::error::ScenarioError;
use crate::scenario::setting::Conditions;

/// The platform, clocks and faults a user's async code runs under. See [the module](super).
#[derive(Clone, Debug)]
pub struct Harness {
    conditions: Conditions,
    /// The file's text, which a sweep adds its faults to.
    text: String,
    options: RunOptions,
}

/// How a run treats what lies outside the simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunOptions {
    /// Whether a panic in a task fails the run (tokio alone would swallow a spawned task's).
    pub(crate) task_panics_fail: bool,
    /// Whether a run may start where OS clock reads cannot be brought inside the simulation.
    pub(crate) unseen_os_clocks_allowed: bool,
    /// Real time the runtime thread may poll without pausing before a warning.
    pub(crate) warn_after_real_ns: u64,
    /// Real time simulated time may stand still before the run is stopped.
    pub(crate) stop_after_real_ns: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            task_panics_fail: true,
            unseen_os_clocks_allowed: false,
            warn_after_real_ns: 50_000_000,
            stop_after_real_ns: 60_000_000_000,
        }
    }
}

impl Harness {
    /// Reads a scenario file: one of ticklab's own (its `[model]` is checked, then set aside), or
    /// one that holds only a platform, a length and faults.
    pub fn load(path: impl AsRef<Path>) -> Result<Harness, ScenarioError> {
        let path = path.as_ref();
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| {
            ScenarioError::whole_file(&source, format!("cannot read the scenario: {error}"))
                .with_hint("a path relative to the test runs from the crate's folder")
        })?;
        Harness::parse(&source, &text)
    }

    /// The same as [`Harness::load`], from text; `source` names it in errors and traces.
    pub fn parse(source: &str, text: &str) -> Result<Harness, ScenarioError> {
        let conditions = parse_conditions(&Registry::builtin(), source, text)?;
        if conditions.instant_clock == ClockId::Wall {
            return Err(ScenarioError::whole_file(
                source,
                "`instant_clock = \"wall\"` cannot drive tokio's clock, which only moves forward",
            )
            .with_hint(
                "remove `instant_clock` to use the platform's own, or name monotonic or boottime",
            ));
        }
        Ok(Harness {
            conditions,
            text: text.to_string(),
            options: RunOptions::default(),
        })
    }

    /// Keeps tokio's own way with a spawned task that panics: the task ends and the rest go on.
    /// By default such a panic fails the run, naming where it happened; so does a panic in a
    /// thread the code starts itself, which this leaves to the thread's join handle too.
    pub fn swallowing_task_panics(mut self) -> Self {
        self.options.task_panics_fail = false;
        self
    }

    /// Warns when the runtime thread polls for longer than `real` of real time without pausing
    /// (50 ms unless set): something blocked it that simulated time cannot see. The warnings go
    /// to stderr and [`Run::warnings`](super::Run::warnings), and never change the run.
    pub fn warn_when_blocked_for(mut self, real: Duration) -> Self {
        self.options.warn_after_real_ns = u64::try_from(real.as_nanos()).unwrap_or(u64::MAX);
        self
    }

    /// Stops the run with an error once simulated time has stood still for `real` of real time
    /// (a minute unless set): a timed wait on a std primitive on a `spawn_blocking` thread, or
    /// one that holds the runtime thread, waits for a deadline simulated time never reaches. The
    /// error names what waited. A warning says so first, after a second of real time (or 20
    /// times the [`warn_when_blocked_for`](Harness::warn_when_blocked_for) limit, if more).
    /// Should the stuck thread be held in the kernel, where no error reaches it, the process
    /// stops with the message.
    pub fn stop_when_stuck_for(mut self, real: Duration) -> Self {
        self.options.stop_after_real_ns = u64::try_from(real.as_nanos()).unwrap_or(u64::MAX);
        self
    }

    /// Lets a run start on a host where ticklab cannot bring `std::time::Instant`, `SystemTime`
    /// and `thread::sleep` inside the simulation (anything but Linux with glibc, or a build
    /// without the `os-clocks` feature). There, the code under test must read only tokio's clock
    /// and [`wall_now`](super::wall_now), and sleep only through tokio; what it reads from the OS
    /// is real.
    pub fn allowing_unseen_os_clocks(mut self) -> Self {
        self.options.unseen_os_clocks_allowed = true;
        self
    }

    /// These conditions, run the way `other` runs.
    pub(crate) fn with_options_of(mut self, other: &Harness) -> Self {
        self.options = other.options.clone();
        self
    }

    /// Starts building the conditions in code, on `platform`, for one minute.
    pub fn on(platform: Platform) -> Builder {
        Builder {
            platform,
            about: format!("tokio code on {}", platform.name()),
            run_for: Duration::from_secs(60),
            seed: 0,
            wall_start: None,
            instant_clock: None,
            faults: Vec::new(),
        }
    }

    pub fn conditions(&self) -> &Conditions {
        &self.conditions
    }

    /// The conditions as a scenario file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Runs `body` on a paused current-thread tokio runtime whose clock moves as the platform's
    /// `Instant` would through the faults, until its future completes or the run's time runs out.
    ///
    /// Tasks `body` spawns run on the same runtime.
    ///
    /// # Panics
    ///
    /// If the code under test moves tokio's clock itself (`tokio::time::advance`) past a fault,
    /// if a task or a thread the code starts panics (unless
    /// [`swallowing_task_panics`](Harness::swallowing_task_panics)), if simulated time stands
    /// still too long (see [`stop_when_stuck_for`](Harness::stop_when_stuck_for)),
    /// if the code reads a clock or sleeps in a way the simulation cannot see (a CPU-time clock,
    /// a `thread::sleep` on a `spawn_blocking` thread), and with whatever `body` panics with.
    pub fn run<T, Fut: Future<Output = T>>(&self, body: impl FnOnce() -> Fut) -> Run<T> {
        run(&self.conditions, &self.options, body)
    }
}

/// Conditions built in code: the same keys as a scenario file, checked by the same rules.
#[derive(Clone, Debug)]
pub struct Builder {
    platform: Platform,
    about: String,
    run_for: Duration,
    seed: u64,
    wall_start: Option<String>,
    instant_clock: Option<ClockId>,
    faults: Vec<String>,
}

fn toml_duration(duration: Duration) -> String {
    let ns = i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX);
    format!("\"{}\"", Compact(ns))
}

impl Builder {
    pub fn about(mut self, about: impl Into<String>) -> Self {
        self.about = about.into();
        self
    }

    /// The physical length of the run.
    pub fn run_for(mut self, run_for: Duration) -> Self {
        self.run_for = run_for;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The wall clock at the start, as RFC 3339 (`"2020-03-12T14:08:18Z"`).
    pub fn wall_start(mut self, wall_start: impl Into<String>) -> Self {
        self.wall_start = Some(wall_start.into());
        self
    }

    /// Overrides the clock the platform's `Instant` reads.
    pub fn instant_clock(mut self, clock: ClockId) -> Self {
        self.instant_clock = Some(clock);
        self
    }

    fn fault(mut self, kind: &str, at: Duration, rest: String) -> Self {
        self.faults.push(format!(
            "[[fault]]\nkind = \"{kind}\"\nat = {}\n{rest}",
            toml_duration(at)
        ));
        self
    }

    /// The machine sleeps from `at` for `duration`.
    pub fn system_suspend(self, at: Duration, duration: Duration) -> Self {
        let rest = format!("duration = {}\n", toml_duration(duration));
        self.fault("system-suspend", at, rest)
    }

    /// The process is frozen (SIGSTOP, a debugger, an app sent to the background) from `at` for
    /// `duration`.
    pub fn process_suspend(self, at: Duration, duration: Duration) -> Self {
        let rest = format!("duration = {}\n", toml_duration(duration));
        self.fault("process-suspend", at, rest)
    }

    /// The wall clock jumps forward by `by` at `at`.
    pub fn wall_step_forward(self, at: Duration, by: Duration) -> Self {
        let rest = format!("by = {}\n", toml_duration(by));
        self.fault("wall-step", at, rest)
    }

    /// The wall clock jumps back by `by` at `at`.
    pub fn wall_step_back(self, at: Duration, by: Duration) -> Self {
        let rest = format!("by = \"-{}\"\n", toml_duration(by).trim_matches('"'));
        self.fault("wall-step", at, rest)
    }

    /// The wall clock runs `rate` fast (or slow, if negative) from `at` for `duration`: NTP slews
    /// at up to 0.0005.
    pub fn wall_slew(self, at: Duration, duration: Duration, rate: f64) -> Self {
        let rest = format!("duration = {}\nrate = {rate:?}\n", toml_duration(duration));
        self.fault("wall-slew", at, rest)
    }

    /// The conditions as a scenario file would hold them.
    pub fn to_toml(&self) -> String {
        let mut text = format!(
            "about = {}\nplatform = \"{}\"\nseed = {}\nrun_for = {}\n",
            toml::Value::String(self.about.clone()),
            self.platform.name(),
            self.seed,
            toml_duration(self.run_for)
        );
        if let Some(wall_start) = &self.wall_start {
            text.push_str(&format!(
                "wall_start = {}\n",
                toml::Value::String(wall_start.clone())
            ));
        }
        if let Some(clock) = self.instant_clock {
            text.push_str(&format!("instant_clock = \"{}\"\n", clock.name()));
        }
        for fault in &self.faults {
            text.push('\n');
            text.push_str(fault);
        }
        text
    }

    /// Checks the conditions as a scenario file's would be checked.
    pub fn build(&self) -> Result<Harness, ScenarioError> {
        Harness::parse("<built in code>", &self.to_toml())
    }
}
