//! The keys of an idle scenario's `[model]` table, for the reference and the schema.

use super::spec::{ArrivalKind, DEFAULT_HANDLE_NS, DEFAULT_TIMEOUT_NS, IdleSpec, StrategyKind};
use crate::scenario::key_table::{KeyDoc, KeyTable, Need, ValueType};
use crate::scenario::values::Named;

/// `[model]` with `kind = "idle"`.
pub static MODEL: KeyTable = KeyTable {
    header: "[model]",
    about: "one event loop per idle strategy, each on its own core, all seeing the same events",
    serde_fields: crate::scenario::keys_of::<IdleSpec>,
    keys: &[
        KeyDoc::new(
            "kind",
            ValueType::Choice(&["idle"]),
            Need::Required,
            "the model kind",
        ),
        crate::profile::keys::PROFILE,
        KeyDoc::new(
            "strategies",
            ValueType::List(&ValueType::Choice(<StrategyKind as Named>::NAMES)),
            Need::Required,
            "the idle strategies, one loop each: polling (`spin`, `yield`, `sleep0`) notices an \
             event at the end of the call it arrived in; `condvar` and `epoll` are woken by it; \
             `sleep` notices it when its sleep ends",
        ),
        KeyDoc::new(
            "timeout",
            ValueType::POSITIVE_DURATION,
            Need::DefaultDuration(DEFAULT_TIMEOUT_NS),
            "the condvar and epoll timeout (epoll rounds up to whole ms), and the sleep",
        ),
        KeyDoc::new(
            "timer_slack",
            ValueType::DURATION,
            Need::Default("the profile's"),
            "replaces the profile's timer slack, as `PR_SET_TIMERSLACK` would",
        ),
        KeyDoc::new(
            "handle",
            ValueType::DURATION,
            Need::DefaultDuration(DEFAULT_HANDLE_NS),
            "CPU each event takes",
        ),
        KeyDoc::new(
            "calls",
            ValueType::Count {
                min: 0,
                max: 1_000_000_000_000,
            },
            Need::Optional,
            "each loop stops after this many idle calls; a scenario needs events or `calls`",
        ),
        KeyDoc::new(
            "arrival",
            ValueType::Choice(<ArrivalKind as Named>::NAMES),
            Need::Optional,
            "how events arrive; without it, none do",
        ),
        KeyDoc::new(
            "every",
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "with `arrival`: the period, mean gap or gap between bursts",
        ),
        KeyDoc::new(
            "burst",
            ValueType::Count {
                min: 1,
                max: 1_000_000,
            },
            Need::DefaultCount(8),
            "`bursts` only: events per burst",
        ),
        KeyDoc::new(
            "burst_spacing",
            ValueType::DURATION,
            Need::DefaultDuration(10_000),
            "`bursts` only: the gap inside a burst",
        ),
    ],
};
