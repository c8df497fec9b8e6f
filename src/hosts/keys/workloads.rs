//! The keys of a hosts scenario's workload tables: `[model.lease]`, `[model.heartbeat]` and
//! `[model.rpc]`, each read and documented in one declaration (`key_struct!`).

use serde::Deserialize;
use ticklab_models::detector::Detector;
use toml::Spanned;

use crate::hosts::heartbeat::DEFAULT_PEERS;
use crate::hosts::spec::HostClock;
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{FloatEnd, KeyDoc, Need, ValueType};
use crate::scenario::values::{DurationNs, DurationOrRange, Name, Named};

const CLOCK_ABOUT: &str = "the clock every host measures it on: `instant` (the host's `Instant`, \
                           which its platform decides), `monotonic`, `boottime` or `wall`";
const CPU_ABOUT: &str = "CPU each piece of its work costs its thread, on a host with a \
                         `[machine]` (refused when no host has one)";

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model.lease] table")]
    pub struct LeaseSpec;
    /// `[model.lease]`.
    pub static LEASE = (
        "[model.lease]",
        "a leader lease that a coordinator grants to candidates, and the leader's writes",
    );
    {
        pub(crate) length: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "a grant lasts this long on the coordinator's clock",
        ),
        pub(crate) renew_every: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "candidates ask this often (on their `Instant`); the holder's ask renews",
        ),
        pub(crate) clock: Option<Name<HostClock>> => KeyDoc::unnamed(
            ValueType::Choice(<HostClock as Named>::NAMES),
            Need::Default("\"instant\""),
            CLOCK_ABOUT,
        ),
        pub(crate) drift_bound_ppm: Option<Spanned<f64>> => KeyDoc::unnamed(
            ValueType::Float {
                low: FloatEnd::Closed(0.0),
                high: FloatEnd::Open(100_000.0),
            },
            Need::Default("0"),
            "the holder gives the lease up this much early by its own clock",
        ),
        #[serde(default)]
        pub(crate) fencing: bool => KeyDoc::unnamed(
            ValueType::Bool,
            Need::Default("false"),
            "writes carry the lease's token; storage refuses old ones",
        ),
        pub(crate) coordinator: Spanned<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Required,
            "the host that grants it",
        ),
        pub(crate) storage: Option<Spanned<String>> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Default("the coordinator"),
            "where leaders write",
        ),
        pub(crate) candidates: Option<Spanned<Vec<Spanned<String>>>> => KeyDoc::unnamed(
            ValueType::List(&ValueType::Text),
            Need::Default("every other host"),
            "the hosts that compete for the lease",
        ),
        pub(crate) write_every: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "the leader checks its lease and writes this often (else never)",
        ),
        pub(crate) write_takes: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "from the check to the write going out",
        ),
        pub(crate) cpu: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            CPU_ABOUT,
        ),
    }
}

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model.heartbeat] table")]
    pub struct HeartbeatSpec;
    /// `[model.heartbeat]`.
    pub static HEARTBEAT = (
        "[model.heartbeat]",
        "a failure detector: hosts send heartbeats to their peers and suspect silent ones",
    );
    {
        pub(crate) every: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each host sends to its next `peers` hosts this often (on its `Instant`)",
        ),
        pub(crate) suspect_after: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "a host suspects a peer silent this long on `clock`",
        ),
        pub(crate) clock: Option<Name<HostClock>> => KeyDoc::unnamed(
            ValueType::Choice(<HostClock as Named>::NAMES),
            Need::Default("\"instant\""),
            CLOCK_ABOUT,
        ),
        pub(crate) peers: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count { min: 1, max: 64 },
            Need::DefaultCount(DEFAULT_PEERS),
            "how many hosts each one watches",
        ),
        pub(crate) hosts: Option<Spanned<Vec<Spanned<String>>>> => KeyDoc::unnamed(
            ValueType::List(&ValueType::Text),
            Need::Default("every host"),
            "the hosts that take part",
        ),
        pub(crate) detector: Option<Name<Detector>> => KeyDoc::unnamed(
            ValueType::Choice(Detector::NAMES),
            Need::Default("\"timeout\""),
            "how a watcher decides: `timeout` suspects a peer silent for `suspect_after`",
        ),
        pub(crate) cpu: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            CPU_ABOUT,
        ),
    }
}

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model.rpc] table")]
    pub struct RpcSpec;
    /// `[model.rpc]`.
    pub static RPC = (
        "[model.rpc]",
        "calls from clients to a server, each with a deadline a timer design arms",
    );
    {
        pub(crate) clients: Spanned<Vec<Spanned<String>>> => KeyDoc::unnamed(
            ValueType::List(&ValueType::Text),
            Need::Required,
            "the hosts that call",
        ),
        pub(crate) server: Spanned<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Required,
            "the host that answers",
        ),
        pub(crate) design: Spanned<String> => KeyDoc::unnamed(
            ValueType::TimerDesign,
            Need::Required,
            "the registered timer design that arms the deadlines",
        ),
        pub(crate) clock: Option<Name<HostClock>> => KeyDoc::unnamed(
            ValueType::Choice(<HostClock as Named>::NAMES),
            Need::Default("\"instant\""),
            "the clients' clock the design reads",
        ),
        pub(crate) call_every: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each client calls this often",
        ),
        pub(crate) timeout: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each call's deadline",
        ),
        pub(crate) serve_time: Option<Spanned<DurationOrRange>> => KeyDoc::unnamed(
            ValueType::DurationOrRange,
            Need::Default("[\"500us\", \"2ms\"]"),
            "how long the server takes to answer, drawn from the range",
        ),
        pub(crate) cpu: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            CPU_ABOUT,
        ),
    }
}
