//! The raw shape of a scenario file, exactly as TOML gives it. Validation turns it into a
//! [`Scenario`](super::Scenario).

use std::collections::BTreeMap;

use serde::Deserialize;
use ticklab_sim::{ClockId, FaultKind, Platform};
use toml::Spanned;

use super::values::{DurationNs, Name, SignedDurationNs};

/// Top-level keys every scenario has; `M` is the model's own `[model]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a scenario")]
pub(crate) struct ScenarioFile<M> {
    pub about: String,
    pub platform: Name<Platform>,
    pub instant_clock: Option<Name<ClockId>>,
    pub seed: Option<Spanned<i64>>,
    pub run_for: Spanned<DurationNs>,
    pub wall_start: Option<Spanned<String>>,
    pub model: M,
    #[serde(default, rename = "fault")]
    pub faults: Vec<Spanned<FaultSpec>>,
    pub expect: Option<ExpectTable>,
}

/// `[expect]` is checked against the model's metrics after parsing, so that its keys can be
/// validated with positions and suggestions like every other key.
pub(crate) type ExpectTable = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// One `[[fault]]` table; which keys apply depends on `kind`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [[fault]] table")]
pub(crate) struct FaultSpec {
    pub kind: Name<FaultKind>,
    pub at: Spanned<DurationNs>,
    pub duration: Option<Spanned<DurationNs>>,
    pub by: Option<Spanned<SignedDurationNs>>,
    pub rate: Option<Spanned<f64>>,
}

/// Just enough of a file to learn which model it is for.
#[derive(Debug, Deserialize)]
pub(crate) struct ModelProbe {
    pub model: ModelKindProbe,
}

#[derive(Debug, Deserialize)]
#[serde(expecting = "a [model] table with a `kind`")]
pub(crate) struct ModelKindProbe {
    pub kind: Spanned<String>,
}
