//! The lease as a workload of the cluster: its messages and wakes as the words the cluster
//! carries, the threads that handle them, and what their work costs.

use ticklab_sim::EdgeEffect;

use super::super::out::Out;
use super::super::workload::{HostId, Hosts, Payload, Words, Workload};
use super::{Lease, LeaseMsg, LeaseWake};

/// Its threads on a host with a CPU.
const HOLDER: u32 = 0;
const LOCK_SERVICE: u32 = 1;
const STORAGE: u32 = 2;

impl Payload for LeaseMsg {
    fn pack(self) -> Words {
        let (kind, first, second) = match self {
            LeaseMsg::Ask { ask } => (0, ask, 0),
            LeaseMsg::Granted { ask, token } => (1, ask, token),
            LeaseMsg::Write { token } => (2, token, 0),
        };
        Words {
            kind,
            first,
            second,
        }
    }

    fn unpack(words: Words) -> Self {
        match words.kind {
            0 => LeaseMsg::Ask { ask: words.first },
            1 => LeaseMsg::Granted {
                ask: words.first,
                token: words.second,
            },
            _ => LeaseMsg::Write { token: words.first },
        }
    }
}

impl Payload for LeaseWake {
    fn pack(self) -> Words {
        let (kind, first) = match self {
            LeaseWake::Ask => (0, 0),
            LeaseWake::Write => (1, 0),
            LeaseWake::Send { token } => (2, token),
            LeaseWake::Expiry => (3, 0),
            LeaseWake::Expire => (4, 0),
        };
        Words {
            kind,
            first,
            second: 0,
        }
    }

    fn unpack(words: Words) -> Self {
        match words.kind {
            0 => LeaseWake::Ask,
            1 => LeaseWake::Write,
            2 => LeaseWake::Send { token: words.first },
            3 => LeaseWake::Expiry,
            _ => LeaseWake::Expire,
        }
    }
}

impl Workload for Lease {
    type Msg = LeaseMsg;
    type Wake = LeaseWake;

    fn start(&mut self, hosts: &mut Hosts<'_, Self>, out: &mut Out<'_>) {
        Lease::start(self, hosts);
        self.note_leaders(hosts, out);
    }

    fn on_wake(
        &mut self,
        host: HostId,
        wake: LeaseWake,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Lease::on_wake(self, host, wake, hosts, out);
    }

    fn on_message(
        &mut self,
        (from, to): (HostId, HostId),
        msg: LeaseMsg,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Lease::on_message(self, from, to, msg, hosts, out);
    }

    fn on_host_edge(
        &mut self,
        host: HostId,
        effect: EdgeEffect,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Lease::on_host_edge(self, host, effect, hosts, out);
    }

    /// A partition may leave candidates without a coordinator to reach.
    fn on_network(&mut self, hosts: &mut Hosts<'_, Self>, out: &mut Out<'_>) {
        self.note_leaders(hosts, out);
    }

    fn finish(
        &mut self,
        end_ns: u64,
        _hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)> {
        Lease::finish(self, end_ns, out)
    }

    fn thread_for_wake(&self, wake: LeaseWake) -> Option<u32> {
        match wake {
            // Bookkeeping of what the host's clock says: no thread runs it.
            LeaseWake::Expiry => None,
            LeaseWake::Expire => Some(LOCK_SERVICE),
            LeaseWake::Ask | LeaseWake::Write | LeaseWake::Send { .. } => Some(HOLDER),
        }
    }

    fn thread_for_message(&self, msg: LeaseMsg) -> u32 {
        match msg {
            LeaseMsg::Ask { .. } => LOCK_SERVICE,
            LeaseMsg::Granted { .. } => HOLDER,
            LeaseMsg::Write { .. } => STORAGE,
        }
    }

    fn thread_name(&self, thread: u32) -> String {
        match thread {
            HOLDER => "lease-holder",
            LOCK_SERVICE => "lock-service",
            _ => "storage",
        }
        .to_string()
    }

    fn wake_cost_ns(&self, _wake: LeaseWake) -> u64 {
        self.config.cpu_ns
    }

    fn message_cost_ns(&self, _msg: LeaseMsg) -> u64 {
        self.config.cpu_ns
    }

    fn message_name(&self, msg: LeaseMsg) -> &'static str {
        match msg {
            LeaseMsg::Ask { .. } => "a lease ask",
            LeaseMsg::Granted { .. } => "a lease grant",
            LeaseMsg::Write { .. } => "a write",
        }
    }

    fn timer_kinds(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("lease ask", "lease asks"),
            ("lease write", "lease writes"),
            ("checked write going out", "checked writes going out"),
            ("lease expiry", "lease expiries"),
            ("lock service expiry", "lock service expiries"),
        ]
    }

    fn timer_kind(&self, wake: LeaseWake) -> usize {
        match wake {
            LeaseWake::Ask => 0,
            LeaseWake::Write => 1,
            LeaseWake::Send { .. } => 2,
            LeaseWake::Expiry => 3,
            LeaseWake::Expire => 4,
        }
    }
}
