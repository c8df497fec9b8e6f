//! One machine's (or one host's) clock faults as a sweep draws them: suspends, wall steps and
//! slews, in whole milliseconds, with their `[[fault]]` tables and a few words for each.

use proptest::prelude::*;
use toml::{Table, Value};

use super::tweak::duration_text;

/// One generated fault, in whole milliseconds so that files stay readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultSpec {
    Suspend {
        system: bool,
        at_ms: u64,
        duration_ms: u64,
    },
    Step {
        at_ms: u64,
        by_ms: i64,
    },
    Slew {
        at_ms: u64,
        duration_ms: u64,
        rate_ppm: i64,
    },
}

const HOUR_MS: i64 = 3_600_000;

pub(crate) fn fault(run_for_ms: u64) -> impl Strategy<Value = FaultSpec> {
    let at = 0..run_for_ms.max(1);
    let duration = 1..(run_for_ms / 2).max(2);
    prop_oneof![
        (any::<bool>(), at.clone(), duration.clone()).prop_map(|(system, at_ms, duration_ms)| {
            FaultSpec::Suspend {
                system,
                at_ms,
                duration_ms,
            }
        }),
        (at.clone(), -HOUR_MS..HOUR_MS)
            .prop_filter("a step moves the clock", |(_, by_ms)| *by_ms != 0)
            .prop_map(|(at_ms, by_ms)| FaultSpec::Step { at_ms, by_ms }),
        (at, duration, -500i64..500)
            .prop_filter("a slew changes the rate", |(_, _, rate)| *rate != 0)
            .prop_map(|(at_ms, duration_ms, rate_ppm)| FaultSpec::Slew {
                at_ms,
                duration_ms,
                rate_ppm,
            }),
    ]
}

impl FaultSpec {
    /// The `[[fault]]` table a scenario file would hold.
    pub fn to_table(&self) -> Table {
        let mut table = Table::new();
        let kind = Value::String(self.kind().into());
        table.insert("kind".into(), kind);
        match *self {
            FaultSpec::Suspend {
                at_ms, duration_ms, ..
            } => {
                table.insert("at".into(), ms(at_ms as i64));
                table.insert("duration".into(), ms(duration_ms as i64));
            }
            FaultSpec::Step { at_ms, by_ms } => {
                table.insert("at".into(), ms(at_ms as i64));
                table.insert("by".into(), ms(by_ms));
            }
            FaultSpec::Slew {
                at_ms,
                duration_ms,
                rate_ppm,
            } => {
                table.insert("at".into(), ms(at_ms as i64));
                table.insert("duration".into(), ms(duration_ms as i64));
                table.insert("rate".into(), Value::Float(rate_ppm as f64 / 1e6));
            }
        }
        table
    }

    fn kind(&self) -> &'static str {
        match *self {
            FaultSpec::Suspend { system: true, .. } => "system-suspend",
            FaultSpec::Suspend { system: false, .. } => "process-suspend",
            FaultSpec::Step { .. } => "wall-step",
            FaultSpec::Slew { .. } => "wall-slew",
        }
    }
}

/// Milliseconds as a scenario file writes a duration: `26.035s`, `1h`, `250ms`.
fn ms(value: i64) -> Value {
    Value::String(duration_text(value.saturating_mul(1_000_000)))
}

impl std::fmt::Display for FaultSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |value: u64| duration_text(value as i64 * 1_000_000);
        match *self {
            FaultSpec::Suspend {
                at_ms, duration_ms, ..
            } => write!(
                f,
                "a {} for {} at {}",
                self.kind(),
                ms(duration_ms),
                ms(at_ms)
            ),
            FaultSpec::Step { at_ms, by_ms } => {
                let sign = if by_ms > 0 { "+" } else { "" };
                let by = duration_text(by_ms * 1_000_000);
                write!(f, "a wall-step of {sign}{by} at {}", ms(at_ms))
            }
            FaultSpec::Slew {
                at_ms,
                duration_ms,
                rate_ppm,
            } => write!(
                f,
                "a wall-slew of {rate_ppm:+} ppm for {} at {}",
                ms(duration_ms),
                ms(at_ms)
            ),
        }
    }
}
