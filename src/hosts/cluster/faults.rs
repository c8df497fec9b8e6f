//! A host's fault edges: applied to its own clocks, its wakes filed again for a clock that
//! moved, and what it held while it could not run handed back in its thaw order.

use ticklab_sim::{ClockId, FaultEdge};

use super::{Cluster, HostId, Item, Next, Step};

impl Cluster {
    pub(super) fn apply_edge(&mut self, host: HostId, edge: FaultEdge) -> Next<Step> {
        let state = &mut self.hosts[host];
        let local = FaultEdge {
            at_ns: state.drift.local_ns(edge.at_ns),
            ..edge
        };
        let mut effect = state.machine.apply(&local);
        if effect.stopped {
            state.stopped_at_ns = self.now_ns;
        }
        if effect.resumed_after_ns.is_some() {
            effect.resumed_after_ns = Some(self.now_ns - state.stopped_at_ns);
        }
        if let Some(clock) = effect.changed_clock {
            self.refile_wakes(host, clock);
        }
        self.thawed = None;
        if effect.resumed_after_ns.is_some() && !self.hosts[host].held.is_empty() {
            // What came due meanwhile happens now, in the order the host's runtime handles it;
            // messages to a host that was asleep were lost on arrival, so only a frozen
            // process's are here.
            let held = std::mem::take(&mut self.hosts[host].held);
            self.counts.held -= held.len();
            let state = &self.hosts[host];
            let live = |item: &Item| match *item {
                Item::Wake {
                    slot, generation, ..
                } => state.wakes[slot as usize]
                    .filter(|wake| wake.generation == generation)
                    .map(|wake| wake.tag),
                _ => None,
            };
            let (arranged, found) = crate::hosts::thaw::arrange(held, state.thaw_order, live);
            for item in arranged {
                self.push(self.now_ns, item);
            }
            self.thawed = Some(found);
        }
        Next::Fault { host, edge, effect }
    }

    /// A fault moved `clock` on `host`: every wake on it is filed again for its new time.
    fn refile_wakes(&mut self, host: HostId, clock: ClockId) {
        let slots: Vec<u32> = self.hosts[host]
            .wakes
            .iter()
            .enumerate()
            .filter(|(_, wake)| wake.is_some_and(|wake| wake.clock == clock))
            .map(|(slot, _)| slot as u32)
            .collect();
        for slot in slots {
            // A held wake stays held: it is already due, and the host will see it on resume.
            let held = self.hosts[host]
                .held
                .iter()
                .any(|item| matches!(item, Item::Wake { slot: held, .. } if *held == slot));
            if !held {
                self.queue_wake(host, slot);
            }
        }
    }
}
