//! What a model kind is to the rest of ticklab: one trait for its `[model]` table and how it
//! runs, summarises and draws, and the one list of kinds scenario files can name.
//!
//! Adding a kind is a folder under `src/` that implements [`Model`] for a unit type and
//! [`ModelConfig`] for its validated table, plus one line in [`KINDS`]; scenario files, `check`,
//! `sweep`, `plot` and `report` then take it like any other.

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::expect::{ExpectSchema, Metric};
use crate::plot::PlotError;
use crate::plot::collect::Collected;
use crate::plot::style::Area;
use crate::profile::CostProfile;
use crate::registry::Registry;
use crate::run::{RunError, RunOptions};
use crate::scenario::{Located, Scenario, ScenarioError};
use crate::trace::{Summary, TraceSink};

/// The model kinds scenario files can name, one line each.
pub static KINDS: &[&dyn ModelKind] = &[
    &Kind::<crate::interval::IntervalModel>::NEW,
    &Kind::<crate::timer::TimerModel>::NEW,
    &Kind::<crate::executor::ExecutorModel>::NEW,
    &Kind::<crate::lock::LockModel>::NEW,
    &Kind::<crate::idle::IdleModel>::NEW,
    &Kind::<crate::hosts::HostsModel>::NEW,
];

/// The kind called `name`.
pub fn kind(name: &str) -> Option<&'static dyn ModelKind> {
    KINDS.iter().copied().find(|kind| kind.name() == name)
}

/// The names of every kind, as scenario files write them.
pub fn kind_names() -> Vec<&'static str> {
    KINDS.iter().map(|kind| kind.name()).collect()
}

/// What validating a model's `[model]` table needs besides the table.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    pub run_for_ns: u64,
    pub registry: &'a Registry,
}

/// A model kind, written once per folder.
pub trait Model: Sync + 'static {
    /// `kind = "<KIND>"` in `[model]`.
    const KIND: &'static str;
    /// One line on what the model is.
    const ABOUT: &'static str;
    /// The `[model]` table as TOML gives it: a serde struct that denies unknown fields.
    type Spec: DeserializeOwned;
    type Config: ModelConfig;

    /// Checks the table, with errors located in `file`.
    fn validate(
        file: &Located<'_>,
        spec: &Self::Spec,
        head: &Head<'_>,
    ) -> Result<Self::Config, ScenarioError>;

    /// What its summary reports, and what `[expect]` can bound.
    fn metrics() -> &'static [Metric];

    /// The metrics of each named part (a task group, a strategy) and what a part is called.
    fn part_metrics() -> (&'static [Metric], &'static str) {
        (&[], "part")
    }
}

/// A model's validated `[model]` table: how it runs, what `[expect]` may bound, how it is drawn.
pub trait ModelConfig: fmt::Debug + Send + Sync + Any {
    fn kind(&self) -> &'static str;

    /// The metrics `[expect]` may bound, and the named parts with their own.
    fn expect_schema(&self) -> ExpectSchema<'_>;

    /// Runs the model on the scenario's machine, streaming its trace into `sink`.
    fn run(
        &self,
        scenario: &Scenario,
        seed: u64,
        options: &RunOptions,
        sink: &mut dyn TraceSink,
    ) -> Result<Summary, RunError>;

    /// What the table itself says about the machine: the `[model]` keys older scenario files
    /// use for what `[machine]` now says.
    fn machine_keys(&self) -> crate::machine::ModelMachineKeys {
        crate::machine::ModelMachineKeys::default()
    }

    /// The cost profile it charges system calls from, if it uses one.
    fn profile(&self) -> Option<&CostProfile> {
        None
    }

    /// The same model charging system calls from `profile`, if it uses a profile.
    fn with_profile(&self, _profile: CostProfile) -> Option<ModelSetup> {
        None
    }

    /// How tall its drawing is, given what the run left to draw.
    fn plot_height_px(&self, collected: &Collected) -> u32;

    /// Draws a finished run.
    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError>;

    /// Itself, to be compared with another table of the same kind.
    fn as_any(&self) -> &dyn Any;

    fn same_as(&self, other: &dyn ModelConfig) -> bool;
}

/// Implements [`ModelConfig::as_any`] and [`ModelConfig::same_as`] for a config that is
/// `PartialEq`.
macro_rules! config_identity {
    () => {
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }

        fn same_as(&self, other: &dyn $crate::model::ModelConfig) -> bool {
            other.as_any().downcast_ref::<Self>() == Some(self)
        }
    };
}

pub(crate) use config_identity;

/// A scenario's validated `[model]` table, whatever its kind.
#[derive(Clone)]
pub struct ModelSetup(Arc<dyn ModelConfig>);

impl ModelSetup {
    pub fn new(config: impl ModelConfig) -> Self {
        ModelSetup(Arc::new(config))
    }

    /// The table as its own kind's config, if it is of that kind.
    pub fn config<T: ModelConfig>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }
}

impl std::ops::Deref for ModelSetup {
    type Target = dyn ModelConfig;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl fmt::Debug for ModelSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for ModelSetup {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_as(&*other.0)
    }
}

impl Eq for ModelSetup {}

/// A model kind as the registry holds it: [`Model`] without its types.
pub trait ModelKind: Sync {
    fn name(&self) -> &'static str;
    fn about(&self) -> &'static str;

    /// Parses and validates a whole scenario file of this kind.
    fn parse(&self, file: &Located<'_>, registry: &Registry) -> Result<Scenario, ScenarioError>;

    /// The keys its `[model]` table takes, for checking the docs.
    fn keys(&self) -> &'static [&'static str];

    fn metrics(&self) -> &'static [Metric];

    fn part_metrics(&self) -> (&'static [Metric], &'static str);
}

/// A [`Model`] as a [`ModelKind`].
pub struct Kind<M>(PhantomData<fn() -> M>);

impl<M: Model> fmt::Debug for Kind<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kind({})", M::KIND)
    }
}

impl<M> Kind<M> {
    pub const NEW: Kind<M> = Kind(PhantomData);
}

impl<M: Model> ModelKind for Kind<M> {
    fn name(&self) -> &'static str {
        M::KIND
    }

    fn about(&self) -> &'static str {
        M::ABOUT
    }

    fn parse(&self, file: &Located<'_>, registry: &Registry) -> Result<Scenario, ScenarioError> {
        crate::scenario::parse_kind::<M>(file, registry)
    }

    fn keys(&self) -> &'static [&'static str] {
        crate::scenario::keys_of::<M::Spec>()
    }

    fn metrics(&self) -> &'static [Metric] {
        M::metrics()
    }

    fn part_metrics(&self) -> (&'static [Metric], &'static str) {
        M::part_metrics()
    }
}
