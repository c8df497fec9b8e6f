//! [`key_struct!`]: a TOML table's serde struct and its [`KeyTable`](super::key_table::KeyTable)
//! from one declaration, so that a key is named once, by its field, and cannot be read under one
//! name and documented under another.

/// Declares the serde struct a TOML table is read into, and the
/// [`KeyTable`](crate::scenario::key_table::KeyTable) that documents it, from one list of
/// fields. Each field carries its doc:
/// [`KeyDoc::unnamed`](crate::scenario::key_table::KeyDoc::unnamed) for a key of its own, or a
/// shared [`KeyDoc`](crate::scenario::key_table::KeyDoc) constant, whose name must be the
/// field's (a mismatch fails the build). Older spellings follow the field
/// with `|`: each is a serde alias and is documented as one. A key whose name is not a Rust
/// identifier is read into a field of another name with `as`: `yield_now as "yield"`. Fields are
/// documented in the order they are declared. Its tests below declare a table of every shape;
/// in outline:
///
/// ```text
/// key_struct! {
///     #[derive(Debug, Deserialize)]
///     #[serde(deny_unknown_fields, expecting = "a [model] table")]
///     pub struct IdleSpec;
///     /// `[model]` with `kind = "idle"`.
///     pub static MODEL = ("[model]", "one event loop per idle strategy");
///     {
///         kind: String => KeyDoc::unnamed(ValueType::Choice(&["idle"]), Need::Required, "kind"),
///         profile: Spanned<String> => crate::profile::keys::PROFILE,
///         pub(super) timeout | "wait": Option<DurationNs> => KeyDoc::unnamed(..),
///     }
/// }
/// ```
macro_rules! key_struct {
    // A struct generic over one type, such as the table a file's `[model]` is left as, names the
    // type serde's field names are read from: `struct ScenarioFile<M> as ScenarioFile<Value>;`.
    (
        $(#[$struct_meta:meta])*
        $struct_vis:vis struct $name:ident<$param:ident> as $probe:ty;
        $($rest:tt)*
    ) => {
        $crate::scenario::key_struct::key_struct! {
            @declare [$(#[$struct_meta])*] [$struct_vis] [$name] [<$param>] [$probe] $($rest)*
        }
    };
    (
        $(#[$struct_meta:meta])*
        $struct_vis:vis struct $name:ident;
        $($rest:tt)*
    ) => {
        $crate::scenario::key_struct::key_struct! {
            @declare [$(#[$struct_meta])*] [$struct_vis] [$name] [] [$name] $($rest)*
        }
    };
    (
        @declare [$($struct_meta:tt)*] [$struct_vis:vis] [$name:ident] [$($generics:tt)*]
        [$probe:ty]
        $(#[$table_meta:meta])*
        $table_vis:vis static $table:ident = ($header:expr, $about:expr $(,)?);
        {
            $(
                $(#[$field_meta:meta])*
                $field_vis:vis $field:ident $(as $rename:literal)? $(| $alias:literal)*:
                    $field_type:ty => $doc:expr
            ),* $(,)?
        }
    ) => {
        $($struct_meta)*
        $struct_vis struct $name $($generics)* {
            $(
                $(#[$field_meta])*
                $(#[serde(rename = $rename)])?
                $(#[serde(alias = $alias)])*
                $field_vis $field: $field_type,
            )*
        }

        $(#[$table_meta])*
        $table_vis static $table: $crate::scenario::key_table::KeyTable =
            $crate::scenario::key_table::KeyTable {
                header: $header,
                about: $about,
                serde_fields: $crate::scenario::keys_of::<$probe>,
                keys: &[$(
                    $crate::scenario::key_table::KeyDoc::for_field(
                        $doc,
                        $crate::scenario::key_struct::key_name!($field $(as $rename)?),
                        &[$($alias),*],
                    ),
                )*],
            };
    };
}

/// The name a file writes for a field of [`key_struct!`]: its own, or the one `as` gives.
macro_rules! key_name {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident as $rename:literal) => {
        $rename
    };
}

pub(crate) use {key_name, key_struct};

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use crate::scenario::key_table::{KeyDoc, KeyTable, Need, ValueType};

    const SHARED_WAIT: KeyDoc =
        KeyDoc::new("wait", ValueType::DURATION, Need::Optional, "a shared key");

    key_struct! {
        #[derive(Debug, Deserialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct Sample;
        /// A table of every shape a field takes.
        static SAMPLE = ("[sample]", "a sample");
        {
            count: u32 => KeyDoc::unnamed(ValueType::Bool, Need::Required, "a count"),
            #[serde(default)]
            wait: Option<String> => SHARED_WAIT,
            yield_now as "yield": Option<bool> => KeyDoc::unnamed(
                ValueType::Bool,
                Need::Optional,
                "a key that is a Rust keyword",
            ),
            spacing | "gap" | "spread": Option<u32> => KeyDoc::unnamed(
                ValueType::Bool,
                Need::Optional,
                "a key with older spellings",
            ),
        }
    }

    #[test]
    fn the_table_names_each_field_as_the_file_writes_it_in_the_declared_order() {
        let names: Vec<&str> = SAMPLE.keys.iter().map(|key| key.name).collect();
        assert_eq!(names, ["count", "wait", "yield", "spacing"]);
        assert_eq!(SAMPLE.key("gap").map(|key| key.name), Some("spacing"));
        assert_eq!(SAMPLE.key("spread").map(|key| key.name), Some("spacing"));
        assert_eq!(
            SAMPLE.key("wait").map(|key| key.about),
            Some("a shared key")
        );
        assert_eq!(SAMPLE.header, "[sample]");
        assert!(crate::reference::mismatches(&SAMPLE).is_empty());
    }

    #[test]
    fn serde_reads_what_the_table_documents() {
        let read: Sample = toml::from_str("count = 3\nyield = true\ngap = 7").unwrap();
        assert_eq!(
            read,
            Sample {
                count: 3,
                wait: None,
                yield_now: Some(true),
                spacing: Some(7),
            }
        );
        let error = toml::from_str::<Sample>("count = 3\nyield_now = true").unwrap_err();
        assert!(
            error.to_string().contains("unknown field `yield_now`"),
            "{error}"
        );
    }

    #[test]
    #[should_panic(expected = "written for another key")]
    fn a_shared_doc_of_another_key_is_refused() {
        let _ = KeyDoc::for_field(SHARED_WAIT, "timeout", &[]);
    }

    #[test]
    fn a_table_whose_docs_and_fields_disagree_is_reported() {
        static PLANTED: KeyTable = KeyTable {
            header: "[sample]",
            about: "a sample whose docs were written apart from its struct",
            keys: &[KeyDoc::new(
                "count",
                ValueType::Bool,
                Need::Required,
                "a count",
            )],
            serde_fields: crate::scenario::keys_of::<Sample>,
        };
        let found = crate::reference::mismatches(&PLANTED);
        assert!(
            found.contains(&"[sample]: `wait` is read but not documented".to_string()),
            "{found:?}"
        );
        assert_eq!(found.len(), 5, "{found:?}");
    }
}
