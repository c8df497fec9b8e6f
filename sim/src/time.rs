//! Physical time: nanoseconds since the start of a run.
//!
//! Every other clock is derived from it, so it is a plain `u64` and never goes backwards. Constants
//! keep unit conversions readable at call sites (`15 * NS_PER_SEC`).

use std::fmt;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_SEC: u64 = 1_000_000_000;

/// Displays nanoseconds as seconds with a fixed nine-digit fraction, e.g. `407.000000000s`.
///
/// Fixed width keeps trace lines aligned and byte-stable across runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Secs(pub u64);

impl fmt::Display for Secs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, fraction) = (self.0 / NS_PER_SEC, self.0 % NS_PER_SEC);
        // Right-aligned padding by hand: traces print one of these per event.
        let digits = whole.checked_ilog10().map_or(1, |log| log as usize + 1);
        let width = digits + 11;
        for _ in width..f.width().unwrap_or(0) {
            f.write_str(" ")?;
        }
        write!(f, "{whole}.{fraction:09}s")
    }
}

/// Displays a signed nanosecond count compactly (`-1h`, `391.5s`, `250ms`), for fault descriptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compact(pub i64);

impl fmt::Display for Compact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let ns = self.0.unsigned_abs();
        if ns == 0 {
            return write!(f, "0s");
        }
        // Whole hours and minutes read best as such; below that, the largest unit the value is at
        // least one of, with the exact fraction trimmed: a Windows tick is 15.625ms, not 15625us.
        for (unit_ns, name) in [(3600 * NS_PER_SEC, "h"), (60 * NS_PER_SEC, "m")] {
            if ns.is_multiple_of(unit_ns) {
                return write!(f, "{sign}{}{name}", ns / unit_ns);
            }
        }
        for (unit_ns, digits, name) in [
            (NS_PER_SEC, 9, "s"),
            (NS_PER_MS, 6, "ms"),
            (NS_PER_US, 3, "us"),
        ] {
            if ns >= unit_ns {
                let fraction = format!("{:0digits$}", ns % unit_ns);
                let fraction = fraction.trim_end_matches('0');
                let dot = if fraction.is_empty() { "" } else { "." };
                return write!(f, "{sign}{}{dot}{fraction}{name}", ns / unit_ns);
            }
        }
        write!(f, "{sign}{ns}ns")
    }
}

/// A measured duration for people to read: at most three decimals in the largest unit that fits
/// (`1.442s`, `354.094ms`, `12.5us`), rounded half up; exact values such as `250ms` read as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Approx(pub u64);

impl fmt::Display for Approx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns == 0 {
            return write!(f, "0s");
        }
        if ns < NS_PER_US {
            return write!(f, "{ns}ns");
        }
        let rounded =
            |unit_ns: u64| (u128::from(ns) * 1000 + u128::from(unit_ns) / 2) / u128::from(unit_ns);
        // The largest unit the value is at least one of once rounded, so 999.9999ms reads 1s.
        let (thousandths, name) = [(NS_PER_SEC, "s"), (NS_PER_MS, "ms"), (NS_PER_US, "us")]
            .into_iter()
            .map(|(unit_ns, name)| (rounded(unit_ns), name))
            .find(|&(thousandths, _)| thousandths >= 1000)
            .expect("anything from 1us up is at least one microsecond");
        let whole = thousandths / 1000;
        let fraction = format!("{:03}", thousandths % 1000);
        let fraction = fraction.trim_end_matches('0');
        let dot = if fraction.is_empty() { "" } else { "." };
        write!(f, "{whole}{dot}{fraction}{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secs_prints_nine_fraction_digits() {
        assert_eq!(Secs(407 * NS_PER_SEC).to_string(), "407.000000000s");
        assert_eq!(Secs(1).to_string(), "0.000000001s");
        assert_eq!(format!("{:>15}", Secs(NS_PER_SEC)), "   1.000000000s");
    }

    #[test]
    fn compact_picks_the_largest_unit_and_keeps_the_exact_fraction() {
        assert_eq!(Compact(-3600 * NS_PER_SEC as i64).to_string(), "-1h");
        assert_eq!(Compact(391_500 * NS_PER_MS as i64).to_string(), "391.5s");
        assert_eq!(Compact(250 * NS_PER_MS as i64).to_string(), "250ms");
        assert_eq!(Compact(0).to_string(), "0s");
        assert_eq!(
            Compact(15_625_000).to_string(),
            "15.625ms",
            "a Windows tick"
        );
        assert_eq!(Compact(1_000_001).to_string(), "1.000001ms");
        assert_eq!(Compact(-1_500).to_string(), "-1.5us");
        assert_eq!(Compact(999).to_string(), "999ns");
    }

    #[test]
    fn approximate_durations_keep_three_decimals_of_their_largest_unit() {
        assert_eq!(Approx(354_093_494).to_string(), "354.093ms");
        assert_eq!(Approx(1_441_791_999).to_string(), "1.442s");
        assert_eq!(Approx(250 * NS_PER_MS).to_string(), "250ms");
        assert_eq!(Approx(12_500).to_string(), "12.5us");
        assert_eq!(Approx(999).to_string(), "999ns");
        assert_eq!(Approx(0).to_string(), "0s");
        assert_eq!(Approx(999_999_999).to_string(), "1s");
    }
}
