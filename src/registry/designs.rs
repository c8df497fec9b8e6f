//! The timer designs scenario files can name, as the registry holds them. The model trait names
//! [`Registry`] (a kind checks its table against it), so this file needs nothing of scenario files
//! or of the kinds.

use std::fmt;

use ticklab_models::timer::{BuildTimerDesign, DesignKey, DesignMetric, Promise, TimerParams};

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
    pub(super) build: fn(&TimerParams) -> Box<dyn SimTimers>,
    /// The design's battery, so that a test can run it on every registered design.
    #[cfg(feature = "battery")]
    pub(super) loom_setup: fn(&str),
    #[cfg(feature = "battery")]
    pub(super) shuttle: fn(),
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
    pub(super) timer_designs: Vec<TimerDesignEntry>,
    pub(super) schedulers: Vec<super::schedulers::SchedulerEntry>,
}

impl Registry {
    pub fn timer_design(&self, name: &str) -> Option<&TimerDesignEntry> {
        self.timer_designs.iter().find(|entry| entry.name == name)
    }

    /// The designs hints and listings name, in registration order.
    pub fn timer_designs(&self) -> impl Iterator<Item = &TimerDesignEntry> {
        self.timer_designs.iter().filter(|entry| entry.listed)
    }

    pub fn scheduler(&self, name: &str) -> Option<&super::schedulers::SchedulerEntry> {
        self.schedulers.iter().find(|entry| entry.name == name)
    }

    /// The scheduler designs hints and listings name, in registration order; the first is the
    /// one a runtime that names none runs.
    pub fn schedulers(&self) -> impl Iterator<Item = &super::schedulers::SchedulerEntry> {
        self.schedulers.iter().filter(|entry| entry.listed)
    }
}
