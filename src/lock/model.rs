//! The fork-lock convoy as a model kind.

use crate::expect::{ExpectSchema, Metric};
use crate::machine::ModelMachineKeys;
use crate::model::{Head, Model, ModelConfig, ModelSetup, config_identity};
use crate::plot::PlotError;
use crate::plot::collect::Collected;
use crate::plot::style::{Area, PANEL_HEIGHT_PX, TITLE_HEIGHT_PX};
use crate::profile::CostProfile;
use crate::run::{RunError, RunOptions};
use crate::scenario::{Located, Scenario, ScenarioError};
use crate::trace::{Summary, TraceSink};

use super::spec::{LockConfig, LockSpec, validate};
use super::{METRICS, runner};

/// Threads spawning commands under a process-wide lock: `kind = "lock"`.
#[derive(Debug)]
pub struct LockModel;

impl Model for LockModel {
    const KIND: &'static str = "lock";
    const ABOUT: &'static str =
        "threads that spawn commands under a process-wide lock, with readers and busy threads";
    type Spec = LockSpec;
    type Config = LockConfig;

    fn validate(
        file: &Located<'_>,
        spec: &LockSpec,
        head: &Head<'_>,
    ) -> Result<LockConfig, ScenarioError> {
        validate(file, spec, head.run_for_ns)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }
}

impl ModelConfig for LockConfig {
    fn kind(&self) -> &'static str {
        LockModel::KIND
    }

    fn expect_schema(&self) -> ExpectSchema<'_> {
        ExpectSchema::flat(METRICS)
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

    fn profile(&self) -> Option<&CostProfile> {
        Some(&self.profile)
    }

    fn with_profile(&self, profile: CostProfile) -> Option<ModelSetup> {
        Some(ModelSetup::new(LockConfig {
            profile,
            ..self.clone()
        }))
    }

    fn plot_height_px(&self, _: &Collected) -> u32 {
        TITLE_HEIGHT_PX + 2 * PANEL_HEIGHT_PX
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        crate::plot::cpu_models::draw_lock(area, collected)
    }

    config_identity!();
}
