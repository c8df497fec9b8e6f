//! What a model kind is to the rest of ticklab: the one trait a kind implements, for its
//! `[model]` table and how it runs and summarises, and the handle a scenario keeps of its table.
//!
//! A kind is a folder under `src/` whose `model.rs` implements [`Model`] for a unit type; its
//! validated table (its `Config`) is plain data that only derives `Debug` and `PartialEq`. A kind
//! with a picture also implements [`crate::plot::Draw`] for its config, and one line in
//! [`crate::registry::KINDS`] lets scenario files name it. `check`, `sweep`, `plot` and `report`
//! then take it like any other.
//!
//! This file names only what the trait's signatures need, each from the file that defines it, so
//! that nothing it imports depends on it: the kinds, the registry, scenario files and the runners
//! all build on it, never the other way round (`tests/imports.rs` keeps it so).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::expect::metric::{ExpectSchema, Metric};
use crate::machine::config::ModelMachineKeys;
use crate::profile::CostProfile;
use crate::registry::designs::Registry;
use crate::runner::error::RunError;
use crate::runner::options::RunOptions;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::scenario::located::Located;
use crate::scenario::setting::Setting;
use crate::trace::{Summary, TraceSink};

/// What validating a model's `[model]` table needs besides the table.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    /// The scenario file, which errors point into.
    pub file: Located<'a>,
    pub run_for_ns: u64,
    /// The scenario's `wall_start`, in nanoseconds since 1970: where wall clocks start.
    pub wall_start_ns: i64,
    pub registry: &'a Registry,
}

/// What a run of a model is given besides its table.
pub struct RunContext<'a> {
    pub setting: &'a Setting,
    /// The seed of this run: the scenario's, or one given in its place.
    pub seed: u64,
    pub options: &'a RunOptions,
    /// Where the run streams its trace.
    pub sink: &'a mut dyn TraceSink,
}

impl fmt::Debug for RunContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunContext")
            .field("setting", &self.setting.source)
            .field("seed", &self.seed)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A model kind, written once per folder: its name, its `[model]` table and how it checks it,
/// what it reports, and how it runs.
///
/// The methods past [`Model::run`] have defaults that fit a kind without named parts, without
/// machine keys of its own and without a cost profile.
pub trait Model: Sync + 'static {
    /// `kind = "<KIND>"` in `[model]`.
    const KIND: &'static str;
    /// One line on what the model is.
    const ABOUT: &'static str;
    /// Its `[model]` keys with their types, defaults and ranges, from which the reference pages
    /// and the scenario schema are written (`src/<kind>/keys.rs`).
    const KEYS: &'static KeyTable;
    /// The `[model]` table as TOML gives it: a serde struct that denies unknown fields.
    type Spec: DeserializeOwned;
    /// The table once checked. Two scenarios have the same model when their configs are equal.
    type Config: fmt::Debug + PartialEq + Send + Sync + 'static;

    /// Checks the table, with errors located in `head.file`.
    fn validate(spec: &Self::Spec, head: &Head<'_>) -> Result<Self::Config, ScenarioError>;

    /// What its summary reports, and what `[expect]` can bound.
    fn metrics() -> &'static [Metric];

    /// Runs the model on the setting's machine, streaming its trace into the run's sink.
    fn run(config: &Self::Config, run: RunContext<'_>) -> Result<Summary, RunError>;

    /// The metrics of each named part (a task group, a strategy) and what a part is called.
    fn part_metrics() -> (&'static [Metric], &'static str) {
        (&[], "part")
    }

    /// What `[expect]` may bound for this table: its metrics, and its named parts with theirs.
    fn expect_schema(config: &Self::Config) -> ExpectSchema<'_> {
        let _ = config;
        ExpectSchema::flat(Self::metrics())
    }

    /// What the table itself says about the machine: the `[model]` keys older scenario files
    /// use for what `[machine]` now says.
    fn machine_keys(_config: &Self::Config) -> ModelMachineKeys {
        ModelMachineKeys::default()
    }

    /// The cost profile it charges system calls from, if it uses one.
    fn profile(_config: &Self::Config) -> Option<&CostProfile> {
        None
    }

    /// The same table charging system calls from `profile`, if it uses a profile.
    fn with_profile(_config: &Self::Config, _profile: CostProfile) -> Option<Self::Config> {
        None
    }
}

/// A scenario's validated `[model]` table, whatever its kind, with its kind's methods.
#[derive(Clone)]
pub struct ModelSetup(Arc<dyn AnyConfig>);

impl ModelSetup {
    /// The table `config` of kind `M`.
    pub fn new<M: Model>(config: M::Config) -> Self {
        ModelSetup(Arc::new(Configured::<M>(config)))
    }

    /// The kind's name, as `kind = ".."` writes it.
    pub fn kind(&self) -> &'static str {
        self.0.kind()
    }

    /// See [`Model::expect_schema`].
    pub fn expect_schema(&self) -> ExpectSchema<'_> {
        self.0.expect_schema()
    }

    /// See [`Model::run`].
    pub fn run(
        &self,
        setting: &Setting,
        seed: u64,
        options: &RunOptions,
        sink: &mut dyn TraceSink,
    ) -> Result<Summary, RunError> {
        self.0.run(setting, seed, options, sink)
    }

    /// See [`Model::machine_keys`].
    pub fn machine_keys(&self) -> ModelMachineKeys {
        self.0.machine_keys()
    }

    /// See [`Model::profile`].
    pub fn profile(&self) -> Option<&CostProfile> {
        self.0.profile()
    }

    /// See [`Model::with_profile`].
    pub fn with_profile(&self, profile: CostProfile) -> Option<ModelSetup> {
        self.0.with_profile(profile)
    }

    /// The table as its own kind's config, if it is of that kind.
    pub fn config<T: Any>(&self) -> Option<&T> {
        self.0.config().downcast_ref::<T>()
    }
}

impl fmt::Debug for ModelSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}

impl PartialEq for ModelSetup {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_as(&*other.0)
    }
}

impl Eq for ModelSetup {}

/// A config bound to its kind, so that a [`ModelSetup`] can hold any kind's.
struct Configured<M: Model>(M::Config);

/// [`Model`]'s methods on a config of any kind; [`Configured`] is the one implementation, so no
/// kind writes its identity or its name twice.
trait AnyConfig: Send + Sync {
    fn kind(&self) -> &'static str;
    fn expect_schema(&self) -> ExpectSchema<'_>;
    fn run(
        &self,
        setting: &Setting,
        seed: u64,
        options: &RunOptions,
        sink: &mut dyn TraceSink,
    ) -> Result<Summary, RunError>;
    fn machine_keys(&self) -> ModelMachineKeys;
    fn profile(&self) -> Option<&CostProfile>;
    fn with_profile(&self, profile: CostProfile) -> Option<ModelSetup>;
    fn config(&self) -> &dyn Any;
    fn same_as(&self, other: &dyn AnyConfig) -> bool;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<M: Model> AnyConfig for Configured<M> {
    fn kind(&self) -> &'static str {
        M::KIND
    }

    fn expect_schema(&self) -> ExpectSchema<'_> {
        M::expect_schema(&self.0)
    }

    fn run(
        &self,
        setting: &Setting,
        seed: u64,
        options: &RunOptions,
        sink: &mut dyn TraceSink,
    ) -> Result<Summary, RunError> {
        let run = RunContext {
            setting,
            seed,
            options,
            sink,
        };
        M::run(&self.0, run)
    }

    fn machine_keys(&self) -> ModelMachineKeys {
        M::machine_keys(&self.0)
    }

    fn profile(&self) -> Option<&CostProfile> {
        M::profile(&self.0)
    }

    fn with_profile(&self, profile: CostProfile) -> Option<ModelSetup> {
        M::with_profile(&self.0, profile).map(ModelSetup::new::<M>)
    }

    fn config(&self) -> &dyn Any {
        &self.0
    }

    fn same_as(&self, other: &dyn AnyConfig) -> bool {
        other.kind() == M::KIND && other.config().downcast_ref::<M::Config>() == Some(&self.0)
    }

    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind that writes only what is its own, so every default shows.
    struct Counter;

    #[derive(Debug, PartialEq)]
    struct CounterConfig {
        count: u64,
    }

    const COUNTER_METRICS: &[Metric] = &[Metric::count("counted", "what it counted")];

    static COUNTER_KEYS: KeyTable = KeyTable {
        header: "[model]",
        about: "a count",
        keys: &[],
        serde_fields: || &[],
    };

    impl Model for Counter {
        const KIND: &'static str = "counter";
        const ABOUT: &'static str = "counts";
        const KEYS: &'static KeyTable = &COUNTER_KEYS;
        type Spec = u64;
        type Config = CounterConfig;

        fn validate(count: &u64, _: &Head<'_>) -> Result<CounterConfig, ScenarioError> {
            Ok(CounterConfig { count: *count })
        }

        fn metrics() -> &'static [Metric] {
            COUNTER_METRICS
        }

        fn run(config: &CounterConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
            let values = [config.count];
            let end_ns = run.setting.run_for_ns;
            Ok(Summary::new(
                Self::KIND,
                end_ns,
                COUNTER_METRICS,
                &values,
                Vec::new(),
            ))
        }
    }

    #[test]
    fn a_setup_is_equal_to_another_only_with_an_equal_config_of_the_same_kind() {
        let one = ModelSetup::new::<Counter>(CounterConfig { count: 1 });
        assert_eq!(one, ModelSetup::new::<Counter>(CounterConfig { count: 1 }));
        assert_ne!(one, ModelSetup::new::<Counter>(CounterConfig { count: 2 }));
        assert_eq!(
            one.config::<CounterConfig>(),
            Some(&CounterConfig { count: 1 })
        );
        assert_eq!(one.config::<u64>(), None);
        assert_eq!(format!("{one:?}"), "CounterConfig { count: 1 }");
    }

    #[test]
    fn a_kind_that_writes_no_defaults_gets_its_name_its_metrics_and_no_profile() {
        let setup = ModelSetup::new::<Counter>(CounterConfig { count: 3 });
        assert_eq!(setup.kind(), "counter");
        let schema = setup.expect_schema();
        assert_eq!(schema.metrics, COUNTER_METRICS);
        assert!(schema.groups.is_empty());
        assert_eq!(setup.machine_keys(), ModelMachineKeys::default());
        assert!(setup.profile().is_none());
        let profile = crate::profile::parse("reference", crate::profile::REFERENCE).unwrap();
        assert!(setup.with_profile(profile).is_none());
    }
}
