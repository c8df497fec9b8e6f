//! Markdown pieces the pages are made of: key tables, metric tables and the words for a value
//! type.

use std::fmt::Write as _;

use ticklab_models::timer::{DesignKey, KeyKind, Promise};

use crate::expect::{Metric, Unit};
use crate::scenario::key_table::{FloatEnd, KeyTable, Need, ValueType};

/// A table of `table`'s keys: what each takes, its default, what it sets.
pub(super) fn key_table(table: &KeyTable) -> String {
    let mut out = String::from("| key | takes | default | meaning |\n|---|---|---|---|\n");
    for key in table.keys {
        let mut about = key.about.to_string();
        if !key.aliases.is_empty() {
            let old: Vec<String> = key.aliases.iter().map(|name| format!("`{name}`")).collect();
            let _ = write!(about, " (older files' {}, still read)", old.join(", "));
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            key.name,
            cell(&takes(&key.value)),
            cell(&match (key.need, key.value.table()) {
                (Need::Optional, Some(_)) => "none".to_string(),
                (need_of_key, _) => need(need_of_key),
            }),
            cell(&about)
        );
    }
    out
}

/// A table of a design's own keys.
pub(super) fn design_key_table(keys: &[DesignKey]) -> String {
    let mut out = String::from("| key | takes | default | meaning |\n|---|---|---|---|\n");
    for key in keys {
        let default = match key.kind {
            KeyKind::Count {
                default: Some(value),
                ..
            } => value.to_string(),
            KeyKind::Duration {
                default_ns: Some(ns),
                ..
            } => format!("`\"{}\"`", duration(ns)),
            KeyKind::Choice { default, .. } => format!("`\"{default}\"`"),
            KeyKind::Duration { .. } => "off".to_string(),
            _ => "set by the design".to_string(),
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            key.name,
            cell(&key.takes()),
            cell(&default),
            cell(key.about)
        );
    }
    out
}

/// A table of metrics with their summary keys.
pub(super) fn metric_table(metrics: &[Metric]) -> String {
    let mut out =
        String::from("| metric | summary key | written as | meaning |\n|---|---|---|---|\n");
    for metric in metrics {
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} |",
            metric.name,
            metric.summary_key,
            unit(metric.unit),
            cell(metric.about)
        );
    }
    out
}

fn unit(unit: Unit) -> &'static str {
    match unit {
        Unit::Count => "a whole number",
        Unit::Duration => "a duration",
        Unit::Time => "a duration from the start, or `\"never\"`",
    }
}

/// What a value type takes, in words.
pub(super) fn takes(value: &ValueType) -> String {
    match *value {
        ValueType::Duration { min_ns: 0 } => "a duration".to_string(),
        ValueType::Duration { min_ns: 1 } => "a duration, more than zero".to_string(),
        ValueType::Duration { min_ns } => format!("a duration of at least {}", duration(min_ns)),
        ValueType::SignedDuration => "a duration, may be negative".to_string(),
        ValueType::DurationOrRange => "a duration, or a range `[low, high]`".to_string(),
        ValueType::RandomOrDuration => "`\"random\"` or a duration".to_string(),
        ValueType::Count { min, max } if max == i64::MAX => {
            format!("a whole number, at least {}", number(min))
        }
        ValueType::Count { min, max } => {
            format!("a whole number, {} to {}", number(min), number(max))
        }
        ValueType::Float { low, high } => float_range(low, high),
        ValueType::Choice(names) => one_of(names),
        ValueType::TimerDesign => "a registered timer design's name".to_string(),
        ValueType::Text => "a string".to_string(),
        ValueType::Bool => "`true` or `false`".to_string(),
        ValueType::Bytes => "an amount of memory, such as `\"512MiB\"`".to_string(),
        ValueType::Timestamp => "an RFC 3339 time".to_string(),
        ValueType::List(item) => format!("a list, each {}", takes(item)),
        ValueType::Table(table) => format!("a table, `{}`", table.header),
        ValueType::Tables(table) => format!("tables, `{}`", table.header),
        ValueType::Model => "a table; its `kind` decides its keys".to_string(),
        ValueType::Expect => "a table of bounds".to_string(),
    }
}

fn float_range(low: FloatEnd, high: FloatEnd) -> String {
    let low = match low {
        FloatEnd::Unbounded => String::new(),
        FloatEnd::Closed(value) => format!("at least {value}"),
        FloatEnd::Open(value) => format!("more than {value}"),
    };
    let high = match high {
        FloatEnd::Unbounded => String::new(),
        FloatEnd::Closed(value) => format!("at most {value}"),
        FloatEnd::Open(value) => format!("less than {value}"),
    };
    let range: Vec<String> = [low, high].into_iter().filter(|s| !s.is_empty()).collect();
    if range.is_empty() {
        "a number".to_string()
    } else {
        format!("a number, {}", range.join(" and "))
    }
}

/// `` `a`, `b` or `c` ``.
pub(super) fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("`\"{name}\"`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

pub(super) fn need(need: Need) -> String {
    match need {
        Need::Required => "required".to_string(),
        Need::Default(text) if text.starts_with(['"', '[']) => format!("`{text}`"),
        Need::Default(text) => text.to_string(),
        Need::DefaultCount(count) => number(count),
        Need::DefaultDuration(ns) => format!("`\"{}\"`", duration(ns)),
        Need::Optional => "off".to_string(),
    }
}

/// A design's promise, in words.
pub(super) fn promise(promise: Promise) -> String {
    match promise {
        Promise::Exact => "fires at its deadline".to_string(),
        Promise::Within { late_ns } => {
            format!("fires up to {} past its deadline", duration(late_ns))
        }
        Promise::ShareOfTimeout { ppm, at_least_ns } => format!(
            "fires up to {} ppm of its timeout past its deadline, and never less than {}",
            number(i64::from(ppm)),
            duration(at_least_ns)
        ),
    }
}

/// `ns` in the largest unit that writes it whole, as scenario files write durations.
pub(super) fn duration(ns: u64) -> String {
    const UNITS: [(u64, &str); 6] = [
        (86_400_000_000_000, "d"),
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
    ];
    if ns == 0 {
        return "0s".to_string();
    }
    UNITS
        .iter()
        .find(|(size, _)| ns.is_multiple_of(*size))
        .map_or_else(
            || format!("{ns}ns"),
            |(size, unit)| format!("{}{unit}", ns / size),
        )
}

/// A whole number with thousands separated: `1,000,000`.
pub(super) fn number(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    if value < 0 { format!("-{out}") } else { out }
}

/// Text made safe for a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_is_written_in_its_largest_whole_unit() {
        assert_eq!(duration(0), "0s");
        assert_eq!(duration(100_000_000), "100ms");
        assert_eq!(duration(15_625_000), "15625us");
        assert_eq!(duration(90_000_000_000), "90s");
        assert_eq!(duration(86_400_000_000_000), "1d");
        assert_eq!(duration(7), "7ns");
    }

    #[test]
    fn whole_numbers_group_their_thousands() {
        assert_eq!(number(0), "0");
        assert_eq!(number(999), "999");
        assert_eq!(number(1_000_000), "1,000,000");
        assert_eq!(number(-12_345), "-12,345");
    }

    #[test]
    fn choices_read_as_a_list_ending_in_or() {
        assert_eq!(one_of(&["a"]), "`\"a\"`");
        assert_eq!(one_of(&["a", "b", "c"]), "`\"a\"`, `\"b\"` or `\"c\"`");
    }
}
