//! Many machines on one physical timeline: each host's clocks, its faults, the wakes it waits
//! for and the messages in flight to it, in one queue ordered by (physical time, sequence).
//!
//! A host waits on its own clocks. A wake is filed under the physical time at which the host's
//! clock will read its target, given the host's crystal drift; when a fault moves that clock the
//! wake is filed again. A host that cannot run (asleep, or its process frozen) keeps what comes
//! due until it resumes: its wakes, and for a frozen process the messages its kernel buffered.
//! A host asleep takes no messages at all. Observers (the workloads' bookkeeping of what a
//! host's clock says, such as when its lease runs out) fire whether or not the host can run.

use ticklab_sim::{ClockId, Drift, FaultEdge, FaultSchedule, Machine};

mod faults;
mod ground;
mod work;

use super::edges::EdgeLines;
use super::network::Network;
use super::queue::{Item, PendingWake, Timeline};
use super::spec::HostConfig;
pub(crate) use super::step::{HostId, Msg, Step, WakeId, WakeTag};
use super::thaw::{ThawOrder, Thawed};
use super::threads::HostThreads;
use crate::machine::{Cpu, Ground, Next};

/// How a wake is filed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Filing {
    /// A thread's timed wait: it ends on its host's timer tick and slack.
    TimedWait,
    /// Work or I/O that ends at its moment.
    Exact,
    /// Bookkeeping of what a host's clock says, whether or not the host can run.
    Observer,
}

#[derive(Debug)]
struct Host {
    machine: Machine,
    drift: Drift,
    wakes: Vec<Option<PendingWake>>,
    free: Vec<u32>,
    /// Items that came due while the host could not run, in the order they came due.
    held: Vec<Item>,
    thaw_order: ThawOrder,
    /// Physical time at which the host last stopped: its machine counts in its own drifted
    /// nanoseconds, and a resume reports how long it was stopped in physical ones.
    stopped_at_ns: u64,
    /// Its cores, threads, load and timer resolution, if it has a `[machine]`; a host without
    /// one runs its workloads at once and its timed waits end exactly.
    cpu: Option<Box<Cpu>>,
    /// Its workload threads, on a host with a CPU.
    threads: HostThreads,
}

#[derive(Debug)]
pub(crate) struct Cluster {
    now_ns: u64,
    end_ns: u64,
    /// Wakes filed so far: ids and generations come from it.
    filings: u64,
    hosts: Vec<Host>,
    queue: Timeline,
    pub(crate) network: Network,
    /// turmoil carries the messages when set; otherwise they are events in the queue.
    carrier: Option<super::turmoil_net::TurmoilNet>,
    pub(crate) messages_sent: u64,
    pub(crate) messages_lost: u64,
    /// Items taken off the queue: the run's work, bounded before it starts.
    pub(crate) steps: u64,
    /// How fault edges are traced.
    pub(crate) lines: EdgeLines,
    /// What the host of the last fault edge found as it ran again, if it held anything.
    thawed: Option<Thawed>,
    /// Every host's fault edges, which the queue names by index: an edge is the largest thing
    /// queued, and every item in the queue would be as large.
    edges: Vec<FaultEdge>,
    /// Why carrying the messages failed, once it has.
    failed: Option<String>,
    /// What the memory check counts, kept as it changes: summing them over every host at each
    /// check would miss the cache on every host, ten times a step at 10,000 hosts.
    counts: Counts,
}

/// Totals over every host, kept up to date as each changes.
#[derive(Debug, Default)]
struct Counts {
    /// Wake slots made, free or not: a host's slots only grow.
    wake_slots: usize,
    /// Items held by hosts that cannot run.
    held: usize,
    /// The hosts with a CPU: only they have threads and work waiting for them.
    with_cpu: Vec<HostId>,
    /// Bit `host % 64` of word `host / 64` is set if `host` has a CPU: every event asks, and
    /// 10,000 hosts fit in 157 words, where the hosts themselves are a cache miss each.
    has_cpu: Vec<u64>,
}

impl Cluster {
    pub(crate) fn new(
        hosts: &[HostConfig],
        (wall_start_ns, run_for_ns, seed): (i64, u64, u64),
        network: Network,
        carrier: Option<super::turmoil_net::TurmoilNet>,
        lines: EdgeLines,
    ) -> Self {
        let mut cluster = Cluster {
            now_ns: 0,
            end_ns: run_for_ns,
            filings: 0,
            hosts: Vec::with_capacity(hosts.len()),
            queue: Timeline::new(),
            network,
            carrier,
            messages_sent: 0,
            messages_lost: 0,
            steps: 0,
            lines,
            thawed: None,
            edges: Vec::new(),
            failed: None,
            counts: Counts::default(),
        };
        // Fault edges first, so that at equal times they come before what they change.
        for (id, config) in hosts.iter().enumerate() {
            let mut schedule = FaultSchedule::new(&config.faults);
            while let Some(edge) = schedule.pop() {
                let index = cluster.edges.len() as u32;
                cluster.edges.push(edge);
                cluster.push(edge.at_ns, Item::Edge { host: id, index });
            }
            let platform = config.platform;
            let wall_ns = wall_start_ns.saturating_add(config.wall_offset_ns);
            cluster.hosts.push(Host {
                machine: Machine::new(platform, platform.instant_clock(), wall_ns),
                drift: config.drift,
                wakes: Vec::new(),
                free: Vec::new(),
                held: Vec::new(),
                thaw_order: config.thaw_order,
                stopped_at_ns: 0,
                cpu: None,
                threads: HostThreads::default(),
            });
        }
        cluster.add_cpus(hosts, seed, run_for_ns);
        for (at_ns, begins, is_partition, index) in cluster.network.edges(run_for_ns) {
            cluster.push(
                at_ns,
                Item::Network {
                    begins,
                    is_partition,
                    index,
                },
            );
        }
        cluster
    }

    fn push(&mut self, at_ns: u64, item: Item) {
        self.queue.push(at_ns, item);
    }

    pub(crate) fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// What one queued item costs in memory: its place in the queue, grown.
    pub(crate) const BYTES_PER_ITEM: u64 = Timeline::BYTES_PER_ITEM;
    /// What one host costs besides its queued items: its machine and a handful of wake slots,
    /// and its place in the workloads' per-host tables, with room for a peer list.
    pub(crate) const BYTES_PER_HOST: u64 =
        crate::memory::grown::<Host>() + 8 * crate::memory::grown::<Option<PendingWake>>() + 512;

    /// Gives each host with a `[machine]` its CPU. The load of each host draws from a stream of
    /// its own, so one host's load does not change with what the others have.
    fn add_cpus(&mut self, hosts: &[HostConfig], seed: u64, run_for_ns: u64) {
        for (id, config) in hosts.iter().enumerate() {
            if let Some(machine) = &config.machine {
                let host_seed = seed ^ (id as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                self.hosts[id].cpu = Some(Box::new(Cpu::new(machine, host_seed, run_for_ns)));
                self.counts.with_cpu.push(id);
                if self.counts.has_cpu.len() <= id / 64 {
                    self.counts.has_cpu.resize(id / 64 + 1, 0);
                }
                self.counts.has_cpu[id / 64] |= 1 << (id % 64);
                self.file_cpu_wakes(id);
            }
        }
    }

    /// What the cluster holds now: its queue, its hosts, the wakes they wait for and the items
    /// held for them while they cannot run.
    pub(crate) fn footprint(&self) -> crate::memory::Footprint {
        let Counts {
            wake_slots: slots,
            held,
            ref with_cpu,
            ..
        } = self.counts;
        // Debug builds (every test) check the kept totals against a walk over every host.
        debug_assert_eq!(
            (slots, held),
            self.hosts.iter().fold((0, 0), |(slots, held), host| {
                (slots + host.wakes.len(), held + host.held.len())
            }),
            "the cluster's kept totals of wake slots and held items"
        );
        debug_assert_eq!(
            with_cpu.len(),
            self.hosts.iter().filter(|host| host.cpu.is_some()).count()
        );
        let with_cpu = || with_cpu.iter().map(|&host| &self.hosts[host]);
        let working: usize = with_cpu().map(|host| host.threads.all_waiting()).sum();
        let threads: usize = with_cpu()
            .filter_map(|host| host.cpu.as_deref())
            .map(Cpu::thread_count)
            .sum();
        crate::memory::Footprint::new()
            .with(
                crate::machine::THREADS,
                threads as u128,
                crate::machine::bytes_per_thread(self.end_ns),
            )
            .with(
                "work waiting for threads",
                working as u128,
                crate::memory::grown::<Step>(),
            )
            .with(
                super::memory::QUEUED,
                (self.queue.len() + held) as u128,
                Self::BYTES_PER_ITEM,
            )
            .with(
                super::memory::HOSTS,
                self.hosts.len() as u128,
                Self::BYTES_PER_HOST,
            )
            .with(
                "wake slots",
                slots as u128,
                crate::memory::grown::<Option<PendingWake>>(),
            )
    }

    /// What `Instant::now()` reads on `host`, since the run started.
    pub(crate) fn instant_ns(&self, host: HostId) -> i64 {
        let host = &self.hosts[host];
        host.machine.instant_ns(host.drift.local_ns(self.now_ns))
    }

    /// What `clock` on `host` reads now.
    pub(crate) fn read(&self, host: HostId, clock: ClockId) -> i64 {
        let host = &self.hosts[host];
        host.machine
            .clocks()
            .read(clock, host.drift.local_ns(self.now_ns))
    }

    pub(crate) fn can_run(&self, host: HostId) -> bool {
        self.hosts[host].machine.can_run()
    }

    /// Since when `host`'s process has been able to run, in physical ns; `None` while it cannot.
    pub(crate) fn running_since_ns(&self, host: HostId) -> Option<u64> {
        self.hosts[host].machine.running_since_ns()
    }

    /// Why `host` cannot run now, if it cannot: its system is asleep, or its process frozen.
    pub(crate) fn stopped(&self, host: HostId) -> Option<&'static str> {
        let machine = &self.hosts[host].machine;
        match (machine.system_awake(), machine.can_run()) {
            (false, _) => Some("asleep"),
            (true, false) => Some("frozen"),
            (true, true) => None,
        }
    }

    /// The physical time at which `clock` on `host` will read `target_ns`, if nothing changes
    /// it; `None` while it is stopped short of it.
    pub(crate) fn phys_when(&self, host: HostId, clock: ClockId, target_ns: i64) -> Option<u64> {
        let host = &self.hosts[host];
        let local_now_ns = host.drift.local_ns(self.now_ns);
        let wait_ns = host
            .machine
            .clocks()
            .phys_until(clock, local_now_ns, target_ns)?;
        let local_ns = local_now_ns.saturating_add(wait_ns);
        Some(host.drift.phys_at_or_after(local_ns).max(self.now_ns))
    }

    /// A thread's timed wait: wakes `host` when its `clock` reads `target_ns`, as its platform's
    /// timers end waits, once the host can run.
    pub(crate) fn wake_at(
        &mut self,
        host: HostId,
        clock: ClockId,
        target_ns: i64,
        tag: WakeTag,
    ) -> WakeId {
        self.file_wake(host, clock, target_ns, tag, Filing::TimedWait)
    }

    /// Work or I/O that ends when `host`'s `clock` reads `target_ns` (a server's answer, a
    /// write to disk): exactly then, since no timer ends it, once the host can run.
    pub(crate) fn done_at(
        &mut self,
        host: HostId,
        clock: ClockId,
        target_ns: i64,
        tag: WakeTag,
    ) -> WakeId {
        self.file_wake(host, clock, target_ns, tag, Filing::Exact)
    }

    /// Tells the runner when `host`'s `clock` reads `target_ns`, whether or not the host can run.
    pub(crate) fn observe_at(
        &mut self,
        host: HostId,
        clock: ClockId,
        target_ns: i64,
        tag: WakeTag,
    ) -> WakeId {
        self.file_wake(host, clock, target_ns, tag, Filing::Observer)
    }

    fn file_wake(
        &mut self,
        host: HostId,
        clock: ClockId,
        target_ns: i64,
        tag: WakeTag,
        filing: Filing,
    ) -> WakeId {
        // A thread's timed wait ends as its platform's timers end waits; work that finishes,
        // and an observer's bookkeeping, are exact.
        let target_ns = match &self.hosts[host].cpu {
            Some(cpu) if filing == Filing::TimedWait && target_ns > self.read(host, clock) => {
                cpu.timing().wait_end_ns(target_ns)
            }
            _ => target_ns,
        };
        let observer = filing == Filing::Observer;
        let state = &mut self.hosts[host];
        let slot = match state.free.pop() {
            Some(slot) => slot,
            None => {
                state.wakes.push(None);
                self.counts.wake_slots += 1;
                (state.wakes.len() - 1) as u32
            }
        };
        self.filings += 1;
        let id = self.filings;
        let wake = PendingWake {
            clock,
            target_ns,
            tag,
            id,
            generation: id,
            observer,
        };
        state.wakes[slot as usize] = Some(wake);
        self.queue_wake(host, slot);
        WakeId { host, slot, id }
    }

    /// Files the wake in `slot` under its physical time, as a new generation.
    fn queue_wake(&mut self, host: HostId, slot: u32) {
        let Some(mut wake) = self.hosts[host].wakes[slot as usize] else {
            return;
        };
        self.filings += 1;
        wake.generation = self.filings;
        self.hosts[host].wakes[slot as usize] = Some(wake);
        if let Some(at_ns) = self.phys_when(host, wake.clock, wake.target_ns) {
            self.push(
                at_ns,
                Item::Wake {
                    host,
                    slot,
                    generation: wake.generation,
                },
            );
        }
    }

    pub(crate) fn cancel(&mut self, id: WakeId) {
        let state = &mut self.hosts[id.host];
        if state.wakes[id.slot as usize].is_some_and(|wake| wake.id == id.id) {
            state.wakes[id.slot as usize] = None;
            state.free.push(id.slot);
            return;
        }
        // Already due, it may wait for the host's thread: cancelled, it must not run there.
        state.threads.cancel_wake(id.id);
    }

    /// Sends `msg`; it arrives after the link's latency, unless a partition drops it.
    pub(crate) fn send(&mut self, from: HostId, to: HostId, msg: Msg) {
        self.messages_sent += 1;
        let now_ns = self.now_ns;
        if self.network.partitioned(from, to, now_ns) {
            self.messages_lost += 1;
            return;
        }
        if let Some(carrier) = &mut self.carrier {
            carrier.catch_up(now_ns);
            carrier.send(from, to, msg);
            return;
        }
        let latency_ns = self.network.draw_latency_ns(from, to, now_ns);
        self.push(
            now_ns.saturating_add(latency_ns),
            Item::Deliver {
                from: from as u32,
                to: to as u32,
                msg,
            },
        );
    }

    fn next_step(&mut self) -> Result<Next<Step>, String> {
        loop {
            self.carry_until_next()?;
            match self.queue.peek_ns() {
                Some(at_ns) if at_ns < self.end_ns => {}
                _ => {
                    self.now_ns = self.end_ns;
                    return Ok(Next::End);
                }
            }
            let Some((at_ns, item)) = self.queue.pop() else {
                continue;
            };
            self.now_ns = at_ns;
            self.steps += 1;
            if let Some(step) = self.take(item) {
                return Ok(step);
            }
        }
    }

    /// What the host of the last fault edge found as it ran again, once.
    pub(crate) fn take_thawed(&mut self) -> Option<Thawed> {
        self.thawed.take()
    }

    /// Steps turmoil while datagrams are in flight and its clock is behind the next item, and
    /// files what arrives.
    fn carry_until_next(&mut self) -> Result<(), String> {
        let Some(carrier) = &mut self.carrier else {
            return Ok(());
        };
        loop {
            let next_ns = self
                .queue
                .peek_ns()
                .map_or(self.end_ns, |at_ns| at_ns.min(self.end_ns));
            if !carrier.busy() || carrier.now_ns() >= next_ns {
                return Ok(());
            }
            let (arrivals, vanished) = carrier.step()?;
            self.messages_lost += vanished as u64;
            let at_ns = carrier.now_ns().max(self.now_ns);
            for (from, to, _, msg) in arrivals {
                let (from, to) = (from as u32, to as u32);
                self.queue.push(at_ns, Item::Deliver { from, to, msg });
            }
        }
    }

    /// What an item taken off the queue does; `None` if it is stale, held or handled here.
    fn take(&mut self, item: Item) -> Option<Next<Step>> {
        let step = match item {
            Item::Edge { host, index } => {
                let edge = self.edges[index as usize];
                return Some(self.apply_edge(host, edge));
            }
            Item::Slice { host, ticket } => return Some(Next::Slice { host, ticket }),
            Item::LoadBurst { host, index } => return Some(Next::Load { host, index }),
            Item::Network {
                begins,
                is_partition,
                index,
            } => {
                if let (Some(carrier), false) = (&mut self.carrier, is_partition) {
                    // What every pair the spike touches takes now, by the rule the event network
                    // draws from: another spike may still be under way, or begin at this moment.
                    let pair = self.network.window(false, index).pair;
                    for (a, b) in pair.pairs(self.hosts.len()) {
                        carrier.relink(a, b, self.network.range_at(a, b, self.now_ns));
                    }
                }
                Step::Network {
                    begins,
                    is_partition,
                    index,
                }
            }
            Item::Wake {
                host,
                slot,
                generation,
            } => {
                let wake = self.hosts[host].wakes[slot as usize]?;
                if wake.generation != generation {
                    return None;
                }
                if !wake.observer && !self.can_run(host) {
                    self.hosts[host].held.push(item);
                    self.counts.held += 1;
                    return None;
                }
                self.hosts[host].wakes[slot as usize] = None;
                self.hosts[host].free.push(slot);
                Step::Wake {
                    host,
                    tag: wake.tag,
                    id: wake.id,
                }
            }
            Item::Deliver { from, to, msg } => {
                let (from, to) = (from as HostId, to as HostId);
                let asleep = !self.hosts[to].machine.system_awake();
                if asleep || self.network.partitioned(from, to, self.now_ns) {
                    self.messages_lost += 1;
                    return Some(Next::Event(Step::Lost { from, to, msg }));
                }
                if !self.can_run(to) {
                    self.hosts[to].held.push(item);
                    self.counts.held += 1;
                    return None;
                }
                Step::Message { from, to, msg }
            }
        };
        Some(Next::Event(step))
    }
}
