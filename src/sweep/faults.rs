//! Random fault schedules around a base scenario, as proptest strategies, and their TOML.

use proptest::prelude::*;
use toml::{Table, Value};

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

/// One case: the scenario's seed and the faults added to its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    pub faults: Vec<FaultSpec>,
}

const HOUR_MS: i64 = 3_600_000;

fn fault(run_for_ms: u64) -> impl Strategy<Value = FaultSpec> {
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

/// Cases for a scenario that runs for `run_for_ms`: up to six faults that may overlap.
pub fn cases(run_for_ms: u64) -> impl Strategy<Value = Case> {
    (0u64..1_000, prop::collection::vec(fault(run_for_ms), 0..6))
        .prop_map(|(seed, faults)| Case { seed, faults })
}

impl FaultSpec {
    /// The `[[fault]]` table a scenario file would hold.
    pub fn to_table(&self) -> Table {
        let ms = |value: u64| Value::String(format!("{value}ms"));
        let mut table = Table::new();
        match *self {
            FaultSpec::Suspend {
                system,
                at_ms,
                duration_ms,
            } => {
                let kind = if system {
                    "system-suspend"
                } else {
                    "process-suspend"
                };
                table.insert("kind".into(), Value::String(kind.into()));
                table.insert("at".into(), ms(at_ms));
                table.insert("duration".into(), ms(duration_ms));
            }
            FaultSpec::Step { at_ms, by_ms } => {
                table.insert("kind".into(), Value::String("wall-step".into()));
                table.insert("at".into(), ms(at_ms));
                table.insert("by".into(), Value::String(format!("{by_ms}ms")));
            }
            FaultSpec::Slew {
                at_ms,
                duration_ms,
                rate_ppm,
            } => {
                table.insert("kind".into(), Value::String("wall-slew".into()));
                table.insert("at".into(), ms(at_ms));
                table.insert("duration".into(), ms(duration_ms));
                table.insert("rate".into(), Value::Float(rate_ppm as f64 / 1e6));
            }
        }
        table
    }
}

/// The base scenario's text with `case` applied: its seed, its faults after the base's own, and
/// `[expect]` reduced to `invariants = true`. Errors if the base is not a TOML table.
pub fn apply(base: &str, case: &Case) -> Result<String, toml::de::Error> {
    let mut table: Table = base.parse()?;
    table.insert("seed".into(), Value::Integer(case.seed as i64));
    let faults = table
        .entry("fault")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(faults) = faults {
        faults.extend(
            case.faults
                .iter()
                .map(|fault| Value::Table(fault.to_table())),
        );
    }
    // Only the invariants are checked: the base's own bounds were written for its own faults.
    let mut expect = Table::new();
    expect.insert("invariants".into(), Value::Boolean(true));
    table.insert("expect".into(), Value::Table(expect));
    Ok(toml::to_string(&table).expect("a TOML table serialises"))
}
