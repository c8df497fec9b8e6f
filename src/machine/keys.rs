//! The keys of `[machine]`, each read and documented in one declaration (`key_struct!`).

use serde::Deserialize;
use toml::Spanned;

use super::spec::{DEFAULT_LOAD_BURST_NS, MAX_CORES, MAX_LOAD_THREADS};
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{FloatEnd, KeyDoc, Need, ValueType};
use crate::scenario::values::DurationNs;

key_struct! {
    /// The `[machine]` table as TOML gives it.
    #[derive(Clone, Debug, Default, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [machine] table")]
    pub struct MachineSpec;
    /// `[machine]`, for every kind; a hosts scenario's `[model.host.machine]` takes the same keys.
    pub static MACHINE = (
        "[machine]",
        "the machine the model runs on: cores, outside load, the platform's timer rules",
    );
    {
        pub(super) cores: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: MAX_CORES,
            },
            Need::Default("a core per thread"),
            "CPU cores shared round-robin by every simulated thread of every model (the interval \
             runtime thread, timer threads, executor workers and blocking threads, lock and idle \
             threads) and the outside load",
        ),
        pub(super) time_slice: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Default("Linux EEVDF's base slice for the core count"),
            "the round-robin slice of threads sharing a core; needs `cores`",
        ),
        pub(super) busy_threads: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: MAX_LOAD_THREADS,
            },
            Need::DefaultCount(0),
            "threads of other programs that compute the whole run long; needs `cores`",
        ),
        pub(super) load: Option<Spanned<f64>> => KeyDoc::unnamed(
            ValueType::Float {
                low: FloatEnd::Open(0.0),
                high: FloatEnd::Open(1.0),
            },
            Need::Optional,
            "the share of each core other programs keep busy, in bursts arriving at random; \
             needs `cores`",
        ),
        pub(super) load_burst: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::DefaultDuration(DEFAULT_LOAD_BURST_NS),
            "the mean length of one such burst; needs `load`",
        ),
        pub(super) timer_resolution: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Default("\"15.625ms\" on Windows, 0 elsewhere"),
            "the platform's timer tick: every timed wait (a parked driver, a timer thread's \
             sleep, `thread::sleep`) ends on it; `\"1ms\"` is Windows with `timeBeginPeriod(1)`",
        ),
        pub(super) timer_slack: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Default("\"50us\" on Linux, `android` and `android-aosp`, 0 elsewhere"),
            "added to every timed wait, as Linux's default timer slack; `\"0s\"` for realtime \
             threads",
        ),
    }
}

/// `cores` in the `[model]` of a kind whose older files set it there, before `[machine]`.
pub const MODEL_CORES: KeyDoc = KeyDoc::new(
    "cores",
    ValueType::Count {
        min: 1,
        max: MAX_CORES,
    },
    Need::Optional,
    "older files' spelling of `[machine] cores`, still read; a file that sets it in both is \
     refused",
);

/// `time_slice` in the `[model]` of a kind whose older files set it there, before `[machine]`.
pub const MODEL_TIME_SLICE: KeyDoc = KeyDoc::new(
    "time_slice",
    ValueType::POSITIVE_DURATION,
    Need::Optional,
    "older files' spelling of `[machine] time_slice`, still read; a file that sets it in both \
     is refused",
);
