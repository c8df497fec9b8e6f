//! Value types of scenario files: durations, names from closed sets, periods and phases.
//!
//! Each deserializes straight from TOML, so errors keep TOML's position information.

use std::fmt;
use std::marker::PhantomData;

use jiff::{Span, SpanRelativeTo};
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

const DURATION_EXAMPLES: &str =
    "a duration such as \"250ms\", \"15.5s\", \"8m\", \"1h\" or \"365d\"";

/// A value that could not be read, and what to write instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub message: String,
    pub hint: String,
}

impl Problem {
    fn new(message: String, hint: impl Into<String>) -> Self {
        Problem {
            message,
            hint: hint.into(),
        }
    }
}

/// Serde carries only a message, so the hint rides along after a separator that
/// `scenario::explain` splits off again.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            self.message,
            super::explain::HINT_SEPARATOR,
            self.hint
        )
    }
}

/// Parses `"15.5s"`, `"-1h"`, `"2h 30m"`, `"365d"` or ISO 8601 (`"PT1H"`) into signed ns.
///
/// Days and weeks are 24 h and 7 d; years and months are refused, having no fixed length.
pub fn parse_duration_ns(text: &str) -> Result<i64, Problem> {
    let too_long = || {
        Problem::new(
            format!("\"{text}\" is too long to simulate"),
            "runs last at most 100 years",
        )
    };
    let span: Span = text.parse().map_err(|_| {
        Problem::new(
            format!("\"{text}\" is not a duration"),
            format!("write {DURATION_EXAMPLES}"),
        )
    })?;
    if span.get_years() != 0 || span.get_months() != 0 {
        return Err(Problem::new(
            format!("\"{text}\" has no fixed length"),
            "years and months vary in length; write days instead, such as \"365d\"",
        ));
    }
    let duration = span
        .to_duration(SpanRelativeTo::days_are_24_hours())
        .map_err(|_| too_long())?;
    i64::try_from(duration.as_nanos()).map_err(|_| too_long())
}

/// A non-negative duration in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DurationNs(pub u64);

/// A duration that may be negative (a wall step backwards), in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SignedDurationNs(pub i64);

struct DurationVisitor<const SIGNED: bool>;

impl<const SIGNED: bool> Visitor<'_> for DurationVisitor<SIGNED> {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(DURATION_EXAMPLES)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<i64, E> {
        let ns = parse_duration_ns(text).map_err(E::custom)?;
        if ns < 0 && !SIGNED {
            return Err(E::custom(Problem::new(
                format!("\"{text}\" is negative; this duration must be zero or more"),
                "only a wall step's `by` may be negative",
            )));
        }
        Ok(ns)
    }
}

impl<'de> Deserialize<'de> for DurationNs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_str(DurationVisitor::<false>)
            .map(|ns| DurationNs(ns as u64))
    }
}

impl<'de> Deserialize<'de> for SignedDurationNs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_str(DurationVisitor::<true>)
            .map(SignedDurationNs)
    }
}

/// An amount of memory in bytes, written with a unit: `"512MiB"`, `"8GiB"`, `"0B"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

/// A mebibyte; memory sizes above a pebibyte are refused.
pub const MIB: u64 = 1 << 20;
const MAX_BYTES: u64 = 1 << 50;

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let problem = || {
            Problem::new(
                format!("\"{text}\" is not an amount of memory"),
                "write a size with its unit, such as \"512MiB\" or \"8GiB\"",
            )
        };
        let digits_first = text.trim_start().starts_with(|c: char| c.is_ascii_digit());
        let size: bytesize::ByteSize = text
            .parse()
            .ok()
            .filter(|_| digits_first)
            .ok_or_else(|| de::Error::custom(problem()))?;
        if size.as_u64() > MAX_BYTES {
            return Err(de::Error::custom(Problem::new(
                format!("\"{text}\" is more memory than ticklab simulates"),
                "sizes go up to 1PiB",
            )));
        }
        Ok(Bytes(size.as_u64()))
    }
}

/// A closed set of named values: platforms, clocks, fault kinds, behaviours.
pub trait Named: Copy + 'static {
    /// Every value, in the order of `NAMES`.
    const ALL: &'static [Self];
    /// Each value's name as scenario files spell it.
    const NAMES: &'static [&'static str];
    /// Values accepted by name but never listed in hints: the planted bugs of test builds.
    const UNLISTED: &'static [(Self, &'static str)] = &[];
}

/// A value of a [`Named`] set, deserialized from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Name<T>(pub T);

impl<'de, T: Named> Deserialize<'de> for Name<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor<T>(PhantomData<T>);
        impl<T: Named> Visitor<'_> for NameVisitor<T> {
            type Value = Name<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "one of {}", T::NAMES.join(", "))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Name<T>, E> {
                let listed = T::NAMES
                    .iter()
                    .position(|name| *name == text)
                    .map(|index| T::ALL[index]);
                let unlisted = || {
                    T::UNLISTED
                        .iter()
                        .find(|(_, name)| *name == text)
                        .map(|(value, _)| *value)
                };
                match listed.or_else(unlisted) {
                    Some(value) => Ok(Name(value)),
                    None => Err(E::unknown_variant(text, T::NAMES)),
                }
            }
        }
        deserializer.deserialize_str(NameVisitor(PhantomData))
    }
}

impl Named for ticklab_sim::Platform {
    const ALL: &'static [Self] = &ticklab_sim::Platform::ALL;
    const NAMES: &'static [&'static str] = ticklab_sim::Platform::NAMES;
}

impl Named for ticklab_sim::ClockId {
    const ALL: &'static [Self] = &ticklab_sim::ClockId::ALL;
    const NAMES: &'static [&'static str] = ticklab_sim::ClockId::NAMES;
}

impl Named for ticklab_sim::FaultKind {
    const ALL: &'static [Self] = &ticklab_sim::FaultKind::ALL;
    const NAMES: &'static [&'static str] = ticklab_sim::FaultKind::NAMES;
}

impl Named for ticklab_models::interval::MissedTick {
    const ALL: &'static [Self] = &ticklab_models::interval::MissedTick::ALL;
    const NAMES: &'static [&'static str] = ticklab_models::interval::MissedTick::NAMES;
    const UNLISTED: &'static [(Self, &'static str)] = ticklab_models::interval::MissedTick::PLANTED;
}

impl Named for ticklab_models::executor::DriverKind {
    const ALL: &'static [Self] = &ticklab_models::executor::DriverKind::ALL;
    const NAMES: &'static [&'static str] = ticklab_models::executor::DriverKind::NAMES;
    const UNLISTED: &'static [(Self, &'static str)] = ticklab_models::executor::DriverKind::PLANTED;
}

impl Named for ticklab_models::detector::Detector {
    const ALL: &'static [Self] = &ticklab_models::detector::Detector::ALL;
    const NAMES: &'static [&'static str] = ticklab_models::detector::Detector::NAMES;
    const UNLISTED: &'static [(Self, &'static str)] = ticklab_models::detector::Detector::PLANTED;
}

/// One duration, or a range to draw from: `period = "1s"` or `period = ["10ms", "1s"]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationOrRange {
    Fixed(DurationNs),
    Range(DurationNs, DurationNs),
}

impl<'de> Deserialize<'de> for DurationOrRange {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RangeVisitor;
        impl<'de> Visitor<'de> for RangeVisitor {
            type Value = DurationOrRange;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as \"1s\", or a range such as [\"10ms\", \"1s\"]")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<DurationOrRange, E> {
                DurationVisitor::<false>
                    .visit_str(text)
                    .map(|ns| DurationOrRange::Fixed(DurationNs(ns as u64)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DurationOrRange, A::Error> {
                let low: Option<DurationNs> = seq.next_element()?;
                let high: Option<DurationNs> = seq.next_element()?;
                let extra: Option<de::IgnoredAny> = seq.next_element()?;
                match (low, high, extra) {
                    (Some(low), Some(high), None) => Ok(DurationOrRange::Range(low, high)),
                    _ => Err(de::Error::custom(Problem::new(
                        "a range has exactly two ends".to_string(),
                        "write the shortest and the longest, such as [\"10ms\", \"1s\"]",
                    ))),
                }
            }
        }
        deserializer.deserialize_any(RangeVisitor)
    }
}

/// `phase = "random"` (seeded, the default) or a fixed offset such as `phase = "0s"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseSpec {
    Random,
    Fixed(DurationNs),
}

impl<'de> Deserialize<'de> for PhaseSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PhaseVisitor;
        impl Visitor<'_> for PhaseVisitor {
            type Value = PhaseSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"random\" or a duration such as \"0s\"")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<PhaseSpec, E> {
                if text == "random" {
                    return Ok(PhaseSpec::Random);
                }
                DurationVisitor::<false>
                    .visit_str(text)
                    .map(|ns| PhaseSpec::Fixed(DurationNs(ns as u64)))
            }
        }
        deserializer.deserialize_str(PhaseVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_accept_fractions_compounds_days_and_iso() {
        for (text, ns) in [
            ("15.5s", 15_500_000_000),
            ("-1h", -3_600_000_000_000),
            ("2h 30m", 9_000_000_000_000),
            ("365d", 31_536_000_000_000_000),
            ("PT1H", 3_600_000_000_000),
            ("1ns", 1),
        ] {
            assert_eq!(parse_duration_ns(text), Ok(ns), "{text}");
        }
    }

    /// Traces and the regressions a sweep writes print durations as `Compact` does: each must
    /// read back as the same number of nanoseconds.
    #[test]
    fn every_compact_duration_parses_back_to_itself() {
        for ns in [
            15_625_000,
            1_000_001,
            -1_500,
            999,
            391_500_000_000,
            -3_600_000_000_000,
            123_456_789_012,
            86_400_000_000_007,
        ] {
            let text = ticklab_sim::Compact(ns).to_string();
            assert_eq!(parse_duration_ns(&text), Ok(ns), "{text}");
        }
    }

    #[test]
    fn durations_refuse_years_and_garbage_with_a_reason() {
        assert!(
            parse_duration_ns("1y")
                .unwrap_err()
                .hint
                .contains("write days instead")
        );
        assert_eq!(
            parse_duration_ns("soon").unwrap_err().message,
            "\"soon\" is not a duration"
        );
    }
}
