//! The raw shape of a scenario file, exactly as TOML gives it. Validation turns it into a
//! [`Scenario`](super::Scenario).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// `[expect]` is checked against the model's metrics after parsing, so that its keys can be
/// validated with positions and suggestions like every other key.
pub(crate) type ExpectTable = BTreeMap<Spanned<String>, Spanned<ExpectEntry>>;

/// One entry of `[expect]`: a bound, or a sub-table of bounds for a named part such as
/// `[expect.flush]`, whose keys keep their own positions.
#[derive(Debug)]
pub(crate) enum ExpectEntry {
    Value(toml::Value),
    Group(BTreeMap<Spanned<String>, Spanned<toml::Value>>),
}

impl<'de> serde::Deserialize<'de> for ExpectEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ExpectEntryVisitor)
    }
}

/// Tables become groups with positioned keys; anything else is kept as TOML gave it, and
/// `[expect]` says later what it should have been.
struct ExpectEntryVisitor;

impl<'de> serde::de::Visitor<'de> for ExpectEntryVisitor {
    type Value = ExpectEntry;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a bound, such as max_ticks = 3, or a table of them")
    }

    fn visit_bool<E>(self, value: bool) -> Result<ExpectEntry, E> {
        Ok(ExpectEntry::Value(toml::Value::Boolean(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<ExpectEntry, E> {
        Ok(ExpectEntry::Value(toml::Value::Integer(value)))
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<ExpectEntry, E> {
        i64::try_from(value)
            .map(|value| ExpectEntry::Value(toml::Value::Integer(value)))
            .map_err(|_| E::custom("invalid type: integer as i128, expected i64"))
    }

    fn visit_f64<E>(self, value: f64) -> Result<ExpectEntry, E> {
        Ok(ExpectEntry::Value(toml::Value::Float(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<ExpectEntry, E> {
        Ok(ExpectEntry::Value(toml::Value::String(value.to_string())))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ExpectEntry, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<toml::Value>()? {
            items.push(item);
        }
        Ok(ExpectEntry::Value(toml::Value::Array(items)))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ExpectEntry, A::Error> {
        let mut group = BTreeMap::new();
        while let Some((key, value)) = map.next_entry::<Spanned<String>, Spanned<toml::Value>>()? {
            group.insert(key, value);
        }
        Ok(ExpectEntry::Group(group))
    }
}

/// Just enough of a `[model]` table to learn which kind it is.
#[derive(Debug, Deserialize)]
#[serde(expecting = "a [model] table with a `kind`")]
pub(crate) struct ModelKindProbe {
    pub kind: Spanned<String>,
}
