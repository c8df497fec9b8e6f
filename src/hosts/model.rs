//! Hosts on a network as a model kind.

use crate::expect::{ExpectSchema, Metric};
use crate::model::{Head, Model, RunContext};
use crate::runner::error::RunError;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::trace::Summary;

use super::spec::{HostsConfig, validate};
use super::{METRICS, run};
use crate::hosts::keys::HostsSpec;

/// Hosts with clocks of their own, on a network: `kind = "hosts"`.
#[derive(Debug)]
pub struct HostsModel;

impl Model for HostsModel {
    const KIND: &'static str = "hosts";
    const ABOUT: &'static str = "hosts on a network, each with its own clocks and faults, running leases, heartbeats and RPC deadlines";
    const KEYS: &'static KeyTable = &super::keys::MODEL;
    type Spec = HostsSpec;
    type Config = HostsConfig;

    fn validate(spec: &HostsSpec, head: &Head<'_>) -> Result<HostsConfig, ScenarioError> {
        validate(&head.file, spec, head)
    }

    fn metrics() -> &'static [Metric] {
        METRICS
    }

    fn run(config: &HostsConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
        run::run(run.setting, config, run.seed, run.options, run.sink)
    }

    /// The metrics of the workloads the file runs (leases, heartbeats, RPC deadlines).
    fn expect_schema(config: &HostsConfig) -> ExpectSchema<'_> {
        ExpectSchema::flat(&config.metrics)
    }
}
