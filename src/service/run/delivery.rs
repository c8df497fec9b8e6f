//! What reaches a host: a fault edge of its own, and the segments the hosts send each other,
//! after their link's latency, through partitions and a system's sleep.

use ticklab_sim::{EdgeEffect, FaultEdge};

use super::{Event, Runner, ServiceError};
use crate::hosts::thaw::ThawOrder;
use crate::service::net::fabric::Segment;

/// Linux's shortest TCP retransmission timeout (`TCP_RTO_MIN`): the first resend of a lost
/// segment, each later one twice the one before.
const RTO_MIN_NS: u64 = 200_000_000;
/// Resends before the kernel gives up (`tcp_retries2`'s default).
const MAX_RESENDS: u32 = 15;

impl Runner {
    /// How much later than its latency a segment arrives for the network's loss: 0 if no copy is
    /// lost; for TCP, the retransmission timeouts of the copies lost before one gets through;
    /// `None` for a datagram lost.
    fn retransmissions(&mut self, reliable: bool) -> Option<u64> {
        let mut delay_ns = 0;
        for resend in 0..=MAX_RESENDS {
            if self.loss_ppm == 0 || self.loss.in_range(0, 999_999) >= self.loss_ppm {
                return Some(delay_ns);
            }
            if !reliable {
                return None;
            }
            delay_ns += RTO_MIN_NS << resend.min(10);
        }
        Some(delay_ns)
    }

    pub(super) fn apply_edge(&mut self, host: usize, edge: FaultEdge) -> Result<(), ServiceError> {
        let (effect, awake) = {
            let mut clockwork = self.clockwork.lock();
            let local = FaultEdge {
                at_ns: clockwork.hosts[host].drift.local_ns(edge.at_ns),
                ..edge
            };
            let before = clockwork.reading(host);
            clockwork.hosts[host].edges_applied += 1;
            let clock = &mut clockwork.hosts[host];
            let effect: EdgeEffect = clock.machine.apply(&local);
            let awake = clock.machine.system_awake();
            let after = clockwork.reading(host);
            self.record.clocks(host, self.now_ns, before);
            self.record.edge(host, self.now_ns, &edge);
            self.record.clocks(host, self.now_ns, after);
            (effect, awake)
        };
        let what = match edge.edge {
            ticklab_sim::Edge::Begin => "begins",
            ticklab_sim::Edge::End => "ends",
            ticklab_sim::Edge::Point => "",
        };
        self.line(
            host,
            format!("{} {what}", edge.fault).trim_end().to_string(),
        );
        if effect.changed_clock.is_some() {
            self.refile_timer(host);
        }
        if awake {
            for segment in std::mem::take(&mut self.backlog[host]) {
                self.queue.push(self.now_ns, Event::Deliver(segment));
            }
        }
        if effect.resumed_after_ns.is_some() {
            // What came due while it could not run happens now, all at once: the timers first,
            // if the host handles them first, then what its kernel queued.
            self.step(host)?;
            for segment in std::mem::take(&mut self.held[host]) {
                self.deliver(segment)?;
            }
        }
        Ok(())
    }

    pub(super) fn deliver(&mut self, segment: Segment) -> Result<(), ServiceError> {
        let (from, to) = (segment.from, segment.to);
        if let Some((_, heals_ns)) = self.network.cut_by(from, to, self.now_ns) {
            // A partition that began while the segment was on its way.
            if segment.reliable() {
                self.queue.push(heals_ns, Event::Deliver(segment));
            } else {
                self.line(
                    to,
                    format!("lost a datagram from {} (partition)", self.names[from]),
                );
            }
            return Ok(());
        }
        let awake = self.clockwork.lock().hosts[to].machine.system_awake();
        if awake && !self.can_run(to) && self.thaw_orders[to] == ThawOrder::TimersFirst {
            self.held[to].push(segment);
            return Ok(());
        }
        if !awake {
            if segment.reliable() {
                self.backlog[to].push(segment);
            } else {
                let from = segment.from;
                self.line(
                    to,
                    format!("lost a datagram from {} (asleep)", self.names[from]),
                );
            }
            return Ok(());
        }
        let waker = self.fabric.lock().deliver(segment);
        if let Some(waker) = waker {
            waker.wake();
        }
        self.send_outbox();
        if self.can_run(to) && self.runtimes[to].started() {
            self.step(to)?;
        }
        Ok(())
    }

    /// Queues what the hosts sent: after the link's latency, in order per pair of hosts.
    pub(super) fn send_outbox(&mut self) {
        let sent = std::mem::take(&mut self.fabric.lock().outbox);
        self.kept.grown_since_count += sent.iter().map(Segment::payload_len).sum::<u64>();
        for segment in sent {
            let (from, to) = (segment.from, segment.to);
            // A sleep may have held the sender's thread before it sent.
            let departs_ns = segment.departs_at_ns.unwrap_or(self.now_ns);
            let latency_ns = match from == to {
                true => 0,
                false => self.network.draw_latency_ns(from, to, departs_ns),
            };
            let mut at_ns = departs_ns.saturating_add(latency_ns);
            if let Some((_, heals_ns)) = self.network.cut_by(from, to, departs_ns) {
                if !segment.reliable() {
                    let line = format!("lost a datagram to {} (partition)", self.names[to]);
                    self.line(from, line);
                    continue;
                }
                // The sender's kernel sends it again until the partition heals.
                at_ns = heals_ns.saturating_add(latency_ns);
            }
            if from != to {
                match self.retransmissions(segment.reliable()) {
                    Some(delay_ns) => at_ns = at_ns.saturating_add(delay_ns),
                    None => {
                        self.line(
                            from,
                            format!("lost a datagram to {} (loss)", self.names[to]),
                        );
                        continue;
                    }
                }
            }
            let last = self.last_arrival_ns.entry((from, to)).or_default();
            at_ns = at_ns.max(*last);
            *last = at_ns;
            self.queue.push(at_ns, Event::Deliver(segment));
        }
    }
}
