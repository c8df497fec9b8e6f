//! The model kinds scenario files can name, one line each, with the drawing of each kind that has
//! a picture.

use crate::model::{Kind, Model, ModelKind, ModelSetup};
use crate::plot::draw::Draw;

/// The model kinds scenario files can name, one line each: [`KindEntry::drawn`] for a kind whose
/// config implements [`Draw`], [`KindEntry::undrawn`] for one without a picture.
pub static KINDS: &[KindEntry] = &[
    KindEntry::drawn::<crate::interval::IntervalModel>(),
    KindEntry::drawn::<crate::timer::TimerModel>(),
    KindEntry::drawn::<crate::executor::ExecutorModel>(),
    KindEntry::drawn::<crate::lock::LockModel>(),
    KindEntry::drawn::<crate::idle::IdleModel>(),
    KindEntry::drawn::<crate::hosts::HostsModel>(),
];

/// The kind called `name`.
pub fn kind(name: &str) -> Option<&'static dyn ModelKind> {
    KINDS
        .iter()
        .find(|entry| entry.kind.name() == name)
        .map(|entry| entry.kind)
}

/// The names of every kind, as scenario files write them.
pub fn kind_names() -> Vec<&'static str> {
    KINDS.iter().map(|entry| entry.kind.name()).collect()
}

/// How a kind finds the drawing of a table of its own.
type DrawingOf = for<'a> fn(&'a ModelSetup) -> Option<&'a dyn Draw>;

/// One kind of [`KINDS`]: the kind, and how its tables are drawn if it has a picture.
#[derive(Clone, Copy)]
pub struct KindEntry {
    pub kind: &'static dyn ModelKind,
    drawing: Option<DrawingOf>,
}

impl KindEntry {
    /// A kind whose config draws its runs.
    pub const fn drawn<M: Model>() -> KindEntry
    where
        M::Config: Draw,
    {
        KindEntry {
            kind: Kind::<M>::erased(),
            drawing: Some(drawing_of::<M>),
        }
    }

    /// A kind without a picture: `ticklab plot` says it has none.
    pub const fn undrawn<M: Model>() -> KindEntry {
        KindEntry {
            kind: Kind::<M>::erased(),
            drawing: None,
        }
    }

    /// Whether its runs can be drawn: whether `ticklab plot` takes it.
    pub fn has_picture(&self) -> bool {
        self.drawing.is_some()
    }

    /// How `setup`, a table of this kind, is drawn; `None` for a kind without a picture.
    pub fn drawing<'a>(&self, setup: &'a ModelSetup) -> Option<&'a dyn Draw> {
        self.drawing.and_then(|drawing| drawing(setup))
    }
}

/// An entry is its kind, with a drawing beside it.
impl std::ops::Deref for KindEntry {
    type Target = dyn ModelKind;

    fn deref(&self) -> &Self::Target {
        self.kind
    }
}

impl std::fmt::Debug for KindEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KindEntry")
            .field("kind", &self.kind.name())
            .field("has_picture", &self.has_picture())
            .finish()
    }
}

fn drawing_of<M: Model>(setup: &ModelSetup) -> Option<&dyn Draw>
where
    M::Config: Draw,
{
    setup
        .config::<M::Config>()
        .map(|config| config as &dyn Draw)
}
