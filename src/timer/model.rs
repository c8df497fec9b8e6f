//! Timer threads under an RPC load, as a model kind.

use crate::expect::{ExpectSchema, Metric};
use crate::model::{Head, Model, ModelConfig, config_identity};
use crate::plot::PlotError;
use crate::plot::collect::Collected;
use crate::plot::style::{Area, PANEL_HEIGHT_PX, TITLE_HEIGHT_PX};
use crate::run::{RunError, RunOptions};
use crate::scenario::{Located, Scenario, ScenarioError};
use crate::trace::{Summary, TraceSink};

use super::spec::{TimerConfig, TimerSpec, validate};
use super::{METRICS, runner};

/// Timer designs under RPC timeouts: `kind = "timer"`.
#[derive(Debug)]
pub struct TimerModel;

impl Model for TimerModel {
    const KIND: &'static str = "timer";
    const ABOUT: &'static str = "timer threads under RPC timeouts: clients arm a timeout per call and cancel it on the response";
    type Spec = TimerSpec;
    type Config = TimerConfig;

    fn validate(
        file: &Located<'_>,
        spec: &TimerSpec,
        head: &Head<'_>,
    ) -> Result<TimerConfig, ScenarioError> {
        validate(file, head.registry, spec, head.run_for_ns)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }
}

impl ModelConfig for TimerConfig {
    fn kind(&self) -> &'static str {
        TimerModel::KIND
    }

    fn expect_schema(&self) -> ExpectSchema<'_> {
        ExpectSchema {
            elsewhere: &self.metrics_elsewhere,
            ..ExpectSchema::flat(&self.metrics)
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

    fn plot_height_px(&self, _: &Collected) -> u32 {
        TITLE_HEIGHT_PX + 4 * PANEL_HEIGHT_PX
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        crate::plot::timeline::draw(area, collected, "fire")
    }

    config_identity!();
}
