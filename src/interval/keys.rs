//! The keys of an interval scenario's `[model]` table, each read and documented in one declaration
//! (`key_struct!`).

use serde::Deserialize;
use ticklab_models::interval::MissedTick;
use toml::Spanned;

use super::spec::MAX_COUNT;
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{KeyDoc, Need, ValueType};
use crate::scenario::values::PhaseSpec;
use crate::scenario::values::{DurationNs, DurationOrRange, Name};

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model] table")]
    pub struct IntervalSpec;
    /// `[model]` with `kind = "interval"`.
    pub static MODEL = (
        "[model]",
        "tokio-style intervals on one runtime thread",
    );
    {
        #[allow(
            dead_code,
            reason = "read by the model probe; listed so the key is accepted"
        )]
        pub(super) kind: String => KeyDoc::unnamed(
            ValueType::Choice(&["interval"]),
            Need::Required,
            "the model kind",
        ),
        pub(super) missed_tick: Name<MissedTick> => KeyDoc::unnamed(
            ValueType::Choice(MissedTick::NAMES),
            Need::Required,
            "what an interval does after a missed tick: tokio 1.x's `burst`, `delay` or `skip`, \
             or tokio 0.1's `naive` and `fixed`, which tick one period after they are made; or \
             `cronjob`, Kubernetes's CronJob controller before v2, which starts the latest missed \
             time as `skip` does, and none ever again past 100 missed",
        ),
        pub(super) clock: Option<Spanned<String>> => KeyDoc::unnamed(
            ValueType::Choice(super::spec::CLOCKS),
            Need::Default("\"instant\""),
            "the clock the intervals keep their schedule on: `instant`, the platform's `Instant`, \
             or `wall`, the wall clock with its drift, steps and slews, as `java.util.Timer`, cron \
             and Kubernetes's CronJob schedule",
        ),
        pub(super) period: Spanned<DurationOrRange> => KeyDoc::unnamed(
            ValueType::DurationOrRange,
            Need::Required,
            "a duration, or `[\"10ms\", \"1s\"]`: each interval draws whole milliseconds from \
             the range",
        ),
        pub(super) count: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: MAX_COUNT,
            },
            Need::DefaultCount(1),
            "how many intervals run side by side",
        ),
        pub(super) tick_cost: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "CPU time the runtime thread spends per tick; at most the whole run",
        ),
        pub(super) phase: Option<PhaseSpec> => KeyDoc::unnamed(
            ValueType::RandomOrDuration,
            Need::Default("\"random\""),
            "when each interval is made: `\"random\"` (seeded, uniform over one period) or a \
             fixed offset such as `\"0s\"`",
        ),
        /// Called `timer_resolution` before `[machine]` took that name for the platform's timer
        /// tick; the old spelling is still read.
        pub(super) driver_resolution | "timer_resolution": Option<Spanned<DurationNs>> =>
            KeyDoc::unnamed(
                ValueType::POSITIVE_DURATION,
                Need::DefaultDuration(ticklab_sim::NS_PER_MS),
                "the runtime's timer driver's granularity: deadlines round up to it, as in tokio's \
                 wheel. `[machine] timer_resolution` is the platform's timer tick, which ends the \
                 driver's timed waits",
            ),
    }
}
