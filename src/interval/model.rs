//! The Interval family as a model kind.

use crate::expect::Metric;
use crate::machine::ModelMachineKeys;
use crate::model::{Head, Model, RunContext};
use crate::runner::error::RunError;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::trace::Summary;

use super::spec::{IntervalConfig, validate};
use super::{METRICS, runner};
use crate::interval::keys::IntervalSpec;

/// Periodic timers on one runtime thread: `kind = "interval"`.
#[derive(Debug)]
pub struct IntervalModel;

impl Model for IntervalModel {
    const KIND: &'static str = "interval";
    const ABOUT: &'static str =
        "periodic timers, tokio style, with every missed-tick behaviour, on one runtime thread";
    const KEYS: &'static KeyTable = &super::keys::MODEL;
    type Spec = IntervalSpec;
    type Config = IntervalConfig;

    fn validate(spec: &IntervalSpec, head: &Head<'_>) -> Result<IntervalConfig, ScenarioError> {
        validate(&head.file, spec, head.run_for_ns)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }

    fn run(config: &IntervalConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
        runner::run(run.setting, config, run.seed, run.options, run.sink)
    }

    /// `clock = "wall"` makes the run's `Instant` read the wall clock.
    fn machine_keys(config: &IntervalConfig) -> ModelMachineKeys {
        ModelMachineKeys {
            instant_clock: config.clock,
            ..ModelMachineKeys::default()
        }
    }
}
