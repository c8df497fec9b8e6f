//! The machine as a scenario sets it up: plain data, which the model trait and a scenario's
//! setting name without needing the machine that runs.

use super::timing::Timing;

/// How the machine is built: everything a scenario can set about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineConfig {
    /// Cores shared by every thread; `None` gives every thread a core of its own.
    pub cores: Option<usize>,
    /// How long a thread runs before a waiting one gets its core.
    pub time_slice_ns: u64,
    pub timing: Timing,
    pub load: OutsideLoad,
}

impl MachineConfig {
    /// A core for every thread, waits that end exactly at their deadlines, and no outside load.
    pub fn ideal() -> Self {
        MachineConfig {
            cores: None,
            time_slice_ns: ticklab_sim::DEFAULT_SLICE_NS,
            timing: Timing {
                resolution_ns: 0,
                slack_ns: 0,
            },
            load: OutsideLoad::default(),
        }
    }

    /// `cores` cores sliced every `time_slice_ns`, otherwise [`MachineConfig::ideal`].
    pub fn with_cores(cores: usize, time_slice_ns: u64) -> Self {
        MachineConfig {
            cores: Some(cores),
            time_slice_ns,
            ..MachineConfig::ideal()
        }
    }
}

/// The outside load a scenario asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutsideLoad {
    /// Threads that compute for the whole run.
    pub busy_threads: u32,
    /// Threads that run random bursts, and how.
    pub bursts: Option<Bursts>,
}

/// Random bursts of CPU on `threads` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bursts {
    pub threads: u32,
    /// The share of its time each bursty thread wants to run, in parts per million.
    pub share_ppm: u32,
    /// The mean length of a burst.
    pub mean_burst_ns: u64,
}

/// What older scenario files said about the machine in `[model]`: an executor's or a lock
/// model's `cores` and `time_slice`, read as if they were in `[machine]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelMachineKeys {
    pub cores: Option<usize>,
    pub time_slice_ns: Option<u64>,
    /// The clock the model's own `clock` key makes `Instant` read, if it has one.
    pub instant_clock: Option<ticklab_sim::ClockId>,
}
