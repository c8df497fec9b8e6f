//! The events of a hosts run: one type, whose kind says what happened on which host.

use serde::Serialize;
use ticklab_sim::{Approx, Secs};

use crate::plot::collect::Collected;
use crate::trace::ModelEvent;

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
    fn name(self) -> &'static str {
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
    fn is_routine(self) -> bool {
        matches!(
            self,
            HostEventKind::Reply
                | HostEventKind::Timeout
                | HostEventKind::Lost
                | HostEventKind::Renewed
                | HostEventKind::Waits
        )
    }

    fn plural(self) -> &'static str {
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

/// One event on one host.
#[derive(Clone, Debug, Serialize)]
pub struct HostEvent {
    pub t_ns: u64,
    pub host: String,
    /// The workload thread that did it, on a host with a `[machine]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    pub what: HostEventKind,
    /// What the host's clock read, on the clock the workload measures time on.
    pub clock_ns: i64,
    pub detail: String,
    /// How late or how long, for the kinds that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ns: Option<u64>,
}

impl ModelEvent for HostEvent {
    fn kind(&self) -> &'static str {
        self.what.name()
    }

    fn t_ns(&self) -> u64 {
        self.t_ns
    }

    fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        crate::trace::write_tagged_json(out, self.what.name(), self)
    }

    fn to_owned_event(&self) -> Box<dyn ModelEvent> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let delay = match (self.what, self.delay_ns) {
            (_, None) => String::new(),
            (HostEventKind::Timeout, Some(late_ns)) => {
                format!(" ({} past its deadline)", Approx(late_ns))
            }
            (_, Some(delay_ns)) => format!(" ({})", Approx(delay_ns)),
        };
        let thread = match &self.thread {
            Some(thread) => format!("[{thread}] "),
            None => String::new(),
        };
        writeln!(
            out,
            "{:>17} {:<14} {:<10} {thread}{}{delay}",
            Secs(self.t_ns),
            self.what.name(),
            self.host,
            self.detail,
        )
    }

    fn routine(&self) -> bool {
        self.what.is_routine()
    }

    fn plural(&self) -> &'static str {
        self.what.plural()
    }

    fn delay_ns(&self) -> Option<u64> {
        self.delay_ns
    }

    fn delay_class(&self) -> &str {
        self.what.name()
    }

    fn collect(&self, plot: &mut Collected) {
        plot.host_event(&self.host, self.what, self.t_ns, self.delay_ns);
    }
}
