//! The keys of a hosts scenario's `[model]` table and its nested tables, each read and documented
//! in one declaration (`key_struct!`).

pub(crate) mod workloads;

pub use workloads::{HEARTBEAT, LEASE, RPC};

use serde::Deserialize;
use ticklab_sim::{MAX_DRIFT_PPB, Platform};
use toml::Spanned;

use super::spec::{Carrier, MAX_HOSTS};
use super::thaw::ThawOrder;
use crate::hosts::keys::workloads::{HeartbeatSpec, LeaseSpec, RpcSpec};
use crate::machine::keys::MachineSpec;
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{FloatEnd, KeyDoc, Need, ValueType};
use crate::scenario::top_keys::FaultSpec as FaultTable;
use crate::scenario::values::{DurationNs, DurationOrRange, Name, Named, SignedDurationNs};

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model] table")]
    pub struct HostsSpec;
    /// `[model]` with `kind = "hosts"`.
    pub static MODEL = (
        "[model]",
        "several hosts on one network, each a machine with clocks of its own, and the \
            workloads that run on them",
    );
    {
        #[allow(
            dead_code,
            reason = "read by the model probe; listed so the key is accepted"
        )]
        pub(crate) kind: String => KeyDoc::unnamed(
            ValueType::Choice(&["hosts"]),
            Need::Required,
            "the model kind",
        ),
        pub(crate) network: Option<Name<Carrier>> => KeyDoc::unnamed(
            ValueType::Choice(<Carrier as Named>::NAMES),
            Need::Default("\"turmoil\""),
            "what carries messages: turmoil's UDP, stepped every `tick` while a datagram is in \
             flight, with turmoil's latency model; or `events`, ticklab's own queue, a latency \
             drawn uniformly from the range, for big clusters",
        ),
        pub(crate) tick: Option<Spanned<crate::scenario::values::DurationNs>> => KeyDoc::unnamed(
            ValueType::Duration { min_ns: 1_000_000 },
            Need::Default("\"1ms\""),
            "turmoil's step, whole milliseconds up to 1 s, the resolution of every latency; \
             turmoil only",
        ),
        pub(super) latency: Option<Spanned<DurationOrRange>> => KeyDoc::unnamed(
            ValueType::DurationOrRange,
            Need::Default("[\"1ms\", \"5ms\"]"),
            "one-way latency of every link; on turmoil at least one `tick`",
        ),
        #[serde(default)]
        pub(crate) host: Vec<Spanned<HostSpec>> => KeyDoc::unnamed(
            ValueType::Tables(&HOST),
            Need::Required,
            "`[[model.host]]`: the hosts",
        ),
        #[serde(default)]
        pub(super) link: Vec<Spanned<LinkSpec>> => KeyDoc::unnamed(
            ValueType::Tables(&LINK),
            Need::Optional,
            "`[[model.link]]`: a link's own latency",
        ),
        #[serde(default)]
        pub(super) partition: Vec<Spanned<PartitionSpec>> => KeyDoc::unnamed(
            ValueType::Tables(&PARTITION),
            Need::Optional,
            "`[[model.partition]]`: links cut for a while",
        ),
        #[serde(default)]
        pub(super) spike: Vec<Spanned<SpikeSpec>> => KeyDoc::unnamed(
            ValueType::Tables(&SPIKE),
            Need::Optional,
            "`[[model.spike]]`: links slower for a while",
        ),
        /// Every host's, unless it names its own.
        pub(crate) thaw_order: Option<Name<ThawOrder>> => KeyDoc::unnamed(
            ValueType::Choice(<ThawOrder as Named>::NAMES),
            Need::Default("\"io-first\""),
            "what a host handles first when it runs again with timers due and messages \
             buffered: `io-first` reads the messages, then runs the timers; `timers-first` the \
             other way round (ZooKeeper's session tracker); `tokio` is tokio's driver turn. \
             Every host's unless it names its own",
        ),
        pub(crate) lease: Option<Spanned<LeaseSpec>> => KeyDoc::unnamed(
            ValueType::Table(&LEASE),
            Need::Optional,
            "`[model.lease]`: a leader lease",
        ),
        pub(crate) heartbeat: Option<Spanned<HeartbeatSpec>> => KeyDoc::unnamed(
            ValueType::Table(&HEARTBEAT),
            Need::Optional,
            "`[model.heartbeat]`: a failure detector",
        ),
        pub(crate) rpc: Option<Spanned<RpcSpec>> => KeyDoc::unnamed(
            ValueType::Table(&RPC),
            Need::Optional,
            "`[model.rpc]`: calls with deadlines",
        ),
    }
}

key_struct! {
    /// One `[[model.host]]` table: a host, or `count` alike ones named `<name>-1`, `<name>-2`, ...
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[model.host]] table")]
    pub(crate) struct HostSpec;
    /// `[[model.host]]`.
    pub static HOST = (
        "[[model.host]]",
        "a host, or `count` alike ones named `<name>-1`, `<name>-2` and so on",
    );
    {
        pub(crate) name: Spanned<String> => KeyDoc::unnamed(
            ValueType::Text, Need::Required, "its name"),
        pub(crate) count: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: MAX_HOSTS as i64,
            },
            Need::Optional,
            "that many alike hosts, `<name>-1` ...",
        ),
        pub(crate) platform: Option<Name<Platform>> => KeyDoc::unnamed(
            ValueType::Choice(Platform::NAMES),
            Need::Default("the scenario's"),
            "decides what its `Instant` reads",
        ),
        pub(crate) drift_ppm: Option<Spanned<f64>> => KeyDoc::unnamed(
            ValueType::Float {
                low: FloatEnd::Closed(-(MAX_DRIFT_PPB as f64) / 1_000.0),
                high: FloatEnd::Closed(MAX_DRIFT_PPB as f64 / 1_000.0),
            },
            Need::Default("0"),
            "its crystal's error in parts per million, on all three clocks; positive runs fast",
        ),
        pub(crate) wall_offset: Option<Spanned<SignedDurationNs>> => KeyDoc::unnamed(
            ValueType::SignedDuration,
            Need::DefaultDuration(0),
            "where its wall clock starts against `wall_start`",
        ),
        pub(crate) thaw_order: Option<Name<ThawOrder>> => KeyDoc::unnamed(
            ValueType::Choice(<ThawOrder as Named>::NAMES),
            Need::Default("the `[model]`'s"),
            "what it handles first when it runs again",
        ),
        /// `[model.host.machine]`: over the cluster's `[machine]`, key by key.
        pub(crate) machine: Option<MachineSpec> => KeyDoc::unnamed(
            ValueType::Table(&crate::machine::keys::MACHINE),
            Need::Optional,
            "`[model.host.machine]`: its cores, load and timer rules, over the top-level \
             `[machine]` key by key",
        ),
        #[serde(default)]
        pub(crate) fault: Vec<Spanned<FaultTable>> => KeyDoc::unnamed(
            ValueType::Tables(&crate::scenario::top_keys::FAULT),
            Need::Optional,
            "`[[model.host.fault]]`: its faults, with the keys of `[[fault]]`",
        ),
    }
}

key_struct! {
    /// `[[model.link]]`: the latency range between two hosts, or between one and every other.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[model.link]] table")]
    pub struct LinkSpec;
    /// `[[model.link]]`.
    pub static LINK = (
        "[[model.link]]",
        "a link with a latency of its own",
    );
    {
        pub(crate) between: Spanned<Vec<Spanned<String>>> => KeyDoc::unnamed(
            ValueType::List(&ValueType::Text),
            Need::Required,
            "`[\"a\", \"b\"]`, or `[\"a\", \"*\"]`: a and every other host",
        ),
        pub(crate) latency: Spanned<DurationOrRange> => KeyDoc::unnamed(
            ValueType::DurationOrRange,
            Need::Required,
            "its one-way latency",
        ),
    }
}

key_struct! {
    /// `[[model.partition]]`: no message gets through between two hosts from `at`, until it is
    /// repaired after `duration` (never, without one).
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[model.partition]] table")]
    pub struct PartitionSpec;
    /// `[[model.partition]]`.
    pub static PARTITION = (
        "[[model.partition]]",
        "links cut for a while: messages across them are lost",
    );
    {
        pub(crate) between: Spanned<Vec<Spanned<String>>> => KeyDoc::unnamed(
            ValueType::List(&ValueType::Text),
            Need::Required,
            "the hosts it cuts apart, as a link's `between`",
        ),
        pub(crate) at: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION, Need::Required, "when it begins"),
        pub(crate) duration: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "repaired after it; never without",
        ),
    }
}

key_struct! {
    /// `[[model.spike]]`: messages between two hosts take `latency` for a while.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[model.spike]] table")]
    pub struct SpikeSpec;
    /// `[[model.spike]]`.
    pub static SPIKE = (
        "[[model.spike]]",
        "links slower for a while",
    );
    {
        pub(crate) between: Spanned<Vec<Spanned<String>>> => KeyDoc::unnamed(
            ValueType::List(&ValueType::Text),
            Need::Required,
            "the hosts it slows, as a link's `between`",
        ),
        pub(crate) at: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION, Need::Required, "when it begins"),
        pub(crate) duration: Spanned<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "how long it lasts",
        ),
        pub(crate) latency: Spanned<DurationOrRange> => KeyDoc::unnamed(
            ValueType::DurationOrRange,
            Need::Required,
            "the latency meanwhile",
        ),
    }
}
