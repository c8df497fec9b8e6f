//! What scenario files can name, in one place: the model kinds ([`KINDS`]), and the timer
//! designs (built in, planted in test builds, or brought by a user's crate).
//!
//! A program that tests its own design builds on [`Registry::builtin`] and hands the result to
//! [`crate::cli::main_with`], so its scenario files, sweeps, plots and reports can name it:
//!
//! ```
//! use ticklab::Registry;
//! use ticklab::models::timer::builtin::GlobalHeapDesign;
//! use ticklab::models::timer::{BuildTimerDesign, GlobalHeap, TimerParams};
//! use ticklab::models::sync::Primitives;
//!
//! struct MyHeap;
//! impl BuildTimerDesign for MyHeap {
//!     const NAME: &'static str = "my-heap";
//!     const ABOUT: &'static str = "a global heap under another name";
//!     type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;
//!     fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
//!         GlobalHeapDesign::build(params)
//!     }
//! }
//!
//! let registry = Registry::builtin().with_timer_design::<MyHeap>();
//! let scenario = registry.parse("mine.toml", r#"
//!     about = "my heap under RPC timeouts"
//!     platform = "linux"
//!     run_for = "1s"
//!     [model]
//!     kind = "timer"
//!     design = "my-heap"
//!     clock = "monotonic"
//!     clients = 2
//!     call_interval = "10ms"
//!     timeout = "50ms"
//!     latency = "1ms"
//! "#).unwrap();
//! let report = ticklab::run::run_scenario(&scenario, &Default::default(), &mut ticklab::trace::NoTrace).unwrap();
//! assert_eq!(report.summary.get("calls"), Some(200));
//! ```

pub(crate) mod designs;
mod kinds;

use ticklab_models::timer::BuildTimerDesign;

pub use designs::{Registry, TimerDesignEntry};
pub use kinds::{KINDS, Kind, ModelKind, kind, kind_names};

use crate::scenario::{Scenario, ScenarioError};

impl Registry {
    /// Everything ticklab ships: one line per design.
    pub fn builtin() -> Self {
        use ticklab_models::timer::builtin::{
            BucketedDesign, BucketedReclaimDesign, GlobalHeapDesign, HashedDesign,
        };
        Registry {
            timer_designs: Vec::new(),
        }
        .with_timer_design::<GlobalHeapDesign>()
        .with_timer_design::<BucketedDesign>()
        .with_timer_design::<BucketedReclaimDesign>()
        .with_timer_design::<HashedDesign>()
        .with_timer_design::<ticklab_models::timer::TokioWheelDesign>()
        .with_timer_design::<ticklab_models::timer::GoTimersDesign>()
        .with_timer_design::<ticklab_models::timer::HashedWheelDesign>()
        .with_timer_design::<ticklab_models::timer::LinuxWheelDesign>()
    }

    /// Adds a timer design under its [`BuildTimerDesign::NAME`].
    ///
    /// # Panics
    /// If a design of that name is already registered: scenario files could not tell them apart.
    pub fn with_timer_design<B: BuildTimerDesign>(self) -> Self {
        self.with_timer_entry(TimerDesignEntry::of::<B>())
    }

    /// Adds a timer design that only tests may name; hints and listings leave it out.
    pub fn with_unlisted_timer_design<B: BuildTimerDesign>(self) -> Self {
        self.with_timer_entry(TimerDesignEntry {
            listed: false,
            ..TimerDesignEntry::of::<B>()
        })
    }

    fn with_timer_entry(mut self, entry: TimerDesignEntry) -> Self {
        assert!(
            self.timer_design(entry.name).is_none(),
            "a timer design named `{}` is already registered",
            entry.name
        );
        check_own_names(&entry);
        self.timer_designs.push(entry);
        self
    }

    /// Validates a scenario given as text against this registry; `source` names it in errors.
    pub fn parse(&self, source: &str, text: &str) -> Result<Scenario, ScenarioError> {
        crate::scenario::parse_with(self, source, text)
    }

    /// Reads and validates a scenario file against this registry.
    pub fn load(&self, path: &std::path::Path) -> Result<Scenario, ScenarioError> {
        crate::scenario::load_with(self, path)
    }
}

/// A design's own keys and metrics must not hide a timer scenario's, nor each other: a file or
/// an `[expect]` could not tell them apart.
///
/// # Panics
/// On the first name that clashes, naming it.
fn check_own_names(entry: &TimerDesignEntry) {
    let shared_keys = crate::scenario::keys_of::<crate::timer::spec::TimerSpec>();
    let mut keys: Vec<&str> = Vec::new();
    for key in entry.keys {
        assert!(
            !shared_keys.contains(&key.name) && !keys.contains(&key.name),
            "timer design `{}` declares the key `{}`, which {}",
            entry.name,
            key.name,
            if keys.contains(&key.name) {
                "it declares twice"
            } else {
                "every timer scenario already has"
            }
        );
        keys.push(key.name);
    }
    let mut metrics: Vec<&str> = Vec::new();
    for metric in entry.metrics {
        let shared = crate::timer::METRICS
            .iter()
            .any(|shared| shared.name == metric.name);
        assert!(
            !shared && !metrics.contains(&metric.name),
            "timer design `{}` declares the metric `{}`, which {}",
            entry.name,
            metric.name,
            if shared {
                "every timer run already reports"
            } else {
                "it declares twice"
            }
        );
        metrics.push(metric.name);
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::builtin()
    }
}
