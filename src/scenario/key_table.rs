//! The typed key tables the reference pages and the JSON Schema are written from: one
//! [`KeyTable`] per TOML table a scenario file can hold, one [`KeyDoc`] per key.

/// One TOML table of a scenario file, such as `[machine]` or `[[model.runtime]]`.
#[derive(Debug)]
pub struct KeyTable {
    /// How a file writes its header: `[machine]`, `[[model.runtime]]`.
    pub header: &'static str,
    /// One line on what it holds.
    pub about: &'static str,
    pub keys: &'static [KeyDoc],
    /// The fields serde reads from it, to check `keys` against what the parser accepts.
    pub serde_fields: fn() -> &'static [&'static str],
}

impl KeyTable {
    /// The key called `name`, under its own name or an older spelling.
    pub fn key(&self, name: &str) -> Option<&KeyDoc> {
        self.keys
            .iter()
            .find(|key| key.name == name || key.aliases.contains(&name))
    }

    /// Every name the table documents: each key's, and its older spellings.
    pub fn names(&self) -> Vec<&'static str> {
        self.keys
            .iter()
            .flat_map(|key| std::iter::once(key.name).chain(key.aliases.iter().copied()))
            .collect()
    }

    /// The tables nested in this one (`[model.lease]`, `[[model.host]]`), depth first.
    pub fn nested(&self) -> Vec<&'static KeyTable> {
        let mut tables = Vec::new();
        for key in self.keys {
            if let Some(table) = key.value.table() {
                tables.push(table);
                tables.extend(table.nested());
            }
        }
        tables
    }
}

/// One key of a [`KeyTable`].
#[derive(Debug)]
pub struct KeyDoc {
    /// The key as files write it.
    pub name: &'static str,
    pub value: ValueType,
    pub need: Need,
    /// What it sets.
    pub about: &'static str,
    /// Older spellings that are still read.
    pub aliases: &'static [&'static str],
}

impl KeyDoc {
    pub const fn new(
        name: &'static str,
        value: ValueType,
        need: Need,
        about: &'static str,
    ) -> Self {
        KeyDoc {
            name,
            value,
            need,
            about,
            aliases: &[],
        }
    }

    /// A key's doc before it is given the name of the field it documents, as
    /// `key_struct!` does.
    pub const fn unnamed(value: ValueType, need: Need, about: &'static str) -> Self {
        KeyDoc::new("", value, need, about)
    }

    /// This doc as the doc of the field `name`, read also under `aliases` if any are given. A
    /// doc written for a key of another name is refused: in a `static`, as a build error.
    pub const fn for_field(self, name: &'static str, aliases: &'static [&'static str]) -> Self {
        if !self.name.is_empty() && !same_text(self.name, name) {
            panic!("a key's doc is written for another key than the field it documents");
        }
        let doc = KeyDoc { name, ..self };
        if aliases.is_empty() {
            doc
        } else {
            doc.also_read_as(aliases)
        }
    }

    /// The same key, still read under `aliases`.
    pub const fn also_read_as(self, aliases: &'static [&'static str]) -> Self {
        KeyDoc { aliases, ..self }
    }
}

/// Whether two texts are the same, in a `const fn`, where `==` on `str` is not allowed.
const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut at = 0;
    while at < a.len() {
        if a[at] != b[at] {
            return false;
        }
        at += 1;
    }
    true
}

/// Whether a file must set a key, and what it means when it does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    Required,
    /// Left out, it takes this default, in words.
    Default(&'static str),
    /// Left out, it is this whole number.
    DefaultCount(i64),
    /// Left out, it is this duration, in ns.
    DefaultDuration(u64),
    /// Left out, it is off: the behaviour it sets does not happen.
    Optional,
}

/// One end of a range of floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FloatEnd {
    Unbounded,
    /// This value is allowed.
    Closed(f64),
    /// Values up to this one, not itself.
    Open(f64),
}

/// What a key takes.
#[derive(Clone, Copy, Debug)]
pub enum ValueType {
    /// A duration such as `"250ms"`, of at least `min_ns`.
    Duration {
        min_ns: u64,
    },
    /// A duration that may be negative, such as `"-1h"`.
    SignedDuration,
    /// A duration, or a range `["10ms", "1s"]` to draw from.
    DurationOrRange,
    /// `"random"`, or a duration.
    RandomOrDuration,
    /// A whole number from `min` to `max`.
    Count {
        min: i64,
        max: i64,
    },
    /// A number within its ends.
    Float {
        low: FloatEnd,
        high: FloatEnd,
    },
    /// One of these names.
    Choice(&'static [&'static str]),
    /// The name of a registered timer design.
    TimerDesign,
    /// Any string, such as a name or a path.
    Text,
    Bool,
    /// An amount of memory with its unit, such as `"512MiB"`.
    Bytes,
    /// An RFC 3339 time, such as `"2026-01-01T00:00:00Z"`.
    Timestamp,
    /// A list of values.
    List(&'static ValueType),
    /// A table of its own: `[model.lease]`.
    Table(&'static KeyTable),
    /// Any number of tables: `[[model.task]]`, or a list of inline tables.
    Tables(&'static KeyTable),
    /// `[model]`: the table of the kind its `kind` names.
    Model,
    /// `[expect]`: bounds on the kind's metrics.
    Expect,
}

impl ValueType {
    /// More than zero.
    pub const POSITIVE_DURATION: ValueType = ValueType::Duration { min_ns: 1 };
    /// Zero or more.
    pub const DURATION: ValueType = ValueType::Duration { min_ns: 0 };

    /// The table it holds, if it is one or a list of them.
    pub fn table(&self) -> Option<&'static KeyTable> {
        match *self {
            ValueType::Table(table) | ValueType::Tables(table) => Some(table),
            _ => None,
        }
    }
}
