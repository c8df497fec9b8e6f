//! Binds the process-wide lock into the world.
//!
//! Every thread is a thread on the machine's [`Cores`](ticklab_sim::Cores). A spawner wants to
//! start a command every `spawn_every`: on average, at random (exponential gaps, as independent
//! requests arrive), or exactly with `arrival = "periodic"`; it queues for the lock for writing,
//! and once it holds it runs the spawn's system call on a core for as long as the cost profile
//! says: `fork` pays a base plus a cost per GiB of memory mapped at that moment. It releases the
//! lock when the call is done. Readers take the lock for reading around a short call; busy threads
//! compute for the whole run and compete for the same cores, so a lock holder may wait for a core
//! while everyone else waits for it.

use std::io;
use std::sync::Arc;

use rand_distr::{Distribution, Exp};
use ticklab_models::lock::{Access, ProcessLock};
use ticklab_sim::{CoreTime, CpuKind, SimRng, ThreadId};

use super::LockWaitEvent;
use super::spec::{LockConfig, Spacing, SpawnKind};
use super::stats::LockStats;
use crate::machine::bound::{self, ModelCpu};
use crate::machine::{Binding, Machine, MachineReport, drive};
use crate::memory::Footprint;
use crate::runner::error::RunError;
use crate::runner::faults::retiming_edges;
use crate::runner::memory_check::WAKES;
use crate::runner::options::RunOptions;
use crate::runner::start::{Plan, begin, world_config};
use crate::scenario::setting::Setting;
use crate::scenario::values::MIB;
use crate::trace::{Event, Summary, TraceSink};

const GIB: f64 = (1u64 << 30) as f64;

#[derive(Clone, Copy, Debug)]
enum Wake {
    /// A spawner or reader wants the lock.
    Want { thread: u32 },
    /// A window of the run ends.
    Window,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Spawner,
    Reader,
    Busy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between acquisitions, until its next one is due.
    Resting,
    /// In line for the lock since then.
    Waiting {
        since_ns: u64,
    },
    /// Holding the lock and running its call.
    Holding,
    Computing,
}

#[derive(Debug)]
struct LockThread {
    role: Role,
    cpu: ThreadId,
    state: State,
    /// When its current period began: the next acquisition is due one period later.
    due_ns: u64,
    name: Arc<str>,
}

fn check_work(
    scenario: &Setting,
    config: &LockConfig,
    options: &RunOptions,
) -> Result<u128, RunError> {
    let run_for_ns = scenario.run_for_ns;
    let acquisitions = u128::from(config.spawners)
        * (u128::from(run_for_ns / config.spawn_every_ns) + 1)
        + if config.readers > 0 {
            u128::from(config.readers) * (u128::from(run_for_ns / config.read_every_ns) + 1)
        } else {
            0
        };
    let threads = u128::from(config.spawners + config.readers + config.busy_threads);
    // Each acquisition is a wake and a slice end; every slice of CPU on a core some thread can
    // occupy is one more.
    let cores = scenario
        .machine
        .cores
        .map_or(threads, |cores| cores as u128);
    let busy_cores = threads.min(cores);
    let slices = busy_cores * u128::from(run_for_ns / scenario.machine.time_slice_ns + 1);
    let windows = u128::from(run_for_ns / config.window_ns + 1);
    let events = 4 * acquisitions + 2 * slices + windows + retiming_edges(scenario) * (threads + 1);
    // The lock's own threads are counted above; what the machine adds is its outside load.
    let machine_steps = bound::cpu_steps(
        &scenario.machine,
        &scenario.faults,
        run_for_ns,
        ModelCpu::default(),
    );
    bound::check_bound(
        events,
        machine_steps,
        options.max_events,
        format!("{acquisitions} lock acquisitions"),
        "lengthen `spawn_every` or `read_every`, lower `spawners` or `readers`, or lengthen `time_slice`",
    )
}

pub(crate) fn run(
    scenario: &Setting,
    config: &LockConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let plan = Plan {
        steps: check_work(scenario, config, options)?,
        peak: peak_footprint(scenario, config),
        design: format!("{} lock", config.spawn.name()),
        fewer_by: "lower `spawners`, `readers` or `busy_threads`",
    };
    let mut started =
        begin::<crate::lock::LockModel>(scenario, config, seed, options, plan, Vec::new(), sink)?;
    let mut machine = Machine::new(world_config(scenario), &scenario.machine, seed);
    let run = LockRun::new(scenario, config, seed, &mut machine, sink);
    drive(machine, run, &mut started.watchdog)
}

/// What the lock's own threads are called in a footprint.
const LOCK_THREADS: &str = "lock threads";

/// The most a lock run holds at once: each thread as the run keeps it and as the machine
/// accounts for it, and a wake waiting for each thread and for the window's end, the most that
/// can wait at once since each thread waits for one thing at a time.
fn peak_footprint(scenario: &Setting, config: &LockConfig) -> Footprint {
    let threads = u128::from(config.spawners + config.readers + config.busy_threads);
    // A thread's entry, its name and its place in the lock's queue of waiters.
    let bytes_per_lock_thread = (std::mem::size_of::<LockThread>() + 64 + 16) as u64;
    Footprint::new()
        .with(LOCK_THREADS, threads, bytes_per_lock_thread)
        .with(
            crate::machine::THREADS,
            threads,
            crate::machine::bytes_per_thread(scenario.run_for_ns),
        )
        .with(WAKES, threads + 1, Machine::<Wake>::BYTES_PER_WAKE)
}

struct LockRun<'a> {
    config: &'a LockConfig,
    lock: ProcessLock,
    threads: Vec<LockThread>,
    /// Which of `threads` each core thread is.
    by_cpu: Vec<u32>,
    costs: SimRng,
    gaps: SimRng,
    stats: LockStats,
    wants_events: bool,
    sink: &'a mut dyn TraceSink,
}

impl Binding for LockRun<'_> {
    type Wake = Wake;

    fn on_wake(&mut self, wake: Wake, m: &mut Machine<Wake>) -> Result<(), RunError> {
        Ok(self.wake(m, wake)?)
    }

    fn on_cpu_done(&mut self, cpu: ThreadId, m: &mut Machine<Wake>) -> Result<(), RunError> {
        Ok(self.call_done(m, self.by_cpu[cpu.0 as usize])?)
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        self.sink
    }

    fn finish(
        &mut self,
        m: &mut Machine<Wake>,
        report: &MachineReport,
    ) -> Result<Summary, RunError> {
        Ok(self.summary(m, report)?)
    }
}

impl<'a> LockRun<'a> {
    fn new(
        scenario: &Setting,
        config: &'a LockConfig,
        seed: u64,
        world: &mut Machine<Wake>,
        sink: &'a mut dyn TraceSink,
    ) -> Self {
        let mut phases = SimRng::for_purpose(seed, "lock-phases");
        let mut threads = Vec::new();
        let roles = [
            (
                Role::Spawner,
                config.spawners,
                config.spawn_every_ns,
                "spawner",
            ),
            (Role::Reader, config.readers, config.read_every_ns, "reader"),
            (Role::Busy, config.busy_threads, 0, "busy"),
        ];
        let mut busy = Vec::new();
        for (role, count, every_ns, name) in roles {
            for index in 0..count {
                let id = threads.len() as u32;
                let name: Arc<str> = format!("{name}-{index}").into();
                let cpu = world.add_thread(name.to_string());
                let (state, due_ns) = match role {
                    Role::Busy => {
                        busy.push(cpu);
                        (State::Computing, 0)
                    }
                    Role::Spawner | Role::Reader => {
                        let phase_ns = phases.in_range(0, every_ns - 1);
                        world.wake_at_physical(phase_ns, Wake::Want { thread: id });
                        (State::Resting, phase_ns)
                    }
                };
                threads.push(LockThread {
                    role,
                    cpu,
                    state,
                    due_ns,
                    name,
                });
            }
        }
        world.wake_at_physical(config.window_ns, Wake::Window);
        // Busy threads compute from the start, for the whole run.
        for cpu in busy {
            world.run(cpu, scenario.run_for_ns, CpuKind::Busy);
        }
        let by_cpu = (0..threads.len() as u32).collect();
        LockRun {
            config,
            lock: ProcessLock::new(config.lock),
            threads,
            by_cpu,
            costs: SimRng::for_purpose(seed, "lock-costs"),
            gaps: SimRng::for_purpose(seed, "lock-gaps"),
            stats: LockStats::new(),
            wants_events: sink.wants_events(),
            sink,
        }
    }

    fn memory_mib(&self, m: &Machine<Wake>) -> u64 {
        self.config.memory_at(m.now_ns()) / MIB
    }

    fn wake(&mut self, m: &mut Machine<Wake>, wake: Wake) -> io::Result<()> {
        let now_ns = m.now_ns();
        match wake {
            Wake::Want { thread } => {
                let access = match self.threads[thread as usize].role {
                    Role::Spawner => Access::Exclusive,
                    _ => Access::Shared,
                };
                self.threads[thread as usize].state = State::Waiting { since_ns: now_ns };
                if self.lock.acquire(thread, access) {
                    self.hold(m, thread)?;
                }
                self.check_lock(m)
            }
            Wake::Window => {
                let event = self.stats.close_window(now_ns, self.memory_mib(m));
                m.wake_at_physical(now_ns + self.config.window_ns, Wake::Window);
                if self.sink.wants_events() {
                    self.sink.record(&Event::Model(&event))?;
                }
                Ok(())
            }
        }
    }

    /// `thread` got the lock: it runs its system call on a core.
    fn hold(&mut self, m: &mut Machine<Wake>, thread: u32) -> io::Result<()> {
        let now_ns = m.now_ns();
        let state = &mut self.threads[thread as usize];
        let State::Waiting { since_ns } = state.state else {
            unreachable!("only a waiting thread is granted the lock");
        };
        state.state = State::Holding;
        let waited_ns = now_ns - since_ns;
        self.stats.wait(waited_ns);
        let (hold_ns, access) = match state.role {
            Role::Spawner => {
                self.stats.spawns += 1;
                let cost_ns = self.spawn_cost(m);
                self.stats.spawn_cost(cost_ns);
                (cost_ns, "write")
            }
            _ => {
                self.stats.reads += 1;
                (self.config.read_hold_ns, "read")
            }
        };
        let cpu = self.threads[thread as usize].cpu;
        m.run(cpu, hold_ns, CpuKind::Syscall);
        if self.wants_events {
            let event = LockWaitEvent {
                t_ns: now_ns,
                thread: self.threads[thread as usize].name.clone(),
                access,
                waited_ns,
                hold_ns,
                memory_mib: self.memory_mib(m),
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// What one spawn costs now, from the profile.
    fn spawn_cost(&mut self, m: &Machine<Wake>) -> u64 {
        let costs = &self.config.profile.costs;
        match self.config.spawn {
            SpawnKind::Fork => {
                let gib = self.config.memory_at(m.now_ns()) as f64 / GIB;
                let base_ns = costs.fork_base.sample(&mut self.costs);
                let per_gib_ns = costs.fork_per_gib.sample(&mut self.costs);
                base_ns + (per_gib_ns as f64 * gib).round() as u64
            }
            SpawnKind::Vfork => costs.vfork.sample(&mut self.costs),
            SpawnKind::PosixSpawn => costs.posix_spawn.sample(&mut self.costs),
        }
    }

    /// `thread`'s call is done: it lets the lock go, and rests until its next period.
    fn call_done(&mut self, m: &mut Machine<Wake>, thread: u32) -> io::Result<()> {
        let state = &mut self.threads[thread as usize];
        if state.role == Role::Busy {
            state.state = State::Resting;
            return Ok(());
        }
        let every_ns = match state.role {
            Role::Spawner => self.config.spawn_every_ns,
            _ => self.config.read_every_ns,
        };
        state.state = State::Resting;
        // Requests arrive on their own schedule; one that came while this thread was busy is
        // served as soon as it is free.
        let gap_ns = match self.config.arrival {
            Spacing::Periodic => every_ns,
            Spacing::Poisson => Exp::new(1.0 / every_ns as f64)
                .expect("a positive mean gives a valid rate")
                .sample(&mut self.gaps) as u64,
        };
        let now_ns = m.now_ns();
        let state = &mut self.threads[thread as usize];
        state.due_ns = (state.due_ns + gap_ns.max(1)).max(now_ns);
        let due_ns = state.due_ns;
        m.wake_at_physical(due_ns, Wake::Want { thread });
        for granted in self.lock.release(thread) {
            self.hold(m, granted)?;
        }
        self.check_lock(m)
    }

    /// The lock model's invariant: no thread waits for the lock while nobody holds it.
    fn check_lock(&mut self, m: &Machine<Wake>) -> io::Result<()> {
        if self.lock.waiting() == 0 || !self.lock.is_free() {
            return Ok(());
        }
        self.stats.invariant_violations += 1;
        let what = format!(
            "{} thread(s) wait for the lock while nobody holds it",
            self.lock.waiting()
        );
        let now_ns = m.now_ns();
        crate::invariant::report(self.sink, now_ns, self.stats.invariant_violations, what)
    }

    fn summary(&mut self, m: &Machine<Wake>, report: &MachineReport) -> io::Result<Summary> {
        let end_ns = m.end_ns();
        let mut waiting_at_end = 0;
        for thread in &self.threads {
            if let State::Waiting { since_ns } = thread.state {
                waiting_at_end += 1;
                self.stats.unfinished_wait(end_ns - since_ns);
            }
        }
        // The window in progress: wakes at the run's very end are not delivered.
        if self.stats.window_from_ns() < end_ns {
            let event = self.stats.close_window(end_ns, self.memory_mib(m));
            if self.sink.wants_events() {
                self.sink.record(&Event::Model(&event))?;
            }
        }
        let threads: Vec<(String, CoreTime)> = self
            .threads
            .iter()
            .map(|thread| (thread.name.to_string(), report.core_time(thread.cpu)))
            .collect();
        let parts = crate::cpu_report::sections(&threads, &report.core_busy_ns, end_ns);
        let stats = std::mem::replace(&mut self.stats, LockStats::new());
        Ok(stats.into_summary(end_ns, waiting_at_end, self.memory_mib(m), parts))
    }
}

#[cfg(test)]
mod tests {
    use crate::run::{RunError, RunOptions, run_scenario};
    use crate::trace::NoTrace;

    fn lock_run(busy_threads: u32) -> crate::scenario::Scenario {
        let text = format!(
            "about = \"a lock and busy threads\"\nplatform = \"linux\"\nrun_for = \"100s\"\n\
             [model]\nkind = \"lock\"\nprofile = \"profiles/reference.toml\"\ncores = 2\n\
             lock = \"rw\"\nspawn = \"fork\"\nspawners = 2\nspawn_every = \"1s\"\n\
             busy_threads = {busy_threads}\nmemory = \"64MiB\"\nwindow = \"10s\"\n"
        );
        crate::loader::parse(
            concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/lock/threads.toml"),
            &text,
        )
        .unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn a_lock_run_whose_threads_could_pass_the_memory_bound_is_refused_before_it_starts() {
        let options = RunOptions {
            max_memory_bytes: 4 << 20,
            ..RunOptions::default()
        };
        match run_scenario(&lock_run(10_000), &options, &mut NoTrace) {
            Err(RunError::TooMuchMemory { footprint, .. }) => {
                assert!(footprint.contains("lock threads"), "{footprint}");
                assert!(footprint.contains("simulated threads"), "{footprint}");
            }
            other => panic!("10,000 threads under 4 MiB ran: {other:?}"),
        }
        // A handful of threads fits the same bound.
        let report = run_scenario(&lock_run(1), &options, &mut NoTrace)
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(report.summary.get("invariant_violations").is_some());
    }
}
