//! The work-stealing executor as a model kind.

use crate::expect::{ExpectSchema, Metric};
use crate::machine::ModelMachineKeys;
use crate::model::{Head, Model, RunContext};
use crate::runner::error::RunError;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::trace::Summary;

use super::spec::{ExecutorConfig, validate};
use super::{GROUP_METRICS, METRICS, runner};
use crate::executor::keys::ExecutorSpec;

/// tokio's multi-thread scheduler running task groups: `kind = "executor"`.
#[derive(Debug)]
pub struct ExecutorModel;

impl Model for ExecutorModel {
    const KIND: &'static str = "executor";
    const ABOUT: &'static str =
        "tokio's work-stealing scheduler: runtimes of workers running task groups made of steps";
    const KEYS: &'static KeyTable = &super::keys::MODEL;
    type Spec = ExecutorSpec;
    type Config = ExecutorConfig;

    fn validate(spec: &ExecutorSpec, head: &Head<'_>) -> Result<ExecutorConfig, ScenarioError> {
        validate(&head.file, spec, head.registry)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }

    fn run(config: &ExecutorConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
        runner::run(run.setting, config, run.seed, run.options, run.sink)
    }

    fn part_metrics() -> (&'static [Metric], &'static str) {
        (GROUP_METRICS, "task group")
    }

    fn expect_schema(config: &ExecutorConfig) -> ExpectSchema<'_> {
        ExpectSchema {
            metrics: &config.metrics,
            groups: config
                .groups
                .iter()
                .map(|group| group.name.as_str())
                .collect(),
            group_metrics: GROUP_METRICS,
            group_noun: "task group",
            elsewhere: &config.metrics_elsewhere,
        }
    }

    fn machine_keys(config: &ExecutorConfig) -> ModelMachineKeys {
        ModelMachineKeys {
            cores: config.cores,
            time_slice_ns: config.time_slice_ns,
            instant_clock: None,
        }
    }
}
