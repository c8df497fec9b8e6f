//! The model kinds scenario files can name, one line each, and each kind as the registry holds
//! it: its [`Model`] without its types, and its drawing if it has one.

use std::fmt;
use std::marker::PhantomData;

use crate::expect::metric::Metric;
use crate::model::{Head, Model, ModelSetup};
use crate::plot::draw::Draw;
use crate::scenario::error::ScenarioError;
use crate::scenario::key_table::KeyTable;
use crate::scenario::located::Located;
use crate::scenario::schema::ModelTable;

/// The model kinds scenario files can name, one line each: [`Kind::DRAWN`] for a kind whose
/// config implements [`Draw`], [`Kind::NEW`] for one without a picture.
pub static KINDS: &[&dyn ModelKind] = &[
    &Kind::<crate::interval::IntervalModel>::DRAWN,
    &Kind::<crate::timer::TimerModel>::DRAWN,
    &Kind::<crate::executor::ExecutorModel>::DRAWN,
    &Kind::<crate::lock::LockModel>::DRAWN,
    &Kind::<crate::idle::IdleModel>::DRAWN,
    &Kind::<crate::hosts::HostsModel>::DRAWN,
];

/// The kind called `name`.
pub fn kind(name: &str) -> Option<&'static dyn ModelKind> {
    KINDS.iter().copied().find(|kind| kind.name() == name)
}

/// The names of every kind, as scenario files write them.
pub fn kind_names() -> Vec<&'static str> {
    KINDS.iter().map(|kind| kind.name()).collect()
}

/// A model kind as the registry holds it: [`Model`] without its types.
pub trait ModelKind: Sync {
    fn name(&self) -> &'static str;
    fn about(&self) -> &'static str;

    /// Turns the `[model]` table of `file`, a file of this kind, into the model's setup; the
    /// rest of the file is the loader's.
    fn setup(&self, file: &Located<'_>, head: &Head<'_>) -> Result<ModelSetup, ScenarioError>;

    /// The keys its `[model]` table takes, for checking the docs.
    fn keys(&self) -> &'static [&'static str];

    fn metrics(&self) -> &'static [Metric];

    /// Its `[model]` keys, documented.
    fn key_table(&self) -> &'static KeyTable;

    fn part_metrics(&self) -> (&'static [Metric], &'static str);

    /// Whether its runs can be drawn: whether `ticklab plot` takes it.
    fn has_picture(&self) -> bool;

    /// How `setup`, a table of this kind, is drawn; `None` for a kind without a picture.
    fn drawing<'a>(&self, setup: &'a ModelSetup) -> Option<&'a dyn Draw>;
}

/// How a kind finds the drawing of a table of its own.
type DrawingOf = for<'a> fn(&'a ModelSetup) -> Option<&'a dyn Draw>;

/// A [`Model`] as a [`ModelKind`].
pub struct Kind<M> {
    drawing: Option<DrawingOf>,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> fmt::Debug for Kind<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kind({})", M::KIND)
    }
}

impl<M> Kind<M> {
    /// A kind without a picture: `ticklab plot` says it has none.
    pub const NEW: Kind<M> = Kind {
        drawing: None,
        model: PhantomData,
    };
}

impl<M: Model> Kind<M>
where
    M::Config: Draw,
{
    /// A kind whose config draws its runs.
    pub const DRAWN: Kind<M> = Kind {
        drawing: Some(drawing_of::<M>),
        model: PhantomData,
    };
}

fn drawing_of<M: Model>(setup: &ModelSetup) -> Option<&dyn Draw>
where
    M::Config: Draw,
{
    setup
        .config::<M::Config>()
        .map(|config| config as &dyn Draw)
}

impl<M: Model> ModelKind for Kind<M> {
    fn name(&self) -> &'static str {
        M::KIND
    }

    fn about(&self) -> &'static str {
        M::ABOUT
    }

    fn setup(&self, file: &Located<'_>, head: &Head<'_>) -> Result<ModelSetup, ScenarioError> {
        let raw: ModelTable<M::Spec> = file.parse()?;
        Ok(ModelSetup::new::<M>(M::validate(&raw.model, head)?))
    }

    fn keys(&self) -> &'static [&'static str] {
        crate::scenario::keys_of::<M::Spec>()
    }

    fn metrics(&self) -> &'static [Metric] {
        M::metrics()
    }

    fn key_table(&self) -> &'static KeyTable {
        M::KEYS
    }

    fn part_metrics(&self) -> (&'static [Metric], &'static str) {
        M::part_metrics()
    }

    fn has_picture(&self) -> bool {
        self.drawing.is_some()
    }

    fn drawing<'a>(&self, setup: &'a ModelSetup) -> Option<&'a dyn Draw> {
        self.drawing.and_then(|drawing| drawing(setup))
    }
}
