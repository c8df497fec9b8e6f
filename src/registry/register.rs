//! Building a registry: everything ticklab ships, then each design a user's crate adds, checked
//! against the names every timer scenario already has.

use ticklab_models::timer::BuildTimerDesign;

use super::designs::{Registry, TimerDesignEntry};

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
