//! What a hosts event says happened: its own file, so that the hosts' picture can name the
//! kinds it marks without importing the events, which write into the picture's data.

use serde::Serialize;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostEventKind {
    /// A host as the run starts: its platform, the clock its `Instant` reads, its crystal and
    /// where its wall clock starts.
    Host,
    /// The coordinator granted the lease to a host other than its last holder.
    LeaseGranted,
    /// The coordinator renewed its holder's lease, or granted it again to its last holder.
    Renewed,
    /// A host asked for the lease while another held it, or others waited longer: it waits.
    Waits,
    /// A host began to hold the lease by its own clock.
    Leader,
    /// A host's own clock says its lease ran out.
    StepsDown,
    /// Two or more hosts hold the lease by their own clocks.
    TwoLeaders,
    /// Back to one leader or none; `delay_ns` is how long the stretch lasted.
    OneLeader,
    /// Storage accepted a write from a host that no longer held the lease.
    StaleWrite,
    /// Storage refused a stale write by its fencing token.
    Fenced,
    /// A host began to suspect a peer that had stopped.
    Suspects,
    /// A host began to suspect a peer that was running: a false suspicion.
    FalseSuspect,
    /// A host heard again from a peer it suspected.
    Trusts,
    /// A call resolved: by its reply, or by its deadline (`delay_ns` past it, in physical time).
    Reply,
    Timeout,
    /// A deadline resolved its call before the timeout had passed in physical time: its clock
    /// was stepped forward, or runs fast.
    EarlyTimeout,
    /// A call resolved a second time.
    ResolvedTwice,
    /// A message dropped on the way.
    Lost,
    /// A host ran again and found messages and timers waiting: the order it handles them in.
    Thaw,
}

impl HostEventKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            HostEventKind::Host => "host",
            HostEventKind::LeaseGranted => "lease-granted",
            HostEventKind::Renewed => "renewed",
            HostEventKind::Waits => "waits",
            HostEventKind::Leader => "leader",
            HostEventKind::StepsDown => "steps-down",
            HostEventKind::TwoLeaders => "two-leaders",
            HostEventKind::OneLeader => "one-leader",
            HostEventKind::StaleWrite => "stale-write",
            HostEventKind::Fenced => "fenced",
            HostEventKind::Suspects => "suspects",
            HostEventKind::FalseSuspect => "false-suspect",
            HostEventKind::Trusts => "trusts",
            HostEventKind::Reply => "reply",
            HostEventKind::Timeout => "timeout",
            HostEventKind::EarlyTimeout => "early-timeout",
            HostEventKind::ResolvedTwice => "resolved-twice",
            HostEventKind::Lost => "lost",
            HostEventKind::Thaw => "thaw",
        }
    }

    /// Routine events come by the thousand; the rest are what a reader looks for. A host's line
    /// as the run starts is never routine, however many hosts there are: it says whose `Instant`
    /// stops in a suspend and whose crystal runs fast, which explains every line after it.
    pub(crate) fn is_routine(self) -> bool {
        matches!(
            self,
            HostEventKind::Reply
                | HostEventKind::Timeout
                | HostEventKind::Lost
                | HostEventKind::Renewed
                | HostEventKind::Waits
        )
    }

    pub(crate) fn plural(self) -> &'static str {
        match self {
            HostEventKind::Reply => "replies",
            HostEventKind::Timeout => "timeouts",
            HostEventKind::Lost => "lost messages",
            HostEventKind::Renewed => "renewals",
            HostEventKind::Waits => "asks that wait",
            _ => "host events",
        }
    }
}
