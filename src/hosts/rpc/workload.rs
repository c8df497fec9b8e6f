//! RPC as a workload of the cluster: its calls, replies and wakes as the words the cluster
//! carries, the threads that handle them, and what their work costs.

use super::super::out::Out;
use super::super::workload::{HostId, Hosts, Payload, Words, Workload};
use super::{Rpc, RpcMsg, RpcWake};
use crate::memory::Footprint;

/// Its threads on a host with a CPU; each timer thread of the client's design comes after them.
const CLIENT: u32 = 0;
const SERVER: u32 = 1;
const FIRST_TIMER: u32 = 2;

impl Payload for RpcMsg {
    fn pack(self) -> Words {
        let (kind, call) = match self {
            RpcMsg::Call { call } => (0, call),
            RpcMsg::Reply { call } => (1, call),
        };
        Words {
            kind,
            first: u64::from(call),
            second: 0,
        }
    }

    fn unpack(words: Words) -> Self {
        let call = words.first as u32;
        match words.kind {
            0 => RpcMsg::Call { call },
            _ => RpcMsg::Reply { call },
        }
    }
}

impl Payload for RpcWake {
    fn pack(self) -> Words {
        let (kind, first) = match self {
            RpcWake::Call => (0, 0),
            RpcWake::Round { thread } => (1, u64::from(thread)),
            RpcWake::Serve { client, call } => (2, u64::from(client) << 32 | u64::from(call)),
        };
        Words {
            kind,
            first,
            second: 0,
        }
    }

    fn unpack(words: Words) -> Self {
        match words.kind {
            0 => RpcWake::Call,
            1 => RpcWake::Round {
                thread: words.first as u32,
            },
            _ => RpcWake::Serve {
                client: (words.first >> 32) as u32,
                call: words.first as u32,
            },
        }
    }
}

impl Workload for Rpc {
    type Msg = RpcMsg;
    type Wake = RpcWake;

    fn start(&mut self, hosts: &mut Hosts<'_, Self>, _out: &mut Out<'_>) {
        Rpc::start(self, hosts);
    }

    fn on_wake(
        &mut self,
        host: HostId,
        wake: RpcWake,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Rpc::on_wake(self, host, wake, hosts, out);
    }

    fn on_message(
        &mut self,
        (from, to): (HostId, HostId),
        msg: RpcMsg,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Rpc::on_message(self, from, to, msg, hosts, out);
    }

    fn finish(
        &mut self,
        end_ns: u64,
        hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)> {
        Rpc::finish(self, hosts, end_ns, out)
    }

    fn footprint(&self) -> Footprint {
        Rpc::footprint(self)
    }

    fn thread_for_wake(&self, wake: RpcWake) -> Option<u32> {
        Some(match wake {
            RpcWake::Call => CLIENT,
            RpcWake::Round { thread } => FIRST_TIMER + thread,
            RpcWake::Serve { .. } => SERVER,
        })
    }

    fn thread_for_message(&self, msg: RpcMsg) -> u32 {
        match msg {
            RpcMsg::Call { .. } => SERVER,
            RpcMsg::Reply { .. } => CLIENT,
        }
    }

    fn thread_name(&self, thread: u32) -> String {
        match thread {
            CLIENT => "rpc-client".to_string(),
            SERVER => "rpc-server".to_string(),
            timer => format!("timer-{}", timer - FIRST_TIMER),
        }
    }

    fn wake_cost_ns(&self, _wake: RpcWake) -> u64 {
        self.config.cpu_ns
    }

    fn message_cost_ns(&self, _msg: RpcMsg) -> u64 {
        self.config.cpu_ns
    }

    fn message_name(&self, msg: RpcMsg) -> &'static str {
        match msg {
            RpcMsg::Call { .. } => "a call",
            RpcMsg::Reply { .. } => "a reply",
        }
    }

    fn timer_kinds(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("call", "calls"),
            ("timer round", "timer rounds"),
            ("answer to send", "answers to send"),
        ]
    }

    fn timer_kind(&self, wake: RpcWake) -> usize {
        match wake {
            RpcWake::Call => 0,
            RpcWake::Round { .. } => 1,
            RpcWake::Serve { .. } => 2,
        }
    }
}
