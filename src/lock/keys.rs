//! The keys of a lock scenario's `[model]` table, for the reference and the schema.

use ticklab_models::lock::LockKind;

use super::spec::{DEFAULT_READ_HOLD_NS, LockSpec, Spacing, SpawnKind};
use crate::scenario::key_table::{KeyDoc, KeyTable, Need, ValueType};
use crate::scenario::values::Named;

/// `[model]` with `kind = "lock"`.
pub static MODEL: KeyTable = KeyTable {
    header: "[model]",
    about: "threads that start commands while holding a lock, and the threads that wait for it",
    serde_fields: crate::scenario::keys_of::<LockSpec>,
    keys: &[
        KeyDoc::new(
            "kind",
            ValueType::Choice(&["lock"]),
            Need::Required,
            "the model kind",
        ),
        crate::profile::keys::PROFILE,
        crate::machine::keys::MODEL_CORES,
        crate::machine::keys::MODEL_TIME_SLICE,
        KeyDoc::new(
            "lock",
            ValueType::Choice(<LockKind as Named>::NAMES),
            Need::Required,
            "`mutex`, or `rw`: readers share, a waiting writer holds back later readers",
        ),
        KeyDoc::new(
            "spawn",
            ValueType::Choice(<SpawnKind as Named>::NAMES),
            Need::Required,
            "how a command starts: `fork` (a base cost plus one per GiB mapped), `vfork` or \
             `posix_spawn` (flat)",
        ),
        KeyDoc::new(
            "spawners",
            ValueType::Count {
                min: 0,
                max: 10_000,
            },
            Need::Required,
            "threads that start commands under the lock, for writing",
        ),
        KeyDoc::new(
            "spawn_every",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each spawner's mean gap between commands",
        ),
        KeyDoc::new(
            "arrival",
            ValueType::Choice(<Spacing as Named>::NAMES),
            Need::Default("\"poisson\""),
            "exponential gaps, or `periodic` for exact ones",
        ),
        KeyDoc::new(
            "readers",
            ValueType::Count {
                min: 0,
                max: 10_000,
            },
            Need::DefaultCount(0),
            "threads that take the lock for reading",
        ),
        KeyDoc::new(
            "read_every",
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "each reader's mean gap; required with `readers`",
        ),
        KeyDoc::new(
            "read_hold",
            ValueType::DURATION,
            Need::DefaultDuration(DEFAULT_READ_HOLD_NS),
            "the read lock's hold (a pipe2 or socket call)",
        ),
        KeyDoc::new(
            "busy_threads",
            ValueType::Count {
                min: 0,
                max: 10_000,
            },
            Need::DefaultCount(0),
            "threads that compute all the time",
        ),
        KeyDoc::new(
            "memory",
            ValueType::Bytes,
            Need::Required,
            "mapped memory at the start, which a `fork` copies the page tables of",
        ),
        KeyDoc::new(
            "memory_growth",
            ValueType::Bytes,
            Need::Default("0"),
            "added every second",
        ),
        KeyDoc::new(
            "memory_max",
            ValueType::Bytes,
            Need::Optional,
            "growth stops here",
        ),
        KeyDoc::new(
            "window",
            ValueType::POSITIVE_DURATION,
            Need::Default("a tenth of the run"),
            "lock-wait percentiles are kept per window of this length",
        ),
    ],
};
