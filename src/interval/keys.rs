//! The keys of an interval scenario's `[model]` table, for the reference and the schema.

use ticklab_models::interval::MissedTick;

use super::spec::{IntervalSpec, MAX_COUNT};
use crate::scenario::key_table::{KeyDoc, KeyTable, Need, ValueType};

/// `[model]` with `kind = "interval"`.
pub static MODEL: KeyTable = KeyTable {
    header: "[model]",
    about: "tokio-style intervals on one runtime thread",
    serde_fields: crate::scenario::keys_of::<IntervalSpec>,
    keys: &[
        KeyDoc::new(
            "kind",
            ValueType::Choice(&["interval"]),
            Need::Required,
            "the model kind",
        ),
        KeyDoc::new(
            "missed_tick",
            ValueType::Choice(MissedTick::NAMES),
            Need::Required,
            "what an interval does after a missed tick: tokio 1.x's `burst`, `delay` or `skip`, \
             or tokio 0.1's `naive` and `fixed`, which tick one period after they are made",
        ),
        KeyDoc::new(
            "period",
            ValueType::DurationOrRange,
            Need::Required,
            "a duration, or `[\"10ms\", \"1s\"]`: each interval draws whole milliseconds from \
             the range",
        ),
        KeyDoc::new(
            "count",
            ValueType::Count {
                min: 1,
                max: MAX_COUNT,
            },
            Need::DefaultCount(1),
            "how many intervals run side by side",
        ),
        KeyDoc::new(
            "tick_cost",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "CPU time the runtime thread spends per tick; at most the whole run",
        ),
        KeyDoc::new(
            "phase",
            ValueType::RandomOrDuration,
            Need::Default("\"random\""),
            "when each interval is made: `\"random\"` (seeded, uniform over one period) or a \
             fixed offset such as `\"0s\"`",
        ),
        KeyDoc::new(
            "driver_resolution",
            ValueType::POSITIVE_DURATION,
            Need::DefaultDuration(ticklab_sim::NS_PER_MS),
            "the runtime's timer driver's granularity: deadlines round up to it, as in tokio's \
             wheel. `[machine] timer_resolution` is the platform's timer tick, which ends the \
             driver's timed waits",
        )
        .also_read_as(&["timer_resolution"]),
    ],
};
