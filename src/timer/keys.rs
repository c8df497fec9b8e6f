//! The keys every timer scenario's `[model]` table takes, each read and documented in one
//! declaration (`key_struct!`). A design's own keys come from its `BuildTimerDesign::KEYS`, through
//! the registry.

use serde::Deserialize;
use ticklab_models::timer::TimerClock;
use toml::Spanned;

use super::spec::{DEFAULT_CAPACITY, DEFAULT_TASK_BYTES};
use super::thaw::ThawOrder;
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{FloatEnd, KeyDoc, Need, ValueType};
use crate::scenario::values::{DurationNs, DurationOrRange, Name, Named};

key_struct! {
    /// The keys every timer scenario takes. A design's own keys are read beside them
    /// (in `timer::design_keys`), which also refuses any key neither knows.
    #[derive(Debug, Deserialize)]
    #[serde(expecting = "a [model] table")]
    pub struct TimerSpec;
    /// `[model]` with `kind = "timer"`, without the keys of its designs.
    pub static MODEL = (
        "[model]",
        "an RPC-style load on one timer design: each call schedules a timer and its response \
            unschedules it",
    );
    {
        #[allow(
            dead_code,
            reason = "read by the model probe; listed so the key is accepted"
        )]
        pub(super) kind: String => KeyDoc::unnamed(
            ValueType::Choice(&["timer"]),
            Need::Required,
            "the model kind",
        ),
        pub(super) design: Spanned<String> => KeyDoc::unnamed(
            ValueType::TimerDesign,
            Need::Required,
            "the timer design under test: any registered design (see the designs page)",
        ),
        pub(super) clock: Name<TimerClock> => KeyDoc::unnamed(
            ValueType::Choice(TimerClock::NAMES),
            Need::Required,
            "the clock deadlines are kept on: `wall` (as brpc does, `butil::gettimeofday_us`) or \
             `monotonic`",
        ),
        pub(super) capacity: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: DEFAULT_CAPACITY as i64,
            },
            Need::Default("the most allowed"),
            "the most timers the whole design holds at once (scheduled, or cancelled and not yet \
             freed), whatever bucket or thread they are in; slots are made as they are first \
             needed. A schedule that finds none free is a `schedule_failure`",
        ),
        pub(super) task_bytes: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: 1 << 20,
            },
            Need::DefaultCount(DEFAULT_TASK_BYTES as i64),
            "what one timer slot stands for in `peak_live_bytes` and the trace's memory samples; \
             64 is brpc's cache-line-aligned `Task`",
        ),
        pub(super) clients: Spanned<i64> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: 100_000,
            },
            Need::Required,
            "calling threads, each starting a call every `call_interval` at a seeded phase",
        ),
        pub(super) call_interval: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each client starts a call this often",
        ),
        pub(super) timeout: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each call's timeout: the timer it schedules",
        ),
        pub(super) latency: Spanned<DurationOrRange> => KeyDoc::unnamed(
            ValueType::DurationOrRange,
            Need::Required,
            "a duration, or `[\"1ms\", \"20ms\"]`: response latency drawn uniformly",
        ),
        pub(super) slow_responses: Option<Spanned<f64>> => KeyDoc::unnamed(
            ValueType::Float {
                low: FloatEnd::Closed(0.0),
                high: FloatEnd::Closed(1.0),
            },
            Need::Default("0"),
            "the fraction of responses that take `slow_latency` instead",
        ),
        pub(super) slow_latency: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Optional,
            "their latency, with `slow_responses`; longer than `timeout` makes them time out",
        ),
        pub(super) callback_cost: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "CPU time of each fired timer's callback on its timer thread",
        ),
        pub(super) slow_callback_every: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: i64::MAX,
            },
            Need::Optional,
            "every nth callback costs `slow_callback_cost` instead; the two go together",
        ),
        pub(super) slow_callback_cost: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Optional,
            "what every `slow_callback_every`th callback costs",
        ),
        pub(super) sleep_overshoot: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Default("the platform's timed waits"),
            "how late each timed sleep ends (timer slack and wake-up latency); about 60 µs on \
             Linux",
        ),
        pub(super) thaw_order: Option<Name<ThawOrder>> => KeyDoc::unnamed(
            ValueType::Choice(<ThawOrder as Named>::NAMES),
            Need::Default("\"timers-first\""),
            "what runs first when a frozen process or a sleeping system runs again: \
             `timers-first`, every timer thread whose wait ran out meanwhile, as a scheduler \
             that favours the threads that slept most runs them; `callers-first`, the calls and \
             responses that came due, which then arm timers while the design still lags",
        ),
    }
}
