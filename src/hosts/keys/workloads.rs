//! The keys of a hosts scenario's workload tables: `[model.lease]`, `[model.heartbeat]` and
//! `[model.rpc]`.

use ticklab_models::detector::Detector;

use crate::hosts::heartbeat::{DEFAULT_PEERS, HeartbeatSpec};
use crate::hosts::lease::LeaseSpec;
use crate::hosts::rpc::RpcSpec;
use crate::hosts::spec::HostClock;
use crate::scenario::key_table::{FloatEnd, KeyDoc, KeyTable, Need, ValueType};
use crate::scenario::values::Named;

const CLOCK_ABOUT: &str = "the clock every host measures it on: `instant` (the host's `Instant`, \
                           which its platform decides), `monotonic`, `boottime` or `wall`";
const CPU_ABOUT: &str = "CPU each piece of its work costs its thread, on a host with a \
                         `[machine]` (refused when no host has one)";

/// `[model.lease]`.
pub static LEASE: KeyTable = KeyTable {
    header: "[model.lease]",
    about: "a leader lease that a coordinator grants to candidates, and the leader's writes",
    serde_fields: crate::scenario::keys_of::<LeaseSpec>,
    keys: &[
        KeyDoc::new(
            "length",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "a grant lasts this long on the coordinator's clock",
        ),
        KeyDoc::new(
            "renew_every",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "candidates ask this often (on their `Instant`); the holder's ask renews",
        ),
        KeyDoc::new(
            "clock",
            ValueType::Choice(<HostClock as Named>::NAMES),
            Need::Default("\"instant\""),
            CLOCK_ABOUT,
        ),
        KeyDoc::new(
            "drift_bound_ppm",
            ValueType::Float {
                low: FloatEnd::Closed(0.0),
                high: FloatEnd::Open(100_000.0),
            },
            Need::Default("0"),
            "the holder gives the lease up this much early by its own clock",
        ),
        KeyDoc::new(
            "fencing",
            ValueType::Bool,
            Need::Default("false"),
            "writes carry the lease's token; storage refuses old ones",
        ),
        KeyDoc::new(
            "coordinator",
            ValueType::Text,
            Need::Required,
            "the host that grants it",
        ),
        KeyDoc::new(
            "storage",
            ValueType::Text,
            Need::Default("the coordinator"),
            "where leaders write",
        ),
        KeyDoc::new(
            "candidates",
            ValueType::List(&ValueType::Text),
            Need::Default("every other host"),
            "the hosts that compete for the lease",
        ),
        KeyDoc::new(
            "write_every",
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "the leader checks its lease and writes this often (else never)",
        ),
        KeyDoc::new(
            "write_takes",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "from the check to the write going out",
        ),
        KeyDoc::new(
            "cpu",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            CPU_ABOUT,
        ),
    ],
};

/// `[model.heartbeat]`.
pub static HEARTBEAT: KeyTable = KeyTable {
    header: "[model.heartbeat]",
    about: "a failure detector: hosts send heartbeats to their peers and suspect silent ones",
    serde_fields: crate::scenario::keys_of::<HeartbeatSpec>,
    keys: &[
        KeyDoc::new(
            "every",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each host sends to its next `peers` hosts this often (on its `Instant`)",
        ),
        KeyDoc::new(
            "suspect_after",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "a host suspects a peer silent this long on `clock`",
        ),
        KeyDoc::new(
            "clock",
            ValueType::Choice(<HostClock as Named>::NAMES),
            Need::Default("\"instant\""),
            CLOCK_ABOUT,
        ),
        KeyDoc::new(
            "peers",
            ValueType::Count { min: 1, max: 64 },
            Need::DefaultCount(DEFAULT_PEERS),
            "how many hosts each one watches",
        ),
        KeyDoc::new(
            "hosts",
            ValueType::List(&ValueType::Text),
            Need::Default("every host"),
            "the hosts that take part",
        ),
        KeyDoc::new(
            "detector",
            ValueType::Choice(Detector::NAMES),
            Need::Default("\"timeout\""),
            "how a watcher decides: `timeout` suspects a peer silent for `suspect_after`",
        ),
        KeyDoc::new(
            "cpu",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            CPU_ABOUT,
        ),
    ],
};

/// `[model.rpc]`.
pub static RPC: KeyTable = KeyTable {
    header: "[model.rpc]",
    about: "calls from clients to a server, each with a deadline a timer design arms",
    serde_fields: crate::scenario::keys_of::<RpcSpec>,
    keys: &[
        KeyDoc::new(
            "clients",
            ValueType::List(&ValueType::Text),
            Need::Required,
            "the hosts that call",
        ),
        KeyDoc::new(
            "server",
            ValueType::Text,
            Need::Required,
            "the host that answers",
        ),
        KeyDoc::new(
            "design",
            ValueType::TimerDesign,
            Need::Required,
            "the registered timer design that arms the deadlines",
        ),
        KeyDoc::new(
            "clock",
            ValueType::Choice(<HostClock as Named>::NAMES),
            Need::Default("\"instant\""),
            "the clients' clock the design reads",
        ),
        KeyDoc::new(
            "call_every",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each client calls this often",
        ),
        KeyDoc::new(
            "timeout",
            ValueType::POSITIVE_DURATION,
            Need::Required,
            "each call's deadline",
        ),
        KeyDoc::new(
            "serve_time",
            ValueType::DurationOrRange,
            Need::Default("[\"500us\", \"2ms\"]"),
            "how long the server takes to answer, drawn from the range",
        ),
        KeyDoc::new(
            "cpu",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            CPU_ABOUT,
        ),
    ],
};
