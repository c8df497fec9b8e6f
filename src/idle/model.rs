//! Idle event loops as a model kind.

use crate::expect::{ExpectSchema, Metric};
use crate::model::{Head, Model, RunContext};
use crate::profile::CostProfile;
use crate::runner::error::RunError;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::trace::Summary;

use super::spec::{IdleConfig, validate};
use super::{METRICS, STRATEGY_METRICS, runner};
use crate::idle::keys::IdleSpec;

/// An event loop idling under several strategies side by side: `kind = "idle"`.
#[derive(Debug)]
pub struct IdleModel;

impl Model for IdleModel {
    const KIND: &'static str = "idle";
    const ABOUT: &'static str =
        "an event loop waiting for events under each idle strategy, each on a core of its own";
    const KEYS: &'static KeyTable = &super::keys::MODEL;
    type Spec = IdleSpec;
    type Config = IdleConfig;

    fn validate(spec: &IdleSpec, head: &Head<'_>) -> Result<IdleConfig, ScenarioError> {
        validate(&head.file, spec)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }

    fn run(config: &IdleConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
        runner::run(run.setting, config, run.seed, run.options, run.sink)
    }

    fn part_metrics() -> (&'static [Metric], &'static str) {
        (STRATEGY_METRICS, "strategy")
    }

    fn expect_schema(config: &IdleConfig) -> ExpectSchema<'_> {
        ExpectSchema {
            metrics: METRICS,
            groups: config
                .strategies
                .iter()
                .map(|strategy| strategy.name())
                .collect(),
            group_metrics: STRATEGY_METRICS,
            group_noun: "strategy",
            elsewhere: &[],
        }
    }

    fn profile(config: &IdleConfig) -> Option<&CostProfile> {
        Some(&config.profile)
    }

    fn with_profile(config: &IdleConfig, profile: CostProfile) -> Option<IdleConfig> {
        Some(IdleConfig {
            profile,
            ..config.clone()
        })
    }
}
