//! A scenario without its model: where and under what a model runs. A model's runner is given
//! this, so the model trait can name it without naming the scenario that holds the model.

use ticklab_sim::{ClockId, Fault, Platform};

use crate::expect::metric::Expectation;
use crate::machine::config::MachineConfig;

/// Everything a scenario says besides its `[model]`, validated, in nanoseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Where it came from, for messages: a path or a built-in name.
    pub source: String,
    pub about: String,
    pub platform: Platform,
    /// The clock `Instant` reads: the platform's, unless the file overrides it.
    pub instant_clock: ClockId,
    pub seed: u64,
    pub run_for_ns: u64,
    pub wall_start_ns: i64,
    pub faults: Vec<Fault>,
    /// The machine the model runs on: cores, outside load, timer resolution.
    pub machine: MachineConfig,
    pub expectations: Vec<Expectation>,
    /// The file's own memory bound, for runs that really need more than the default.
    pub max_memory_bytes: Option<u64>,
    /// The file's own bound on a run's work, above the default: a run that needs more says so.
    pub max_events: Option<u64>,
}
