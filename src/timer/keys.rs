//! The keys every timer scenario's `[model]` table takes, for the reference and the schema. A
//! design's own keys come from its `BuildTimerDesign::KEYS`, through the registry.

use ticklab_models::timer::TimerClock;

use super::spec::{DEFAULT_CAPACITY, DEFAULT_TASK_BYTES, TimerSpec};
use super::thaw::ThawOrder;
use crate::scenario::key_table::{FloatEnd, KeyDoc, KeyTable, Need, ValueType};
use crate::scenario::values::Named;

/// `[model]` with `kind = "timer"`, without the keys of its designs.
pub static MODEL: KeyTable = KeyTable {
    header: "[model]",
    about: "an RPC-style load on one timer design: each call schedules a timer and its response \
            unschedules it",
    serde_fields: crate::scenario::keys_of::<TimerSpec>,
    keys: &[
        KeyDoc::new(
            "kind",
            ValueType::Choice(&["timer"]),
            Need::Required,
            "the model kind",
        ),
        KeyDoc::new(
            "design",
            ValueType::TimerDesign,
            Need::Required,
            "the timer design under test: any registered design (see the designs page)",
        ),
        KeyDoc::new(
            "clock",
            ValueType::Choice(TimerClock::NAMES),
            Need::Required,
            "the clock deadlines are kept on: `wall` (as brpc does, `butil::gettimeofday_us`) or \
             `monotonic`",
        ),
        KeyDoc::new(
            "capacity",
            ValueType::Count {
                min: 1,
                max: DEFAULT_CAPACITY as i64,
            },
            Need::Default("the most allowed"),
            "the most timers the whole design holds at once (scheduled, or cancelled and not yet \
             freed), whatever bucket or thread they are in; slots are made as they are first \
             needed. A schedule that finds none free is a `schedule_failure`",
        ),
        KeyDoc::new(
            "task_bytes",
            ValueType::Count {
                min: 1,
                max: 1 << 20,
            },
            Need::DefaultCount(DEFAULT_TASK_BYTES as i64),
            "what one timer slot stands for in `peak_live_bytes` and the trace's memory samples; \
             64 is brpc's cache-line-aligned `Task`",
        ),
        KeyDoc::new(
            "clients",
            ValueType::Count {
                min: 1,
                max: 100_000,
            },
            Need::Required,
            "calling threads, each starting a call every `call_interval` at a seeded phase",
        ),
        KeyDoc::new(
            "call_interval",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each client starts a call this often",
        ),
        KeyDoc::new(
            "timeout",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each call's timeout: the timer it schedules",
        ),
        KeyDoc::new(
            "latency",
            ValueType::DurationOrRange,
            Need::Required,
            "a duration, or `[\"1ms\", \"20ms\"]`: response latency drawn uniformly",
        ),
        KeyDoc::new(
            "slow_responses",
            ValueType::Float {
                low: FloatEnd::Closed(0.0),
                high: FloatEnd::Closed(1.0),
            },
            Need::Default("0"),
            "the fraction of responses that take `slow_latency` instead",
        ),
        KeyDoc::new(
            "slow_latency",
            ValueType::DURATION,
            Need::Optional,
            "their latency, with `slow_responses`; longer than `timeout` makes them time out",
        ),
        KeyDoc::new(
            "callback_cost",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "CPU time of each fired timer's callback on its timer thread",
        ),
        KeyDoc::new(
            "slow_callback_every",
            ValueType::Count {
                min: 1,
                max: i64::MAX,
            },
            Need::Optional,
            "every nth callback costs `slow_callback_cost` instead; the two go together",
        ),
        KeyDoc::new(
            "slow_callback_cost",
            ValueType::DURATION,
            Need::Optional,
            "what every `slow_callback_every`th callback costs",
        ),
        KeyDoc::new(
            "sleep_overshoot",
            ValueType::DURATION,
            Need::Default("the platform's timed waits"),
            "how late each timed sleep ends (timer slack and wake-up latency); about 60 µs on \
             Linux",
        ),
        KeyDoc::new(
            "thaw_order",
            ValueType::Choice(<ThawOrder as Named>::NAMES),
            Need::Default("\"timers-first\""),
            "what runs first when a frozen process or a sleeping system runs again: \
             `timers-first`, every timer thread whose wait ran out meanwhile, as a scheduler \
             that favours the threads that slept most runs them; `callers-first`, the calls and \
             responses that came due, which then arm timers while the design still lags",
        ),
    ],
};
