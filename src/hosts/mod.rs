//! Hosts on a network, each with clocks of its own: `kind = "hosts"`.
//!
//! Every host is a machine of its own: a platform, its monotonic, boottime and wall clocks, a
//! crystal that may run fast or slow, and faults that stop or move its clocks alone. Messages
//! between hosts take a drawn latency and are lost across a partition or to a host that sleeps.
//! Workloads run on the hosts and say what went wrong between them:
//!
//! - `[model.lease]`: a coordinator grants a leader lease; holders renew it, act on it and write
//!   to storage, optionally with fencing tokens. Reports time with two leaders and stale writes.
//! - `[model.heartbeat]`: every host sends heartbeats to its peers and suspects those it stops
//!   hearing from. Reports false suspicions and detection times.
//! - `[model.rpc]`: clients call a server with deadlines armed on any registered timer design.
//!   Reports calls resolved once, lost or twice.
//!
//! Several workloads may share one set of hosts and one network. Each is a `workload::Workload`
//! in a folder of its own, and reaches the hosts through `workload::Hosts`; the cluster carries
//! its messages and wakes as envelopes it does not read (`step.rs`), so that no file of the
//! cluster names a workload.

mod binding;
mod bound;
mod cluster;
mod dispatch;
mod edges;
pub(crate) mod event_kind;
pub(crate) mod events;
mod heartbeat;
mod host_lines;
pub mod keys;
mod lease;
mod memory;
mod model;
pub(crate) mod network;
mod out;
mod picture;
mod picture_legend;
mod queue;
mod rpc;
mod run;
pub mod spec;
mod step;
pub mod thaw;
mod threads;
mod turmoil_net;
mod workload;

pub use event_kind::HostEventKind;
pub use events::HostEvent;
pub use model::HostsModel;
pub use spec::HostsConfig;

use crate::expect::{Metric, NEVER};

/// What every hosts run reports.
pub const NETWORK_METRICS: &[Metric] = &[
    Metric::count("messages_sent", "messages the hosts sent each other"),
    Metric::count(
        "messages_lost",
        "messages dropped by a partition or by a host that was asleep when they arrived",
    ),
    crate::invariant::VIOLATIONS,
];

/// What `[model.lease]` adds.
pub const LEASE_METRICS: &[Metric] = &[
    Metric::count("leases_granted", "grants and renewals the coordinator gave"),
    Metric::count("takeovers", "grants to a host other than the last holder"),
    Metric::count(
        "two_leader_stretches",
        "stretches of time in which two hosts each held the lease by their own clock",
    ),
    Metric::duration(
        "two_leader_time",
        "two_leader_time_ns",
        "total time with two or more leaders",
    ),
    Metric::duration(
        "longest_two_leaders",
        "longest_two_leaders_ns",
        "the longest such stretch",
    ),
    Metric::time(
        "first_two_leaders",
        "first_two_leaders_ns",
        "when two hosts first both held the lease",
    ),
    Metric::count("writes_accepted", "writes storage accepted"),
    Metric::count(
        "stale_writes_accepted",
        "writes storage accepted from a host that no longer held the lease",
    ),
    Metric::count(
        "stale_writes_rejected",
        "stale writes storage refused because their fencing token was old",
    ),
    Metric::time(
        "first_takeover_at",
        "first_takeover_at_ns",
        "when the coordinator first granted the lease to a host other than the last holder",
    ),
    Metric::time(
        "last_takeover_at",
        "last_takeover_at_ns",
        "when it last did",
    ),
    Metric::duration(
        "longest_without_leader",
        "longest_without_leader_ns",
        "the longest stretch with no host holding the lease while a candidate could reach the \
         lock service; past the lease, a renewal and a round trip, an invariant violation",
    ),
    Metric::time(
        "longest_without_leader_at",
        "longest_without_leader_at_ns",
        "when that stretch began",
    ),
];

/// What `[model.heartbeat]` adds.
pub const HEARTBEAT_METRICS: &[Metric] = &[
    Metric::count("heartbeats_sent", "heartbeats the hosts sent"),
    Metric::count("suspicions", "times a host began to suspect a peer"),
    Metric::count(
        "false_suspicions",
        "suspicions of a peer that was running at the time",
    ),
    Metric::count(
        "failures_detected",
        "peers that stopped and were suspected while stopped",
    ),
    Metric::count(
        "failures_missed",
        "peers stopped for longer than `suspect_after`, a heartbeat and the slowest link that no \
         watcher suspected; each is also an invariant violation",
    ),
    Metric::duration(
        "max_detection_time",
        "max_detection_time_ns",
        "longest time from a peer stopping to its first suspicion",
    ),
    Metric::time(
        "first_false_suspicion",
        "first_false_suspicion_ns",
        "when a running peer was first suspected",
    ),
];

/// What `[model.rpc]` adds.
pub const RPC_METRICS: &[Metric] = &[
    Metric::count("calls", "calls the clients sent"),
    Metric::count(
        "calls_resolved_once",
        "calls resolved exactly once, by reply or deadline",
    ),
    Metric::count("replies", "calls resolved by their reply"),
    Metric::count("timeouts", "calls resolved by their deadline"),
    Metric::count(
        "early_timeouts",
        "deadlines that resolved their call before the timeout had passed in physical time",
    ),
    Metric::count(
        "late_replies",
        "replies that came after their call had timed out",
    ),
    Metric::count(
        "calls_lost",
        "calls never resolved though a whole timeout past their deadline at the end of the run; \
         each is also an invariant violation",
    ),
    Metric::count("calls_resolved_twice", "calls resolved more than once"),
    Metric::duration(
        "max_timeout_lateness",
        "max_timeout_lateness_ns",
        "the latest a deadline resolved its call, after the deadline in physical time",
    ),
    Metric::time(
        "worst_timeout_at",
        "worst_timeout_at_ns",
        "when the latest of those deadlines resolved its call",
    ),
    Metric::count("peak_live_timers", "most timer slots in use at once"),
];

/// Every metric a hosts scenario may report, for the docs; a scenario reports those of the
/// workloads it has.
pub const METRICS: &[Metric] = &[
    NETWORK_METRICS[0],
    NETWORK_METRICS[1],
    NETWORK_METRICS[2],
    LEASE_METRICS[0],
    LEASE_METRICS[1],
    LEASE_METRICS[2],
    LEASE_METRICS[3],
    LEASE_METRICS[4],
    LEASE_METRICS[5],
    LEASE_METRICS[6],
    LEASE_METRICS[7],
    LEASE_METRICS[8],
    LEASE_METRICS[9],
    LEASE_METRICS[10],
    LEASE_METRICS[11],
    LEASE_METRICS[12],
    HEARTBEAT_METRICS[0],
    HEARTBEAT_METRICS[1],
    HEARTBEAT_METRICS[2],
    HEARTBEAT_METRICS[3],
    HEARTBEAT_METRICS[4],
    HEARTBEAT_METRICS[5],
    HEARTBEAT_METRICS[6],
    RPC_METRICS[0],
    RPC_METRICS[1],
    RPC_METRICS[2],
    RPC_METRICS[3],
    RPC_METRICS[4],
    RPC_METRICS[5],
    RPC_METRICS[6],
    RPC_METRICS[7],
    RPC_METRICS[8],
    RPC_METRICS[9],
    RPC_METRICS[10],
];

/// A moment that never came, as summaries report it.
pub(crate) const NOT_YET: u64 = NEVER;
