//! Reads TOML through serde while keeping, as data, what serde's visitors and derived code said
//! was wrong: an unknown key with the keys the table takes, a missing key, a value of the wrong
//! type. `toml::de::Error` implements serde's `unknown_field`, `invalid_type` and the rest only
//! through `custom`, which keeps their text alone; so every visitor runs here with an error type
//! of ours, [`Typed`], and what it reports is noted before toml's error goes on, with the same
//! text and toml's span, as it would without this layer.

mod track;

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, Deserialize};

use track::Track;

/// What serde found wrong, as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// A key the table has no field for, and the fields it has.
    UnknownKey {
        key: String,
        keys: &'static [&'static str],
    },
    /// A name that is none of the enum's, and its names.
    UnknownValue {
        value: String,
        values: &'static [&'static str],
    },
    /// A field the table needs and lacks.
    MissingKey { key: &'static str },
    /// A value of another type than the one expected, both in serde's words.
    WrongType { found: String, expected: String },
    /// A value of the right type that is out of range, in serde's words.
    BadValue { found: String, expected: String },
}

/// A problem, with toml's error for it: its span and its text.
pub(crate) struct Failure {
    pub error: toml::de::Error,
    /// What serde said as data, when the error is one a visitor reported.
    pub problem: Option<Problem>,
}

/// Deserializes `T` from the TOML document `text`. Boxed: errors are rare, and results should
/// stay small.
pub(crate) fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, Box<Failure>> {
    let noted = RefCell::new(None);
    let document = toml::Deserializer::parse(text).map_err(|error| {
        Box::new(Failure {
            error,
            problem: None,
        })
    })?;
    match T::deserialize(Track {
        inner: document,
        noted: &noted,
    }) {
        Ok(value) => Ok(value),
        Err(Typed::Inner(error)) => {
            // The first problem noted is where the error began; it is the error only if the text
            // that reached the top is the one noted with it.
            let problem = noted
                .into_inner()
                .filter(|(_, text): &(Problem, String)| *text == error.message())
                .map(|(problem, _)| problem);
            Err(Box::new(Failure { error, problem }))
        }
        Err(Typed::Own(problem, text)) => Err(Box::new(Failure {
            error: de::Error::custom(text),
            problem: Some(problem),
        })),
    }
}

/// The first problem a visitor reported, with its text.
pub(super) type Noted = RefCell<Option<(Problem, String)>>;

/// The error visitors see: a problem of their own, or an error of the deserializer underneath.
#[derive(Debug)]
pub(super) enum Typed<E> {
    Own(Problem, String),
    Inner(E),
}

impl<E: fmt::Display> fmt::Display for Typed<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Typed::Own(_, text) => f.write_str(text),
            Typed::Inner(error) => error.fmt(f),
        }
    }
}

impl<E: de::Error> std::error::Error for Typed<E> {}

/// serde's own wording of each problem, so that toml's message stays what it was.
fn serde_text(error: serde::de::value::Error) -> String {
    error.to_string()
}

impl<E: de::Error> de::Error for Typed<E> {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Typed::Inner(E::custom(message))
    }

    fn invalid_type(found: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        let text = serde_text(de::Error::invalid_type(found, expected));
        let (found, expected) = (found.to_string(), expected.to_string());
        Typed::Own(Problem::WrongType { found, expected }, text)
    }

    fn invalid_value(found: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        let text = serde_text(de::Error::invalid_value(found, expected));
        let (found, expected) = (found.to_string(), expected.to_string());
        Typed::Own(Problem::BadValue { found, expected }, text)
    }

    fn unknown_variant(value: &str, values: &'static [&'static str]) -> Self {
        let text = serde_text(de::Error::unknown_variant(value, values));
        let value = value.to_string();
        Typed::Own(Problem::UnknownValue { value, values }, text)
    }

    fn unknown_field(key: &str, keys: &'static [&'static str]) -> Self {
        let text = serde_text(de::Error::unknown_field(key, keys));
        let key = key.to_string();
        Typed::Own(Problem::UnknownKey { key, keys }, text)
    }

    fn missing_field(key: &'static str) -> Self {
        let text = serde_text(de::Error::missing_field(key));
        Typed::Own(Problem::MissingKey { key }, text)
    }
}

/// Hands a visitor's error back to the deserializer underneath, noting a problem of its own.
pub(super) fn handed_back<E: de::Error>(noted: &Noted, error: Typed<E>) -> E {
    match error {
        Typed::Inner(error) => error,
        Typed::Own(problem, text) => {
            noted
                .borrow_mut()
                .get_or_insert_with(|| (problem, text.clone()));
            E::custom(text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code, reason = "only the errors are read")]
    struct Table {
        period: String,
        count: Option<u32>,
        inner: Option<Inner>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code, reason = "only the errors are read")]
    struct Inner {
        kind: Kind,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Kind {
        Fast,
        Slow,
    }

    /// What goes wrong with `text`, as data, checking that toml's message and span are what
    /// they are without this layer.
    fn problem(text: &str) -> Option<Problem> {
        let failure = from_str::<Table>(text).expect_err("the text is wrong");
        let plain = toml::from_str::<Table>(text).expect_err("the text is wrong");
        assert_eq!(failure.error.message(), plain.message(), "{text}");
        assert_eq!(failure.error.span(), plain.span(), "{text}");
        failure.problem
    }

    #[test]
    fn what_serde_reports_is_kept_as_data_with_tomls_own_message_and_span() {
        let nested_key = "period = \"1s\"\n[inner]\nkind = \"fast\"\nknd = 1\n";
        assert_eq!(
            problem(nested_key),
            Some(Problem::UnknownKey {
                key: "knd".to_string(),
                keys: &["kind"],
            })
        );
        let value = "period = \"1s\"\ninner = { kind = \"fats\" }\n";
        assert_eq!(
            problem(value),
            Some(Problem::UnknownValue {
                value: "fats".to_string(),
                values: &["fast", "slow"],
            })
        );
        assert_eq!(
            problem("count = 3\n"),
            Some(Problem::MissingKey { key: "period" })
        );
        assert_eq!(
            problem("period = 5\n"),
            Some(Problem::WrongType {
                found: "integer `5`".to_string(),
                expected: "a string".to_string(),
            })
        );
        assert_eq!(
            problem("period = \"1s\"\ncount = -1\n"),
            Some(Problem::BadValue {
                found: "integer `-1`".to_string(),
                expected: "u32".to_string(),
            })
        );
    }

    #[test]
    fn tomls_own_errors_are_left_as_text() {
        assert_eq!(problem("period = \"1s\"\nperiod = \"2s\"\n"), None);
        assert_eq!(problem("period = \n"), None);
    }
}
