//! The vocabulary of scenario files: what a validated scenario holds ([`Scenario`], [`Setting`]),
//! how a problem in a file is reported ([`ScenarioError`], [`Located`]), the values and key tables
//! every kind's `[model]` table is written in, and the raw shape of a file.
//!
//! Reading a file into a [`Scenario`] sits above the kinds and the registry, in
//! [`crate::loader`]: this module names no kind, and every kind may import it.

pub(crate) mod error;
pub(crate) mod explain;
pub(crate) mod faults;
pub(crate) mod key_struct;
pub mod key_table;
mod keys;
pub(crate) mod located;
pub(crate) mod numbers;
pub(crate) mod schema;
pub(crate) mod setting;
pub(crate) mod top_keys;
mod typed;
pub mod values;

use std::ops::{Deref, DerefMut};

pub use error::ScenarioError;
pub use explain::nearest;
pub use located::Located;
pub use setting::{Conditions, DEFAULT_WALL_START, Setting};

use crate::model::ModelSetup;

/// A validated scenario, in nanoseconds: a model in its setting. It reads as its [`Setting`]
/// (`scenario.seed`, `scenario.machine`) through `Deref`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Everything but the model: what a model's runner is given.
    pub setting: Setting,
    pub model: ModelSetup,
}

impl Deref for Scenario {
    type Target = Setting;

    fn deref(&self) -> &Setting {
        &self.setting
    }
}

impl DerefMut for Scenario {
    fn deref_mut(&mut self) -> &mut Setting {
        &mut self.setting
    }
}

impl Scenario {
    /// The cost profile the model charges system calls from, if it uses one.
    pub fn profile(&self) -> Option<&crate::profile::CostProfile> {
        self.model.kind().profile(&self.model)
    }

    /// Charges system calls from `profile` instead of the profile the file names. Returns false
    /// if the model charges nothing from a profile.
    pub fn use_profile(&mut self, profile: crate::profile::CostProfile) -> bool {
        match self.model.kind().with_profile(&self.model, profile) {
            Some(model) => {
                self.model = model;
                true
            }
            None => false,
        }
    }
}

impl Scenario {
    /// The scenario without its model, machine and expectations.
    pub fn conditions(&self) -> Conditions {
        self.setting.conditions.clone()
    }
}

/// The keys a `[model]` table of spec `T` takes, as serde knows them.
pub(crate) fn keys_of<T: serde::de::DeserializeOwned>() -> &'static [&'static str] {
    keys::fields_of::<T>()
}
