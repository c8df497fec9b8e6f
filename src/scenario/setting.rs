//! A scenario without its model: where and under what a model runs. A model's runner is given
//! this, so the model trait can name it without naming the scenario that holds the model.

use ticklab_sim::{ClockId, Fault, Platform};

use crate::expect::metric::Expectation;
use crate::machine::config::MachineConfig;

/// When no `wall_start` is given. Fixed, because nothing in a run may depend on the host.
pub const DEFAULT_WALL_START: &str = "2026-01-01T00:00:00Z";

/// What a run happens under, whatever runs in it: the platform and its clocks, the seed, the
/// length and the faults. A scenario's head; also all that a file for [`crate::tokio`] holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conditions {
    pub source: String,
    pub about: String,
    pub platform: Platform,
    pub instant_clock: ClockId,
    pub seed: u64,
    pub run_for_ns: u64,
    pub wall_start_ns: i64,
    pub faults: Vec<Fault>,
}

/// Everything a scenario says besides its `[model]`, validated, in nanoseconds: its
/// [`Conditions`] (read through `Deref`), and the machine and bounds a simulated model needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub conditions: Conditions,
    /// The machine the model runs on: cores, outside load, timer resolution.
    pub machine: MachineConfig,
    pub expectations: Vec<Expectation>,
    /// The file's own memory bound, for runs that really need more than the default.
    pub max_memory_bytes: Option<u64>,
    /// The file's own bound on a run's work, above the default: a run that needs more says so.
    pub max_events: Option<u64>,
}

impl std::ops::Deref for Setting {
    type Target = Conditions;

    fn deref(&self) -> &Conditions {
        &self.conditions
    }
}

impl std::ops::DerefMut for Setting {
    fn deref_mut(&mut self) -> &mut Conditions {
        &mut self.conditions
    }
}
