//! What scenario files can name, in one place: the timer designs (built in, planted in test
//! builds, or brought by a user's crate).
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

use std::fmt;

use ticklab_models::timer::{BuildTimerDesign, DesignKey, DesignMetric, Promise, TimerParams};

use crate::scenario::{Scenario, ScenarioError};
use crate::timer::designs::{SimTimers, build};

/// A timer design scenario files can name.
#[derive(Clone, Copy)]
pub struct TimerDesignEntry {
    pub name: &'static str,
    pub about: &'static str,
    /// The keys of its own it reads from `[model]`.
    pub keys: &'static [DesignKey],
    /// The metrics of its own it reports.
    pub metrics: &'static [DesignMetric],
    /// Listed in hints and errors; planted bugs are not.
    pub listed: bool,
    /// What one timer it holds costs in memory at most.
    pub bytes_per_timer: u64,
    /// How late it may fire by its own design.
    pub promise: Promise,
    /// Whether its timer threads run each other's timers.
    pub threads_share_timers: bool,
    build: fn(&TimerParams) -> Box<dyn SimTimers>,
    /// The design's battery, so that a test can run it on every registered design.
    #[cfg(feature = "battery")]
    loom_setup: fn(&str),
    #[cfg(feature = "battery")]
    shuttle: fn(),
}

impl TimerDesignEntry {
    pub fn of<B: BuildTimerDesign>() -> Self {
        TimerDesignEntry {
            name: B::NAME,
            about: B::ABOUT,
            keys: B::KEYS,
            metrics: B::METRICS,
            listed: true,
            bytes_per_timer: B::BYTES_PER_TIMER,
            promise: B::PROMISE,
            threads_share_timers: B::THREADS_SHARE_TIMERS,
            build: build::<B>,
            #[cfg(feature = "battery")]
            loom_setup: crate::battery::loom_setup::<B>,
            #[cfg(feature = "battery")]
            shuttle: crate::battery::shuttle::<B>,
        }
    }

    /// Runs one setup of the loom battery on the design (see [`crate::battery::setup_names`]).
    #[cfg(feature = "battery")]
    pub fn run_loom_setup(&self, setup: &str) {
        (self.loom_setup)(setup)
    }

    /// Runs the shuttle battery on the design.
    #[cfg(feature = "battery")]
    pub fn run_shuttle_battery(&self) {
        (self.shuttle)()
    }

    pub(crate) fn build(&self, params: &TimerParams) -> Box<dyn SimTimers> {
        (self.build)(params)
    }

    /// Whether it reads the key named `name`.
    pub fn reads(&self, name: &str) -> bool {
        self.keys.iter().any(|key| key.name == name)
    }
}

impl fmt::Debug for TimerDesignEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerDesignEntry")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Two entries are the same design if they have the same name: a registry holds one per name.
impl PartialEq for TimerDesignEntry {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for TimerDesignEntry {}

/// The designs scenario files can name.
#[derive(Clone, Debug)]
pub struct Registry {
    timer_designs: Vec<TimerDesignEntry>,
}

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

    pub fn timer_design(&self, name: &str) -> Option<&TimerDesignEntry> {
        self.timer_designs.iter().find(|entry| entry.name == name)
    }

    /// The designs hints and listings name, in registration order.
    pub fn timer_designs(&self) -> impl Iterator<Item = &TimerDesignEntry> {
        self.timer_designs.iter().filter(|entry| entry.listed)
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
