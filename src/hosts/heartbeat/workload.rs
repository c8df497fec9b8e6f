//! The heartbeat detector as a workload of the cluster: its heartbeats and wakes as the words the
//! cluster carries, its one thread, and what its work costs.

use ticklab_sim::EdgeEffect;

use super::super::out::Out;
use super::super::workload::{HostId, Hosts, Payload, Words, Workload};
use super::{Beat, BeatWake, Heartbeat};

/// Its one thread on a host with a CPU: it sends, hears and checks, as a gossip stage does.
pub(super) const THREAD: u32 = 0;

impl Payload for Beat {
    fn pack(self) -> Words {
        Words {
            kind: 0,
            first: u64::from(self.watch),
            second: 0,
        }
    }

    fn unpack(words: Words) -> Self {
        Beat {
            watch: words.first as u32,
        }
    }
}

impl Payload for BeatWake {
    fn pack(self) -> Words {
        let (kind, first) = match self {
            BeatWake::Send => (0, 0),
            BeatWake::Check { watch } => (1, u64::from(watch)),
        };
        Words {
            kind,
            first,
            second: 0,
        }
    }

    fn unpack(words: Words) -> Self {
        match words.kind {
            0 => BeatWake::Send,
            _ => BeatWake::Check {
                watch: words.first as u32,
            },
        }
    }
}

impl Workload for Heartbeat {
    type Msg = Beat;
    type Wake = BeatWake;

    fn start(&mut self, hosts: &mut Hosts<'_, Self>, _out: &mut Out<'_>) {
        Heartbeat::start(self, hosts);
    }

    fn on_wake(
        &mut self,
        host: HostId,
        wake: BeatWake,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Heartbeat::on_wake(self, host, wake, hosts, out);
    }

    fn on_message(
        &mut self,
        from_to: (HostId, HostId),
        beat: Beat,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Heartbeat::on_message(self, from_to, beat, hosts, out);
    }

    fn on_host_edge(
        &mut self,
        host: HostId,
        effect: EdgeEffect,
        hosts: &mut Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) {
        Heartbeat::on_host_edge(self, host, effect, hosts, out);
    }

    fn finish(
        &mut self,
        end_ns: u64,
        hosts: &Hosts<'_, Self>,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)> {
        Heartbeat::finish(self, end_ns, hosts, out)
    }

    fn thread_for_wake(&self, _wake: BeatWake) -> Option<u32> {
        Some(THREAD)
    }

    fn thread_for_message(&self, _beat: Beat) -> u32 {
        THREAD
    }

    fn thread_name(&self, _thread: u32) -> String {
        "heartbeat".to_string()
    }

    /// A send is a heartbeat to each peer; a check or an arrival is one heartbeat's work.
    fn wake_cost_ns(&self, wake: BeatWake) -> u64 {
        match wake {
            BeatWake::Send => self.config.cpu_ns.saturating_mul(self.config.peers as u64),
            BeatWake::Check { .. } => self.config.cpu_ns,
        }
    }

    fn message_cost_ns(&self, _beat: Beat) -> u64 {
        self.config.cpu_ns
    }

    fn message_name(&self, _beat: Beat) -> &'static str {
        "a heartbeat"
    }

    fn timer_kinds(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("heartbeat send", "heartbeat sends"),
            ("suspicion check", "suspicion checks"),
        ]
    }

    fn timer_kind(&self, wake: BeatWake) -> usize {
        match wake {
            BeatWake::Send => 0,
            BeatWake::Check { .. } => 1,
        }
    }
}
