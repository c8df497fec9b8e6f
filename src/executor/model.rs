//! The work-stealing executor as a model kind.

use crate::expect::{ExpectSchema, Metric};
use crate::machine::ModelMachineKeys;
use crate::model::{Head, Model, ModelConfig, config_identity};
use crate::plot::PlotError;
use crate::plot::collect::Collected;
use crate::plot::style::Area;
use crate::run::{RunError, RunOptions};
use crate::scenario::{Located, Scenario, ScenarioError};
use crate::trace::{Summary, TraceSink};

use super::spec::{ExecutorConfig, ExecutorSpec, validate};
use super::{GROUP_METRICS, METRICS, runner};

/// tokio's multi-thread scheduler running task groups: `kind = "executor"`.
#[derive(Debug)]
pub struct ExecutorModel;

impl Model for ExecutorModel {
    const KIND: &'static str = "executor";
    const ABOUT: &'static str =
        "tokio's work-stealing scheduler: runtimes of workers running task groups made of steps";
    type Spec = ExecutorSpec;
    type Config = ExecutorConfig;

    fn validate(
        file: &Located<'_>,
        spec: &ExecutorSpec,
        _: &Head<'_>,
    ) -> Result<ExecutorConfig, ScenarioError> {
        validate(file, spec)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }

    fn part_metrics() -> (&'static [Metric], &'static str) {
        (GROUP_METRICS, "task group")
    }
}

impl ModelConfig for ExecutorConfig {
    fn kind(&self) -> &'static str {
        ExecutorModel::KIND
    }

    fn expect_schema(&self) -> ExpectSchema<'_> {
        ExpectSchema {
            metrics: METRICS,
            groups: self
                .groups
                .iter()
                .map(|group| group.name.as_str())
                .collect(),
            group_metrics: GROUP_METRICS,
            group_noun: "task group",
            elsewhere: &[],
        }
    }

    fn run(
        &self,
        scenario: &Scenario,
        seed: u64,
        options: &RunOptions,
        sink: &mut dyn TraceSink,
    ) -> Result<Summary, RunError> {
        runner::run(scenario, self, seed, options, sink)
    }

    fn machine_keys(&self) -> ModelMachineKeys {
        ModelMachineKeys {
            cores: self.cores,
            time_slice_ns: self.time_slice_ns,
        }
    }

    fn plot_height_px(&self, collected: &Collected) -> u32 {
        crate::plot::executor::height_px(collected)
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        crate::plot::executor::draw(area, collected)
    }

    config_identity!();
}
