//! The keys of a hosts scenario's `[model]` table and its nested tables, for the reference and
//! the schema.

mod workloads;

use ticklab_sim::{MAX_DRIFT_PPB, Platform};

use super::network::{LinkSpec, PartitionSpec, SpikeSpec};
use super::spec::host::HostSpec;
use super::spec::{Carrier, HostsSpec, MAX_HOSTS};
use super::thaw::ThawOrder;
use crate::scenario::key_table::{FloatEnd, KeyDoc, KeyTable, Need, ValueType};
use crate::scenario::values::Named;

pub use workloads::{HEARTBEAT, LEASE, RPC};

/// `[model]` with `kind = "hosts"`.
pub static MODEL: KeyTable = KeyTable {
    header: "[model]",
    about: "several hosts on one network, each a machine with clocks of its own, and the \
            workloads that run on them",
    serde_fields: crate::scenario::keys_of::<HostsSpec>,
    keys: &[
        KeyDoc::new(
            "kind",
            ValueType::Choice(&["hosts"]),
            Need::Required,
            "the model kind",
        ),
        KeyDoc::new(
            "network",
            ValueType::Choice(<Carrier as Named>::NAMES),
            Need::Default("\"turmoil\""),
            "what carries messages: turmoil's UDP, stepped every `tick` while a datagram is in \
             flight, with turmoil's latency model; or `events`, ticklab's own queue, a latency \
             drawn uniformly from the range, for big clusters",
        ),
        KeyDoc::new(
            "tick",
            ValueType::Duration { min_ns: 1_000_000 },
            Need::Default("\"1ms\""),
            "turmoil's step, whole milliseconds up to 1 s, the resolution of every latency; \
             turmoil only",
        ),
        KeyDoc::new(
            "latency",
            ValueType::DurationOrRange,
            Need::Default("[\"1ms\", \"5ms\"]"),
            "one-way latency of every link; on turmoil at least one `tick`",
        ),
        KeyDoc::new(
            "host",
            ValueType::Tables(&HOST),
            Need::Required,
            "`[[model.host]]`: the hosts",
        ),
        KeyDoc::new(
            "link",
            ValueType::Tables(&LINK),
            Need::Optional,
            "`[[model.link]]`: a link's own latency",
        ),
        KeyDoc::new(
            "partition",
            ValueType::Tables(&PARTITION),
            Need::Optional,
            "`[[model.partition]]`: links cut for a while",
        ),
        KeyDoc::new(
            "spike",
            ValueType::Tables(&SPIKE),
            Need::Optional,
            "`[[model.spike]]`: links slower for a while",
        ),
        KeyDoc::new(
            "thaw_order",
            ValueType::Choice(<ThawOrder as Named>::NAMES),
            Need::Default("\"io-first\""),
            "what a host handles first when it runs again with timers due and messages \
             buffered: `io-first` reads the messages, then runs the timers; `timers-first` the \
             other way round (ZooKeeper's session tracker); `tokio` is tokio's driver turn. \
             Every host's unless it names its own",
        ),
        KeyDoc::new(
            "lease",
            ValueType::Table(&LEASE),
            Need::Optional,
            "`[model.lease]`: a leader lease",
        ),
        KeyDoc::new(
            "heartbeat",
            ValueType::Table(&HEARTBEAT),
            Need::Optional,
            "`[model.heartbeat]`: a failure detector",
        ),
        KeyDoc::new(
            "rpc",
            ValueType::Table(&RPC),
            Need::Optional,
            "`[model.rpc]`: calls with deadlines",
        ),
    ],
};

/// `[[model.host]]`.
pub static HOST: KeyTable = KeyTable {
    header: "[[model.host]]",
    about: "a host, or `count` alike ones named `<name>-1`, `<name>-2` and so on",
    serde_fields: crate::scenario::keys_of::<HostSpec>,
    keys: &[
        KeyDoc::new("name", ValueType::Text, Need::Required, "its name"),
        KeyDoc::new(
            "count",
            ValueType::Count {
                min: 1,
                max: MAX_HOSTS as i64,
            },
            Need::Optional,
            "that many alike hosts, `<name>-1` ...",
        ),
        KeyDoc::new(
            "platform",
            ValueType::Choice(Platform::NAMES),
            Need::Default("the scenario's"),
            "decides what its `Instant` reads",
        ),
        KeyDoc::new(
            "drift_ppm",
            ValueType::Float {
                low: FloatEnd::Closed(-(MAX_DRIFT_PPB as f64) / 1_000.0),
                high: FloatEnd::Closed(MAX_DRIFT_PPB as f64 / 1_000.0),
            },
            Need::Default("0"),
            "its crystal's error in parts per million, on all three clocks; positive runs fast",
        ),
        KeyDoc::new(
            "wall_offset",
            ValueType::SignedDuration,
            Need::DefaultDuration(0),
            "where its wall clock starts against `wall_start`",
        ),
        KeyDoc::new(
            "thaw_order",
            ValueType::Choice(<ThawOrder as Named>::NAMES),
            Need::Default("the `[model]`'s"),
            "what it handles first when it runs again",
        ),
        KeyDoc::new(
            "machine",
            ValueType::Table(&crate::machine::keys::MACHINE),
            Need::Optional,
            "`[model.host.machine]`: its cores, load and timer rules, over the top-level \
             `[machine]` key by key",
        ),
        KeyDoc::new(
            "fault",
            ValueType::Tables(&crate::scenario::top_keys::FAULT),
            Need::Optional,
            "`[[model.host.fault]]`: its faults, with the keys of `[[fault]]`",
        ),
    ],
};

/// `[[model.link]]`.
pub static LINK: KeyTable = KeyTable {
    header: "[[model.link]]",
    about: "a link with a latency of its own",
    serde_fields: crate::scenario::keys_of::<LinkSpec>,
    keys: &[
        KeyDoc::new(
            "between",
            ValueType::List(&ValueType::Text),
            Need::Required,
            "`[\"a\", \"b\"]`, or `[\"a\", \"*\"]`: a and every other host",
        ),
        KeyDoc::new(
            "latency",
            ValueType::DurationOrRange,
            Need::Required,
            "its one-way latency",
        ),
    ],
};

/// `[[model.partition]]`.
pub static PARTITION: KeyTable = KeyTable {
    header: "[[model.partition]]",
    about: "links cut for a while: messages across them are lost",
    serde_fields: crate::scenario::keys_of::<PartitionSpec>,
    keys: &[
        KeyDoc::new(
            "between",
            ValueType::List(&ValueType::Text),
            Need::Required,
            "the hosts it cuts apart, as a link's `between`",
        ),
        KeyDoc::new("at", ValueType::DURATION, Need::Required, "when it begins"),
        KeyDoc::new(
            "duration",
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "repaired after it; never without",
        ),
    ],
};

/// `[[model.spike]]`.
pub static SPIKE: KeyTable = KeyTable {
    header: "[[model.spike]]",
    about: "links slower for a while",
    serde_fields: crate::scenario::keys_of::<SpikeSpec>,
    keys: &[
        KeyDoc::new(
            "between",
            ValueType::List(&ValueType::Text),
            Need::Required,
            "the hosts it slows, as a link's `between`",
        ),
        KeyDoc::new("at", ValueType::DURATION, Need::Required, "when it begins"),
        KeyDoc::new(
            "duration",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "how long it lasts",
        ),
        KeyDoc::new(
            "latency",
            ValueType::DurationOrRange,
            Need::Required,
            "the latency meanwhile",
        ),
    ],
};
