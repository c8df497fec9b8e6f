//! The keys of a lock scenario's `[model]` table, each read and documented in one declaration
//! (`key_struct!`).

use serde::Deserialize;
use ticklab_models::lock::LockKind;
use toml::Spanned;

use super::spec::{DEFAULT_READ_HOLD_NS, Spacing, SpawnKind};
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{KeyDoc, Need, ValueType};
use crate::scenario::values::{Bytes, DurationNs, Name, Named};

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model] table")]
    pub struct LockSpec;
    /// `[model]` with `kind = "lock"`.
    pub static MODEL = (
        "[model]",
        "threads that start commands while holding a lock, and the threads that wait for it",
    );
    {
        #[allow(
            dead_code,
            reason = "read by the model probe; listed so the key is accepted"
        )]
        pub(super) kind: String => KeyDoc::unnamed(
            ValueType::Choice(&["lock"]),
            Need::Required,
            "the model kind",
        ),
        pub(super) profile: Spanned<String> => crate::profile::keys::PROFILE,
        pub(super) cores: Option<Spanned<i64>> => crate::machine::keys::MODEL_CORES,
        pub(super) time_slice: Option<Spanned<DurationNs>> =>
            crate::machine::keys::MODEL_TIME_SLICE,
        pub(super) lock: Name<LockKind> => KeyDoc::unnamed(
            ValueType::Choice(<LockKind as Named>::NAMES),
            Need::Required,
            "`mutex`, or `rw`: readers share, a waiting writer holds back later readers",
        ),
        pub(super) spawn: Name<SpawnKind> => KeyDoc::unnamed(
            ValueType::Choice(<SpawnKind as Named>::NAMES),
            Need::Required,
            "how a command starts: `fork` (a base cost plus one per GiB mapped), `vfork` or \
             `posix_spawn` (flat)",
        ),
        pub(super) spawners: Spanned<i64> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: 10_000,
            },
            Need::Required,
            "threads that start commands under the lock, for writing",
        ),
        pub(super) spawn_every: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each spawner's mean gap between commands",
        ),
        pub(super) arrival: Option<Name<Spacing>> => KeyDoc::unnamed(
            ValueType::Choice(<Spacing as Named>::NAMES),
            Need::Default("\"poisson\""),
            "exponential gaps, or `periodic` for exact ones",
        ),
        pub(super) readers: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: 10_000,
            },
            Need::DefaultCount(0),
            "threads that take the lock for reading",
        ),
        pub(super) read_every: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "each reader's mean gap; required with `readers`",
        ),
        pub(super) read_hold: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(DEFAULT_READ_HOLD_NS),
            "the read lock's hold (a pipe2 or socket call)",
        ),
        pub(super) busy_threads: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: 10_000,
            },
            Need::DefaultCount(0),
            "threads that compute all the time",
        ),
        pub(super) memory: Bytes => KeyDoc::unnamed(
            ValueType::Bytes,
            Need::Required,
            "mapped memory at the start, which a `fork` copies the page tables of",
        ),
        pub(super) memory_growth: Option<Bytes> => KeyDoc::unnamed(
            ValueType::Bytes,
            Need::Default("0"),
            "added every second",
        ),
        pub(super) memory_max: Option<Spanned<Bytes>> => KeyDoc::unnamed(
            ValueType::Bytes,
            Need::Optional,
            "growth stops here",
        ),
        pub(super) window: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Default("a tenth of the run"),
            "lock-wait percentiles are kept per window of this length",
        ),
    }
}
