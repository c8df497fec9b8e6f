//! What a model kind is to the rest of ticklab: the one trait a kind implements, for its
//! `[model]` table and how it runs and summarises, and the handle a scenario keeps of its table.
//!
//! A kind is a folder under `src/` whose `model.rs` implements [`Model`] for a unit type; its
//! validated table (its `Config`) is plain data that only derives `Debug` and `PartialEq`. A kind
//! with a picture also implements [`crate::plot::Draw`] for its config, and one line in
//! [`crate::registry::KINDS`] lets scenario files name it. `check`, `sweep`, `plot` and `report`
//! then take it like any other, through [`ModelKind`]: the trait with its types erased, which
//! [`Kind`] implements once for every kind. A [`ModelSetup`] is a table with its kind.
//!
//! This file names only what the trait's signatures need, each from the file that defines it, so
//! that nothing it imports depends on it: the kinds, the registry, scenario files and the runners
//! all build on it, never the other way round (`tests/imports.rs` keeps it so).

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Deserialize;
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

/// A model kind with its types erased, as the registry lists it and as a [`ModelSetup`] keeps
/// it: [`Model`]'s one mirror. [`Kind`] is its one implementation, so a method added to
/// [`Model`] is written here and there, and nowhere else.
///
/// The methods that read a table take its [`ModelSetup`], which must be of this kind: the one
/// its [`ModelSetup::kind`] gives.
pub trait ModelKind: Sync {
    /// See [`Model::KIND`].
    fn name(&self) -> &'static str;

    /// See [`Model::ABOUT`].
    fn about(&self) -> &'static str;

    /// Its `[model]` keys, documented: see [`Model::KEYS`].
    fn key_table(&self) -> &'static KeyTable;

    /// See [`Model::metrics`].
    fn metrics(&self) -> &'static [Metric];

    /// See [`Model::part_metrics`].
    fn part_metrics(&self) -> (&'static [Metric], &'static str);

    /// Turns the `[model]` table of `file`, a file of this kind, into the model's setup; the
    /// rest of the file is the loader's.
    fn setup(&self, file: &Located<'_>, head: &Head<'_>) -> Result<ModelSetup, ScenarioError>;

    /// See [`Model::expect_schema`].
    fn expect_schema<'a>(&self, setup: &'a ModelSetup) -> ExpectSchema<'a>;

    /// See [`Model::run`].
    fn run(&self, setup: &ModelSetup, run: RunContext<'_>) -> Result<Summary, RunError>;

    /// See [`Model::machine_keys`].
    fn machine_keys(&self, setup: &ModelSetup) -> ModelMachineKeys;

    /// See [`Model::profile`].
    fn profile<'a>(&self, setup: &'a ModelSetup) -> Option<&'a CostProfile>;

    /// See [`Model::with_profile`].
    fn with_profile(&self, setup: &ModelSetup, profile: CostProfile) -> Option<ModelSetup>;
}

/// A file's `[model]` table alone, as its kind reads it; the loader reads the rest.
#[derive(Deserialize)]
struct ModelTable<S> {
    model: S,
}

/// A [`Model`] as a [`ModelKind`].
pub struct Kind<M>(PhantomData<fn() -> M>);

impl<M> Kind<M> {
    pub const NEW: Kind<M> = Kind(PhantomData);
}

impl<M: Model> Kind<M> {
    /// The kind as a `'static` [`ModelKind`], which a setup of it keeps.
    pub const fn erased() -> &'static dyn ModelKind {
        const { &Kind::<M>::NEW }
    }

    /// The config of `setup`, which is of this kind.
    fn config(setup: &ModelSetup) -> &M::Config {
        match setup.config::<M::Config>() {
            Some(config) if setup.kind().name() == M::KIND => config,
            // Two kinds may share a config type: the kind's name tells them apart.
            _ => panic!(
                "a `{}` setup was given to the `{}` kind, which reads only its own",
                setup.kind().name(),
                M::KIND
            ),
        }
    }
}

impl<M: Model> fmt::Debug for Kind<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kind({})", M::KIND)
    }
}

impl<M: Model> ModelKind for Kind<M> {
    fn name(&self) -> &'static str {
        M::KIND
    }

    fn about(&self) -> &'static str {
        M::ABOUT
    }

    fn key_table(&self) -> &'static KeyTable {
        M::KEYS
    }

    fn metrics(&self) -> &'static [Metric] {
        M::metrics()
    }

    fn part_metrics(&self) -> (&'static [Metric], &'static str) {
        M::part_metrics()
    }

    fn setup(&self, file: &Located<'_>, head: &Head<'_>) -> Result<ModelSetup, ScenarioError> {
        let raw: ModelTable<M::Spec> = file.parse()?;
        Ok(ModelSetup::new::<M>(M::validate(&raw.model, head)?))
    }

    fn expect_schema<'a>(&self, setup: &'a ModelSetup) -> ExpectSchema<'a> {
        M::expect_schema(Self::config(setup))
    }

    fn run(&self, setup: &ModelSetup, run: RunContext<'_>) -> Result<Summary, RunError> {
        M::run(Self::config(setup), run)
    }

    fn machine_keys(&self, setup: &ModelSetup) -> ModelMachineKeys {
        M::machine_keys(Self::config(setup))
    }

    fn profile<'a>(&self, setup: &'a ModelSetup) -> Option<&'a CostProfile> {
        M::profile(Self::config(setup))
    }

    fn with_profile(&self, setup: &ModelSetup, profile: CostProfile) -> Option<ModelSetup> {
        M::with_profile(Self::config(setup), profile).map(ModelSetup::new::<M>)
    }
}

/// A scenario's validated `[model]` table, whatever its kind, with its kind: the methods that
/// read it are its kind's, `setup.kind().run(&setup, ..)`.
#[derive(Clone)]
pub struct ModelSetup {
    kind: &'static dyn ModelKind,
    config: Arc<dyn Config>,
}

impl ModelSetup {
    /// The table `config` of kind `M`.
    pub fn new<M: Model>(config: M::Config) -> Self {
        ModelSetup {
            kind: Kind::<M>::erased(),
            config: Arc::new(config),
        }
    }

    /// Its kind, whose methods read it.
    pub fn kind(&self) -> &'static dyn ModelKind {
        self.kind
    }

    /// The table as its own kind's config, if it is of that kind.
    pub fn config<T: Any>(&self) -> Option<&T> {
        self.config.as_any().downcast_ref::<T>()
    }
}

impl fmt::Debug for ModelSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.config, f)
    }
}

impl PartialEq for ModelSetup {
    fn eq(&self, other: &Self) -> bool {
        self.kind.name() == other.kind.name() && self.config.same_as(other.config.as_any())
    }
}

impl Eq for ModelSetup {}

/// What a [`ModelSetup`] needs of any kind's config, which [`Model::Config`] promises: `Debug`
/// and `PartialEq` behind a pointer.
trait Config: fmt::Debug + Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn same_as(&self, other: &dyn Any) -> bool;
}

impl<T: fmt::Debug + PartialEq + Send + Sync + 'static> Config for T {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same_as(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
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

    /// Another kind with the same config type, whose tables are still not a counter's.
    struct Tally;

    impl Model for Tally {
        const KIND: &'static str = "tally";
        const ABOUT: &'static str = "tallies";
        const KEYS: &'static KeyTable = &COUNTER_KEYS;
        type Spec = u64;
        type Config = CounterConfig;

        fn validate(count: &u64, head: &Head<'_>) -> Result<CounterConfig, ScenarioError> {
            Counter::validate(count, head)
        }

        fn metrics() -> &'static [Metric] {
            COUNTER_METRICS
        }

        fn run(config: &CounterConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
            Counter::run(config, run)
        }
    }

    #[test]
    fn tables_of_two_kinds_differ_though_their_configs_are_equal() {
        let counter = ModelSetup::new::<Counter>(CounterConfig { count: 1 });
        let tally = ModelSetup::new::<Tally>(CounterConfig { count: 1 });
        assert_ne!(counter, tally);
        assert_eq!(tally.kind().name(), "tally");
    }

    #[test]
    #[should_panic(expected = "a `tally` setup was given to the `counter` kind")]
    fn a_kind_refuses_a_table_of_another_kind() {
        let tally = ModelSetup::new::<Tally>(CounterConfig { count: 1 });
        let counter_kind = Kind::<Counter>::erased();
        let _ = counter_kind.machine_keys(&tally);
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
        let kind = setup.kind();
        assert_eq!(kind.name(), "counter");
        assert_eq!(kind.about(), "counts");
        assert_eq!(kind.metrics(), COUNTER_METRICS);
        assert_eq!(kind.part_metrics(), (&[][..], "part"));
        let schema = kind.expect_schema(&setup);
        assert_eq!(schema.metrics, COUNTER_METRICS);
        assert!(schema.groups.is_empty());
        assert_eq!(kind.machine_keys(&setup), ModelMachineKeys::default());
        assert!(kind.profile(&setup).is_none());
        let profile = crate::profile::parse("reference", crate::profile::REFERENCE).unwrap();
        assert!(kind.with_profile(&setup, profile).is_none());
    }
}
