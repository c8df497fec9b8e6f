//! How a run is bounded, whatever runs: options that a command line or a test gives.

use crate::memory::DEFAULT_MAX_MEMORY_BYTES;
use crate::scenario::setting::Setting;

/// The default cap on events one run may handle: about ten seconds of simulation, and room for
/// brpc #3383 at full scale (40 M calls).
pub const DEFAULT_MAX_EVENTS: u64 = 250_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Replaces the scenario's `seed`.
    pub seed: Option<u64>,
    /// Refuse runs whose work could exceed this many events.
    pub max_events: u64,
    /// Refuse, or stop, runs whose live state could pass this many bytes; a scenario's own
    /// `max_memory` may raise it for that scenario.
    pub max_memory_bytes: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: None,
            max_events: DEFAULT_MAX_EVENTS,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
        }
    }
}

impl RunOptions {
    /// These options for a scenario of `setting`: its own `max_events` and `max_memory` raise the bounds.
    pub fn for_scenario(&self, setting: &Setting) -> RunOptions {
        RunOptions {
            max_events: self.max_events.max(setting.max_events.unwrap_or(0)),
            ..*self
        }
    }

    /// The memory bound for a scenario of `setting`: the larger of the options' and the file's own.
    pub fn max_memory_for(&self, setting: &Setting) -> u64 {
        self.max_memory_bytes
            .max(setting.max_memory_bytes.unwrap_or(0))
    }
}
