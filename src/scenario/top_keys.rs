//! The keys every scenario file has at its top level, and its `[[fault]]` tables, each read and
//! documented in one declaration (`key_struct!`).

use serde::Deserialize;
use ticklab_sim::{ClockId, FaultKind, Platform};
use toml::Spanned;

use super::schema::ExpectTable;
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{FloatEnd, KeyDoc, Need, ValueType};
use crate::scenario::values::{Bytes, DurationNs, Name, SignedDurationNs};

key_struct! {
    /// Top-level keys every scenario has; `M` is the model's own `[model]` table.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a scenario")]
    pub(crate) struct ScenarioFile<M> as ScenarioFile<toml::Value>;
    /// The top level of a scenario file.
    pub static TOP = (
        "(top level)",
        "what every scenario file says, whatever its model",
    );
    {
        pub about: String => KeyDoc::unnamed(
            ValueType::Text,
            Need::Required,
            "one line saying what the scenario shows",
        ),
        pub platform: Name<Platform> => KeyDoc::unnamed(
            ValueType::Choice(Platform::NAMES),
            Need::Required,
            "decides the clock `Instant` reads (`android` is an app built with upstream Rust, on \
             `CLOCK_MONOTONIC`; `android-aosp` is code built with AOSP's toolchain, whose patched \
             `Instant` reads `CLOCK_BOOTTIME`)",
        ),
        pub instant_clock: Option<Name<ClockId>> => KeyDoc::unnamed(
            ValueType::Choice(ClockId::NAMES),
            Need::Default("the platform's"),
            "overrides the clock `Instant` reads",
        ),
        pub seed: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: i64::MAX,
            },
            Need::DefaultCount(0),
            "the seed of every random draw; `ticklab run --seed N` replaces it",
        ),
        pub run_for: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::Duration { min_ns: 1 },
            Need::Required,
            "physical length of the run, up to 100 years",
        ),
        pub wall_start: Option<Spanned<String>> => KeyDoc::unnamed(
            ValueType::Timestamp,
            Need::Default(super::setting::DEFAULT_WALL_START),
            "RFC 3339 time of the wall clock at t = 0, between 1900 and 2100",
        ),
        pub max_memory: Option<Spanned<Bytes>> => KeyDoc::unnamed(
            ValueType::Bytes,
            Need::Default("1GiB"),
            "raises the memory bound for this scenario, such as `\"2GiB\"`, for a run that \
             really holds that much; never lowers it",
        ),
        pub max_events: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: crate::runner::options::DEFAULT_MAX_EVENTS as i64 + 1,
                max: i64::MAX,
            },
            Need::Default("250,000,000"),
            "raises the bound on a run's work for this scenario, such as `3_000_000_000`, for a \
             run that really does that much; never lowers it",
        ),
        pub machine: Option<crate::machine::keys::MachineSpec> => KeyDoc::unnamed(
            ValueType::Table(&crate::machine::keys::MACHINE),
            Need::Optional,
            "the machine it runs on: cores, outside load, the platform's timer rules",
        ),
        pub model: M => KeyDoc::unnamed(
            ValueType::Model,
            Need::Required,
            "the design under test; `kind` picks it",
        ),
        #[serde(default)]
        pub faults as "fault": Vec<Spanned<FaultSpec>> => KeyDoc::unnamed(
            ValueType::Tables(&FAULT),
            Need::Optional,
            "`[[fault]]`: any number, in any order, overlapping freely",
        ),
        pub expect: Option<ExpectTable> => KeyDoc::unnamed(
            ValueType::Expect,
            Need::Optional,
            "bounds on the summary's metrics",
        ),
    }
}

key_struct! {
    /// One `[[fault]]` table; which keys apply depends on `kind`.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[fault]] table")]
    pub(crate) struct FaultSpec;
    /// One `[[fault]]` table (and a hosts scenario's `[[model.host.fault]]`).
    pub static FAULT = (
        "[[fault]]",
        "one fault; which keys it takes depends on its `kind`",
    );
    {
        pub kind: Name<FaultKind> => KeyDoc::unnamed(
            ValueType::Choice(FaultKind::NAMES),
            Need::Required,
            "what happens",
        ),
        pub at: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Required,
            "when it begins, in physical time from the start of the run; before `run_for`",
        ),
        pub duration: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "how long it lasts: suspends, slews and cpu-load",
        ),
        pub by: Option<Spanned<SignedDurationNs>> => KeyDoc::unnamed(
            ValueType::SignedDuration,
            Need::Optional,
            "how far the wall clock jumps, forward or (negative) back, at most 100 years: wall \
             steps",
        ),
        pub rate: Option<Spanned<f64>> => KeyDoc::unnamed(
            ValueType::Float {
                low: FloatEnd::Open(-1.0),
                high: FloatEnd::Open(1.0),
            },
            Need::Optional,
            "the wall clock runs `1 + rate` times as fast; overlapping slews add up: wall slews",
        ),
        pub threads: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count { min: 1, max: 1_024 },
            Need::Optional,
            "other programs' threads that compute for the fault's duration, on the machine's \
             `cores`; one per core if only `share` is written: cpu-load",
        ),
        pub share: Option<Spanned<f64>> => KeyDoc::unnamed(
            ValueType::Float {
                low: FloatEnd::Open(0.0),
                high: FloatEnd::Closed(1.0),
            },
            Need::Optional,
            "the share of its time each of those threads computes, in bursts arriving at random \
             that last the machine's `load_burst` on average; all of it if not written: cpu-load",
        ),
    }
}

/// What a fault kind does, and the keys it takes besides `kind` and `at`.
#[derive(Debug)]
pub struct FaultDoc {
    pub kind: &'static str,
    pub keys: &'static [&'static str],
    pub effect: &'static str,
}

/// Every fault kind, in the order of [`FaultKind::NAMES`].
pub static FAULTS: &[FaultDoc] = &[
    FaultDoc {
        kind: "system-suspend",
        keys: &["duration"],
        effect: "nothing runs; monotonic stops; boottime and wall count on",
    },
    FaultDoc {
        kind: "process-suspend",
        keys: &["duration"],
        effect: "the process is frozen; every clock runs",
    },
    FaultDoc {
        kind: "wall-step",
        keys: &["by"],
        effect: "the wall clock jumps",
    },
    FaultDoc {
        kind: "wall-slew",
        keys: &["duration", "rate"],
        effect: "the wall clock runs `1 + rate` times as fast; overlapping slews add up",
    },
    FaultDoc {
        kind: "cpu-load",
        keys: &["duration", "threads", "share"],
        effect: "other programs' threads compute on the machine's cores; every clock runs",
    },
];
