//! The keys of an idle scenario's `[model]` table, each read and documented in one declaration
//! (`key_struct!`).

use serde::Deserialize;
use toml::Spanned;

use super::spec::{ArrivalKind, DEFAULT_HANDLE_NS, DEFAULT_TIMEOUT_NS, StrategyKind};
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{KeyDoc, Need, ValueType};
use crate::scenario::values::{DurationNs, Name, Named};

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model] table")]
    pub struct IdleSpec;
    /// `[model]` with `kind = "idle"`.
    pub static MODEL = (
        "[model]",
        "one event loop per idle strategy, each on its own core, all seeing the same events",
    );
    {
        #[allow(
            dead_code,
            reason = "read by the model probe; listed so the key is accepted"
        )]
        pub(super) kind: String => KeyDoc::unnamed(
            ValueType::Choice(&["idle"]),
            Need::Required,
            "the model kind",
        ),
        pub(super) profile: Spanned<String> => crate::profile::keys::PROFILE,
        pub(super) strategies: Spanned<Vec<Name<StrategyKind>>> => KeyDoc::unnamed(
            ValueType::List(&ValueType::Choice(<StrategyKind as Named>::NAMES)),
            Need::Required,
            "the idle strategies, one loop each: polling (`spin`, `yield`, `sleep0`) notices an \
             event at the end of the call it arrived in; `condvar` and `epoll` are woken by it; \
             `sleep` notices it when its sleep ends",
        ),
        pub(super) timeout: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::DefaultDuration(DEFAULT_TIMEOUT_NS),
            "the condvar and epoll timeout (epoll rounds up to whole ms), and the sleep",
        ),
        pub(super) timer_slack: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Default("the profile's"),
            "replaces the profile's timer slack, as `PR_SET_TIMERSLACK` would",
        ),
        pub(super) handle: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(DEFAULT_HANDLE_NS),
            "CPU each event takes",
        ),
        pub(super) calls: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: 1_000_000_000_000,
            },
            Need::Optional,
            "each loop stops after this many idle calls; a scenario needs events or `calls`",
        ),
        pub(super) arrival: Option<Name<ArrivalKind>> => KeyDoc::unnamed(
            ValueType::Choice(<ArrivalKind as Named>::NAMES),
            Need::Optional,
            "how events arrive; without it, none do",
        ),
        pub(super) every: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "with `arrival`: the period, mean gap or gap between bursts",
        ),
        pub(super) burst: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: 1_000_000,
            },
            Need::DefaultCount(8),
            "`bursts` only: events per burst",
        ),
        pub(super) burst_spacing: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(10_000),
            "`bursts` only: the gap inside a burst",
        ),
    }
}
