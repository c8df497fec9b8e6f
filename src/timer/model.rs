//! Timer threads under an RPC load, as a model kind.

use crate::expect::{ExpectSchema, Metric};
use crate::model::{Head, Model, RunContext};
use crate::runner::error::RunError;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::trace::Summary;

use super::spec::{TimerConfig, validate};
use super::{METRICS, runner};
use crate::timer::keys::TimerSpec;

/// Timer designs under RPC timeouts: `kind = "timer"`.
#[derive(Debug)]
pub struct TimerModel;

impl Model for TimerModel {
    const KIND: &'static str = "timer";
    const ABOUT: &'static str = "timer threads under RPC timeouts: clients arm a timeout per call and cancel it on the response";
    const KEYS: &'static KeyTable = &super::keys::MODEL;
    type Spec = TimerSpec;
    type Config = TimerConfig;

    fn validate(spec: &TimerSpec, head: &Head<'_>) -> Result<TimerConfig, ScenarioError> {
        validate(&head.file, head.registry, spec, head.run_for_ns)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }

    fn run(config: &TimerConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
        runner::run(run.setting, config, run.seed, run.options, run.sink)
    }

    /// The design's own metrics as well as every timer run's, and whose the others are.
    fn expect_schema(config: &TimerConfig) -> ExpectSchema<'_> {
        ExpectSchema {
            elsewhere: &config.metrics_elsewhere,
            ..ExpectSchema::flat(&config.metrics)
        }
    }
}
