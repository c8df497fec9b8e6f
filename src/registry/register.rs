//! Building a registry: everything ticklab ships, then each design a user's crate adds, checked
//! against the names every timer scenario already has.

use ticklab_models::executor::BuildScheduler;
use ticklab_models::timer::BuildTimerDesign;

use super::designs::{Registry, TimerDesignEntry};
use super::schedulers::SchedulerEntry;

impl Registry {
    /// Everything ticklab ships: one line per design.
    pub fn builtin() -> Self {
        use ticklab_models::executor::TokioMultiThread;
        use ticklab_models::executor::designs::{
            AsyncExecutorDesign, GoScheduler, ThreadPerCoreDesign, TokioCurrentThread,
        };
        use ticklab_models::timer::builtin::{
            BucketedDesign, BucketedReclaimDesign, GlobalHeapDesign, HashedDesign,
        };
        Registry {
            timer_designs: Vec::new(),
            schedulers: Vec::new(),
        }
        .with_scheduler::<TokioMultiThread>()
        .with_scheduler::<TokioCurrentThread>()
        .with_scheduler::<AsyncExecutorDesign>()
        .with_scheduler::<GoScheduler>()
        .with_scheduler::<ThreadPerCoreDesign>()
        .with_timer_design::<GlobalHeapDesign>()
        .with_timer_design::<BucketedDesign>()
        .with_timer_design::<BucketedReclaimDesign>()
        .with_timer_design::<HashedDesign>()
        .with_timer_design::<ticklab_models::timer::TokioWheelDesign>()
        .with_timer_design::<ticklab_models::timer::GoTimersDesign>()
        .with_timer_design::<ticklab_models::timer::HashedWheelDesign>()
        .with_timer_design::<ticklab_models::timer::LinuxWheelDesign>()
        .with_timer_design::<ticklab_models::timer::TokioAltDesign>()
        .with_timer_design::<ticklab_models::timer::TokioAltBefore8252Design>()
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

    /// Adds a scheduler design under its [`BuildScheduler::NAME`], for executor runtimes to name
    /// with `scheduler = "..."`.
    ///
    /// # Panics
    /// If a scheduler of that name is already registered, or it reads a key that runtimes do not
    /// have.
    pub fn with_scheduler<B: BuildScheduler>(self) -> Self {
        self.with_scheduler_entry(SchedulerEntry::of::<B>())
    }

    /// Adds a scheduler design that only tests may name; hints and listings leave it out.
    pub fn with_unlisted_scheduler<B: BuildScheduler>(self) -> Self {
        self.with_scheduler_entry(SchedulerEntry {
            listed: false,
            ..SchedulerEntry::of::<B>()
        })
    }

    fn with_scheduler_entry(mut self, entry: SchedulerEntry) -> Self {
        assert!(
            self.scheduler(entry.name).is_none(),
            "a scheduler named `{}` is already registered",
            entry.name
        );
        for key in entry.keys {
            assert!(
                super::schedulers::SCHEDULER_KEYS.contains(key),
                "scheduler `{}` reads the key `{key}`, which runtimes do not have; they have {}",
                entry.name,
                super::schedulers::SCHEDULER_KEYS.join(", ")
            );
        }
        check_own_metrics(
            &format!("scheduler `{}`", entry.name),
            entry.metrics,
            crate::executor::METRICS,
            "every executor run already reports",
        );
        self.schedulers.push(entry);
        self
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
}

/// A design's own keys and metrics must not hide a timer scenario's, nor each other: a file or
/// an `[expect]` could not tell them apart.
///
/// # Panics
/// On the first name that clashes, naming it.
fn check_own_names(entry: &TimerDesignEntry) {
    let shared_keys = crate::scenario::keys_of::<crate::timer::keys::TimerSpec>();
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
    check_own_metrics(
        &format!("timer design `{}`", entry.name),
        entry.metrics,
        crate::timer::METRICS,
        "every timer run already reports",
    );
}

/// A design's own metrics must not hide its kind's, nor each other: an `[expect]` could not tell
/// them apart.
///
/// # Panics
/// On the first name that clashes, naming it.
fn check_own_metrics(
    design: &str,
    own: &[ticklab_models::timer::DesignMetric],
    shared: &[crate::expect::Metric],
    shared_by: &str,
) {
    let mut seen: Vec<&str> = Vec::new();
    for metric in own {
        let clashes = shared.iter().any(|shared| shared.name == metric.name);
        assert!(
            !clashes && !seen.contains(&metric.name),
            "{design} declares the metric `{}`, which {}",
            metric.name,
            if clashes {
                shared_by
            } else {
                "it declares twice"
            }
        );
        seen.push(metric.name);
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::builtin()
    }
}
