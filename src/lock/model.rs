//! The fork-lock convoy as a model kind.

use crate::expect::Metric;
use crate::machine::ModelMachineKeys;
use crate::model::{Head, Model, RunContext};
use crate::profile::CostProfile;
use crate::runner::error::RunError;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::trace::Summary;

use super::spec::{LockConfig, validate};
use super::{METRICS, runner};
use crate::lock::keys::LockSpec;

/// Threads spawning commands under a process-wide lock: `kind = "lock"`.
#[derive(Debug)]
pub struct LockModel;

impl Model for LockModel {
    const KIND: &'static str = "lock";
    const ABOUT: &'static str =
        "threads that spawn commands under a process-wide lock, with readers and busy threads";
    const KEYS: &'static KeyTable = &super::keys::MODEL;
    type Spec = LockSpec;
    type Config = LockConfig;

    fn validate(spec: &LockSpec, head: &Head<'_>) -> Result<LockConfig, ScenarioError> {
        validate(&head.file, spec, head.run_for_ns)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }

    fn run(config: &LockConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
        runner::run(run.setting, config, run.seed, run.options, run.sink)
    }

    fn machine_keys(config: &LockConfig) -> ModelMachineKeys {
        ModelMachineKeys {
            cores: config.cores,
            time_slice_ns: config.time_slice_ns,
            instant_clock: None,
        }
    }

    fn profile(config: &LockConfig) -> Option<&CostProfile> {
        Some(&config.profile)
    }

    fn with_profile(config: &LockConfig, profile: CostProfile) -> Option<LockConfig> {
        Some(LockConfig {
            profile,
            ..config.clone()
        })
    }
}
