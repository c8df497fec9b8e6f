//! The keys a design adds to a timer scenario's `[model]`, read from the file with their
//! positions and checked against what the design declares in `BuildTimerDesign::KEYS`.
//!
//! serde reads the keys every timer scenario shares; this reads the rest of the table, so that a
//! design from any crate can declare keys of its own without ticklab knowing them.

use std::collections::BTreeMap;

use serde::Deserialize;
use ticklab_models::timer::{DesignKey, KeyKind, KeyValue};
use toml::Spanned;

use crate::registry::designs::{Registry, TimerDesignEntry};
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::values::parse_duration_ns;

/// The `[model]` table as TOML gives it, each key and value with its position.
#[derive(Deserialize)]
struct RawFile {
    model: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
}

/// The design keys the file sets, validated, in the order the file writes them. `shared` are
/// the keys every timer scenario takes: any other key must be one the design declares.
pub(crate) fn read(
    file: &Located<'_>,
    registry: &Registry,
    design: &TimerDesignEntry,
    shared: &[&str],
) -> Result<Vec<(DesignKey, KeyValue)>, ScenarioError> {
    let raw: RawFile = file.parse()?;
    let mut entries: Vec<_> = raw
        .model
        .iter()
        .filter(|(key, _)| !shared.contains(&key.get_ref().as_str()))
        .collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    entries
        .into_iter()
        .map(|(key, value)| {
            let declared = design.keys.iter().find(|own| own.name == key.get_ref());
            match declared {
                Some(own) => Ok((*own, value_of(file, own, value)?)),
                None => Err(not_read(file, registry, design, shared, key)),
            }
        })
        .collect()
}

/// The error for a key the design does not declare: another design's, or a typo.
fn not_read(
    file: &Located<'_>,
    registry: &Registry,
    design: &TimerDesignEntry,
    shared: &[&str],
    key: &Spanned<String>,
) -> ScenarioError {
    let name = key.get_ref().as_str();
    let readers: Vec<&str> = registry
        .timer_designs()
        .filter(|entry| entry.reads(name))
        .map(|entry| entry.name)
        .collect();
    if !readers.is_empty() {
        return file
            .error(
                key.span(),
                format!("the {} design does not read `{name}`", design.name),
            )
            .with_hint(format!(
                "remove `{name}`, or pick a design that reads it: {}",
                readers.join(", ")
            ));
    }
    let valid: Vec<&str> = shared
        .iter()
        .copied()
        .filter(|key| *key != "kind")
        .chain(design.keys.iter().map(|own| own.name))
        .collect();
    let listed: Vec<String> = valid.iter().map(|key| format!("`{key}`")).collect();
    let hint = match crate::scenario::explain::nearest(name, &valid) {
        Some(best) => format!(
            "did you mean `{best}`? Valid keys here: {}",
            listed.join(", ")
        ),
        None => format!("valid keys here: {}", listed.join(", ")),
    };
    file.error(key.span(), format!("unknown key `{name}` in [model]"))
        .with_hint(hint)
}

/// A design key's value, checked against its kind.
fn value_of(
    file: &Located<'_>,
    key: &DesignKey,
    value: &Spanned<toml::Value>,
) -> Result<KeyValue, ScenarioError> {
    let name = key.name;
    let wrong = |message: String| file.error(value.span(), message).with_hint(key.about);
    match (key.kind, value.get_ref()) {
        (KeyKind::Count { min, max, .. }, toml::Value::Integer(count)) => {
            if (min..=max).contains(count) {
                Ok(KeyValue::Count(*count))
            } else {
                Err(wrong(format!("`{name}` must be between {min} and {max}")))
            }
        }
        (KeyKind::Duration { min_ns, .. }, toml::Value::String(text)) => {
            let ns = parse_duration_ns(text).map_err(|problem| {
                file.error(value.span(), problem.message)
                    .with_hint(problem.hint)
            })?;
            match u64::try_from(ns) {
                Ok(ns) if ns >= min_ns => Ok(KeyValue::DurationNs(ns)),
                _ if min_ns <= 1 => Err(wrong(format!("`{name}` must be more than zero"))),
                _ => Err(wrong(format!(
                    "`{name}` must be at least {}",
                    ticklab_sim::Approx(min_ns)
                ))),
            }
        }
        (KeyKind::Choice { names, .. }, toml::Value::String(text)) => {
            match names.iter().find(|known| *known == text) {
                Some(known) => Ok(KeyValue::Choice(known)),
                None => {
                    let hint = match crate::scenario::explain::nearest(text, names) {
                        Some(best) => {
                            format!("did you mean \"{best}\"? `{name}` takes {}", key.takes())
                        }
                        None => format!("`{name}` takes {}", key.takes()),
                    };
                    Err(file
                        .error(
                            value.span(),
                            format!("unknown value \"{text}\" for `{name}`"),
                        )
                        .with_hint(hint))
                }
            }
        }
        (kind, other) => {
            let written = other.to_string();
            let kind_of = other.type_str();
            let (message, hint) = match kind {
                // A Go release or any other name that TOML read as a number ("1.20" reads
                // as 1.2).
                KeyKind::Choice { names, .. } if as_name(names, other).is_some() => (
                    format!("`{name}` takes a name in quotes, not {kind_of} `{written}`"),
                    format!(
                        "write it in quotes: {name} = \"{}\"",
                        as_name(names, other).unwrap_or(&written)
                    ),
                ),
                _ => (
                    format!("`{name}` takes {}, not {kind_of} `{written}`", key.takes()),
                    key.about.to_string(),
                ),
            };
            Err(file.error(value.span(), message).with_hint(hint))
        }
    }
}

/// The name among `names` that TOML read as the number `value`, if any.
fn as_name<'n>(names: &[&'n str], value: &toml::Value) -> Option<&'n str> {
    let number = match value {
        toml::Value::Float(number) => *number,
        toml::Value::Integer(number) => *number as f64,
        _ => return None,
    };
    names
        .iter()
        .copied()
        .find(|name| name.parse::<f64>() == Ok(number))
}
