//! The run: one physical timeline for every host, stepped in (time, sequence) order.
//!
//! A host runs when something reaches it: its start, its next timer, a segment for its kernel, a
//! thaw. The run then steps its runtime until every task waits, takes what it sent, and files
//! its next timer at the physical moment its own `Instant` reads it. Nothing happens between
//! those moments, so a quiet hour costs nothing.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex};

use ticklab_sim::{FaultSchedule, Secs};

use super::clockwork::{Clockwork, SharedClockwork, SleepTarget};
use super::declare::{Role, Service};
use super::host::HostRuntime;
use super::net::fabric::{Fabric, Segment};
use super::net::{OnHost, SharedFabric};
use super::notes::Collecting;
use super::queue::{Event, Queue};
use super::record::Record;
use super::stall::StallWatch;
use crate::hosts::network::{Network, NetworkConfig};
use crate::hosts::thaw::ThawOrder;
use crate::memory::Footprint;
use crate::tokio::os::answer::{Role as ThreadRole, RunClocks, Scope};
use crate::tokio::os::park::{ParkWatch, Parked};

mod delivery;
mod finish;
mod footprint;
mod held;
mod setup;

use super::outcome::{ServiceError, ServiceRun, error, note_line};

const MS_NS: u64 = 1_000_000;

struct Runner {
    clockwork: SharedClockwork,
    fabric: SharedFabric,
    queue: Queue,
    runtimes: Vec<HostRuntime>,
    roles: Vec<Role>,
    /// Which clients have returned, and how many are left of how many.
    returned: Vec<bool>,
    clients_left: usize,
    clients: usize,
    names: Vec<String>,
    /// Each host's next timer, in whole ms of its `Instant`, and its filing's generation.
    next_tick_ms: Vec<Option<u64>>,
    generation: Vec<u64>,
    /// What a sleep that holds each host's thread waits for, and when its end was filed.
    busy: Vec<Option<SleepTarget>>,
    free_filed: Vec<Option<u64>>,
    /// TCP segments that reached a host whose system slept, for when it wakes.
    backlog: Vec<Vec<Segment>>,
    /// What reached a frozen host that handles its timers first as it thaws, for after them.
    held: Vec<Vec<Segment>>,
    thaw_orders: Vec<ThawOrder>,
    network: Network,
    /// Each copy of a segment between two hosts is lost with this chance, in parts per million.
    loss_ppm: u64,
    loss: ticklab_sim::SimRng,
    /// When the last segment from one host to another arrives: a connection keeps its order.
    last_arrival_ns: BTreeMap<(usize, usize), u64>,
    end_ns: u64,
    now_ns: u64,
    trace: Vec<String>,
    /// How many of the hosts' notes are in the trace.
    notes_seen: usize,
    steps: u64,
    max_steps: u64,
    warn_after_real_ns: u64,
    warnings: Vec<String>,
    /// What the run's picture shows.
    record: Record,
    /// The run's memory bound, what its notes and trace hold, and the most it held at a count.
    max_memory_bytes: u64,
    kept: footprint::Kept,
    peak_footprint: Footprint,
    watch: ParkWatch,
    stall: StallWatch,
}

pub(crate) fn run(service: Service) -> Result<ServiceRun, ServiceError> {
    setup::check_can_run();
    let network = setup::check_declaration(&service)?;
    crate::tokio::os::keep_linked();
    crate::tokio::panics::install_hook();
    // Started before this thread enters the run: its thread is ticklab's own.
    let stall = StallWatch::start(service.stop_after_real_ns);
    // The run waits for its share of the process's memory, beside runs on other threads.
    let estimate_bytes = u128::from(footprint::BYTES_PER_HOST) * service.hosts.len() as u128;
    let process_bound_bytes = crate::memory::DEFAULT_MAX_MEMORY_BYTES;
    let claim = crate::memory::budget::claim_bytes(
        estimate_bytes,
        service.max_memory_bytes,
        process_bound_bytes,
    );
    let _admission = crate::memory::budget::PROCESS.admit(claim, process_bound_bytes);
    let mut clocks_of_hosts = Clockwork::new(setup::host_clocks(&service));
    clocks_of_hosts.swallow_panics = service.swallow_panics;
    let clockwork = SharedClockwork(Arc::new(Mutex::new(clocks_of_hosts)));
    let clocks = RunClocks::new(service.wall_start_ns);
    clocks
        .hosts
        .set(Arc::new(clockwork.clone()))
        .expect("set once, as the run begins");
    let _scope = Scope::enter(&clocks, ThreadRole::Runtime);
    let notes = Collecting::start(&clockwork);
    let mut runner = Runner::new(&service, &network, clockwork, stall);
    runner.start(service);
    let outcome = runner.drive();
    runner.shut_down();
    let notes = notes.finish();
    let ended_at_ns = outcome?;
    runner.finish_record(ended_at_ns, &network);
    runner.measure_memory(None)?;
    Ok(ServiceRun {
        ended_at_ns,
        notes,
        trace: runner.trace,
        steps: runner.steps,
        warnings: runner.warnings,
        record: runner.record,
        footprint: runner.peak_footprint,
    })
}

impl Runner {
    fn new(
        service: &Service,
        network: &NetworkConfig,
        clockwork: SharedClockwork,
        stall: StallWatch,
    ) -> Runner {
        let names: Vec<String> = service.hosts.iter().map(|host| host.name.clone()).collect();
        let hosts = names.len();
        let clients = service
            .hosts
            .iter()
            .filter(|host| host.role == Role::Client)
            .count();
        Runner {
            fabric: SharedFabric(Arc::new(Mutex::new(Fabric::new(names.clone())))),
            queue: Queue::default(),
            runtimes: Vec::with_capacity(hosts),
            roles: service.hosts.iter().map(|host| host.role).collect(),
            returned: vec![false; hosts],
            clients_left: clients,
            clients,
            next_tick_ms: vec![None; hosts],
            generation: vec![0; hosts],
            busy: vec![None; hosts],
            free_filed: vec![None; hosts],
            backlog: (0..hosts).map(|_| Vec::new()).collect(),
            held: (0..hosts).map(|_| Vec::new()).collect(),
            thaw_orders: service.hosts.iter().map(|host| host.thaw_order).collect(),
            network: Network::new(network, service.seed),
            loss_ppm: service.loss_ppm,
            loss: ticklab_sim::SimRng::for_purpose(service.seed, "service-loss"),
            last_arrival_ns: BTreeMap::new(),
            end_ns: service.run_for_ns,
            now_ns: 0,
            trace: Vec::new(),
            notes_seen: 0,
            steps: 0,
            max_steps: service.max_steps,
            warn_after_real_ns: service.warn_after_real_ns,
            warnings: Vec::new(),
            record: Record::new(
                service
                    .hosts
                    .iter()
                    .map(|host| (host.name.clone(), host.platform.name()))
                    .collect(),
                service.seed,
                service.wall_start_ns,
            ),
            max_memory_bytes: service.max_memory_bytes,
            kept: footprint::Kept::default(),
            peak_footprint: Footprint::new(),
            watch: ParkWatch::start(),
            stall,
            names,
            clockwork,
        }
    }

    /// Builds every host's runtime and queues the faults, partitions and starts.
    fn start(&mut self, service: Service) {
        for (host, spec) in service.hosts.into_iter().enumerate() {
            let mut schedule = FaultSchedule::new(&spec.faults);
            while let Some(edge) = schedule.pop() {
                self.queue.push(edge.at_ns, Event::Edge { host, edge });
            }
            // The runtime's clock starts at the host's `Instant`, read as it is built.
            self.clockwork.lock().current = Some(host);
            let software = spec.software.expect("checked as the run began");
            self.runtimes.push(HostRuntime::new(software));
            self.clockwork.lock().current = None;
        }
        for (at_ns, begins, is_partition, index) in self.network.edges(self.end_ns) {
            let event = Event::Network {
                begins,
                is_partition,
                index,
            };
            self.queue.push(at_ns, event);
        }
        for host in 0..self.runtimes.len() {
            self.queue.push(0, Event::Start { host });
            let reading = self.clockwork.lock().reading(host);
            self.record.clocks(host, 0, reading);
        }
    }

    /// Runs to the end; when the run ended.
    fn drive(&mut self) -> Result<u64, ServiceError> {
        while let Some(at_ns) = self.queue.peek_ns() {
            if at_ns >= self.end_ns {
                break;
            }
            let (at_ns, event) = self.queue.pop().expect("peeked");
            self.now_ns = at_ns;
            self.clockwork.lock().now_ns = at_ns;
            self.handle(event)?;
            if self.every_client_returned() {
                return Ok(self.now_ns);
            }
        }
        self.now_ns = self.end_ns;
        self.clockwork.lock().now_ns = self.end_ns;
        let waiting: Vec<&str> = (0..self.roles.len())
            .filter(|&host| {
                self.roles[host] == Role::Client && self.runtimes[host].outcome.borrow().is_none()
            })
            .map(|host| self.names[host].as_str())
            .collect();
        if !waiting.is_empty() {
            return Err(error(format!(
                "the run's {} ran out before client{} {} returned",
                Secs(self.end_ns),
                if waiting.len() == 1 { "" } else { "s" },
                waiting
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(self.end_ns)
    }

    /// Whether the run has clients and every one has returned: it then ends.
    fn every_client_returned(&self) -> bool {
        self.clients > 0 && self.clients_left == 0
    }

    fn handle(&mut self, event: Event) -> Result<(), ServiceError> {
        match event {
            Event::Start { host } => {
                if self.can_run(host) && !self.runtimes[host].started() {
                    self.step(host)?;
                }
            }
            Event::Edge { host, edge } => self.apply_edge(host, edge)?,
            Event::Free { host } => {
                if self.can_run(host) {
                    self.step(host)?;
                }
            }
            Event::Timer { host, generation } => {
                if generation == self.generation[host] && self.can_run(host) {
                    self.step(host)?;
                }
            }
            Event::Deliver(segment) => self.deliver(segment)?,
            Event::Network {
                begins,
                is_partition,
                index,
            } => {
                let window = *self.network.window(is_partition, index);
                let a = &self.names[window.pair.a];
                let b = window.pair.b.map_or("*", |b| self.names[b].as_str());
                let what = match (is_partition, begins) {
                    (true, true) => "partition begins".to_string(),
                    (true, false) => "partition heals".to_string(),
                    (false, true) => format!("latency spike to {}", Secs(window.latency_ns.1)),
                    (false, false) => "latency spike ends".to_string(),
                };
                let line = format!("{}  {a} <-> {b}  {what}", Secs(self.now_ns));
                self.push_trace(line);
            }
        }
        Ok(())
    }

    fn can_run(&self, host: usize) -> bool {
        self.clockwork.lock().hosts[host].machine.can_run()
    }

    fn line(&mut self, host: usize, what: String) {
        let line = format!("{}  {}  {what}", Secs(self.now_ns), self.names[host]);
        self.push_trace(line);
    }

    /// Keeps `line` in the trace, counting its bytes for the memory bound.
    fn push_trace(&mut self, line: String) {
        self.kept.trace_bytes += line.len() as u64;
        self.kept.grown_since_count += line.len() as u64;
        self.trace.push(line);
    }

    /// Runs `host`'s tasks until every one waits.
    fn step(&mut self, host: usize) -> Result<(), ServiceError> {
        if self.thread_held(host) {
            return Ok(());
        }
        if !self.runtimes[host].started() {
            // At the start, or as it thaws or wakes if it could not run then.
            self.line(host, "starts".to_string());
        }
        let began_real_ns = crate::tokio::os::real_monotonic_ns();
        self.clockwork.lock().current = Some(host);
        let parked = {
            let _on = OnHost::enter(&self.fabric, host);
            self.stall.begin(&self.names[host], self.now_ns);
            let parked = self.runtimes[host].step(&self.watch);
            self.stall.end();
            parked
        };
        self.after_step(host)?;
        self.check_work(host, began_real_ns)?;
        let Some(parked) = parked else {
            return Err(error(format!(
                "host `{}`'s tasks never all waited at {}: some task was always ready to run (one \
                 that yields in a loop?), so its clock could never move",
                self.names[host],
                Secs(self.now_ns)
            )));
        };
        self.next_tick_ms[host] = match parked {
            Parked::For { ms } => {
                let now_ms = self.clockwork.lock().reading(host).instant_ns / MS_NS;
                Some(now_ms + ms)
            }
            Parked::UntilWoken => None,
        };
        self.take_held_thread(host);
        self.refile_timer(host);
        self.send_outbox();
        let ended = self.runtimes[host].outcome.borrow().clone();
        match ended {
            Some(Err(why)) => Err(error(format!(
                "host `{}` returned an error: {why}",
                self.names[host]
            ))),
            Some(Ok(())) if self.roles[host] == Role::Client && !self.returned[host] => {
                self.returned[host] = true;
                self.clients_left -= 1;
                self.line(host, "returned".to_string());
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// What a step left: the sleep that holds the host's thread and the notes it made, into the
    /// trace; panics left to tokio; and whether its code did what fails the run.
    fn after_step(&mut self, host: usize) -> Result<(), ServiceError> {
        self.trace_held_thread(host);
        for note in super::notes::new_since(&mut self.notes_seen) {
            self.kept.notes += 1;
            let bytes = (note.text.len() + note.host.len()) as u64;
            self.kept.note_bytes += bytes;
            self.kept.grown_since_count += bytes;
            self.push_trace(note_line(&note));
        }
        let (failure, swallowed) = {
            let mut clockwork = self.clockwork.lock();
            clockwork.current = None;
            (
                clockwork.failure.take(),
                std::mem::take(&mut clockwork.swallowed),
            )
        };
        for (host, why) in swallowed {
            self.line(host, format!("a task {why} (left to tokio)"));
        }
        match failure {
            Some(why) => Err(error(why)),
            None => Ok(()),
        }
    }

    /// Counts the step against the run's bound, and warns of one that held the thread for long
    /// in real time: something blocked the host's code that simulated time cannot see.
    fn check_work(&mut self, host: usize, began_real_ns: i128) -> Result<(), ServiceError> {
        self.steps += 1;
        self.check_memory(host)?;
        if self.steps > self.max_steps {
            return Err(error(format!(
                "the run stepped its hosts more than {} times by {} (host `{}` last): raise \
                 `max_events` if that much work is meant",
                self.max_steps,
                Secs(self.now_ns),
                self.names[host]
            )));
        }
        let took_ns =
            u64::try_from(crate::tokio::os::real_monotonic_ns() - began_real_ns).unwrap_or(0);
        if took_ns > self.warn_after_real_ns {
            let warning = format!(
                "host `{}`'s code ran for {} of real time without waiting at {}: something \
                 blocked it that simulated time cannot see, and its clock stood still meanwhile",
                self.names[host],
                ticklab_sim::Approx(took_ns),
                Secs(self.now_ns)
            );
            let _ = writeln!(std::io::stderr(), "ticklab::service warning: {warning}");
            self.warnings.push(warning);
        }
        Ok(())
    }

    /// Files `host`'s next timer at the physical moment its `Instant` reads it.
    fn refile_timer(&mut self, host: usize) {
        self.generation[host] += 1;
        let Some(tick_ms) = self.next_tick_ms[host] else {
            return;
        };
        let at_ns = self
            .clockwork
            .lock()
            .phys_when_instant(host, tick_ms.saturating_mul(MS_NS));
        if let Some(at_ns) = at_ns {
            let generation = self.generation[host];
            self.queue.push(at_ns, Event::Timer { host, generation });
        }
    }
}

impl fmt::Debug for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("now_ns", &self.now_ns)
            .field("queued", &self.queue.len())
            .finish()
    }
}
