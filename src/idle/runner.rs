//! Runs one event loop per strategy in the world, each on its own core, all seeing the same
//! events.
//!
//! A polling strategy's calls between two events are charged in one step: the number of whole
//! calls (at the profile's mean cost) that fit before the loop first looks after the event. A
//! blocking strategy makes one call at a time, its wake-up and overshoot drawn from the profile.

use ticklab_models::idle::{Idle, Strategy, block, poll_until};
use ticklab_sim::{CoreTime, EdgeEffect, FaultEdge, SimRng};

use super::IdleWakeEvent;
use super::arrivals::{arrivals, arrivals_bound};
use super::spec::IdleConfig;
use super::{METRICS, STRATEGY_METRICS};
use crate::latencies::Latencies;
use crate::machine::bound::{self, ModelCpu};
use crate::machine::{Binding, Machine, MachineReport, drive};
use crate::memory::{Footprint, grown};
use crate::profile::Costs;
use crate::runner::error::RunError;
use crate::runner::faults::retiming_edges;
use crate::runner::options::RunOptions;
use crate::runner::start::{Plan, begin, world_config};
use crate::scenario::setting::Setting;
use crate::trace::{Event, Section, Summary, TraceSink};

#[derive(Clone, Copy, Debug)]
enum Wake {
    /// The loop of strategy `index` looks for events; stale if its generation has moved on (a
    /// suspend cut what it was doing short).
    Look { index: u32, generation: u32 },
}

/// What a loop is doing until its next look, so that a suspend can cut it short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doing {
    /// Calls charged in bulk from `start_ns`, each `call_ns` long with `cpu_ns` of CPU.
    Polling {
        start_ns: u64,
        call_ns: u64,
        cpu_ns: u64,
        calls: u64,
    },
    /// One blocking call: a suspend ends it, as a signal interrupts a wait.
    Blocking,
    /// Handling events until `until_ns`: the rest is handled after the resume.
    Handling { until_ns: u64 },
}

/// One strategy's loop and what it has done.
#[derive(Debug)]
struct Loop {
    strategy: Strategy,
    /// The first arrival it has not handled yet.
    next_event: usize,
    calls: u64,
    /// Calls made when it last handled events.
    calls_at_last_wake: u64,
    events: u64,
    spin_cpu_ns: u64,
    syscall_cpu_ns: u64,
    handle_cpu_ns: u64,
    stopped_at_ns: Option<u64>,
    latency: Latencies,
    generation: u32,
    doing: Option<Doing>,
    /// Suspended: how long after the resume it looks again.
    paused: Option<u64>,
}

impl Loop {
    /// The process stops at `now_ns`: polling calls not yet made are taken back, and the loop
    /// looks again after the resume (after finishing its handling, if it was handling).
    fn suspend(&mut self, now_ns: u64) {
        let Some(doing) = self.doing.take() else {
            return;
        };
        if self.stopped_at_ns.is_some() {
            return;
        }
        self.generation = self.generation.wrapping_add(1);
        self.paused = Some(match doing {
            Doing::Polling {
                start_ns,
                call_ns,
                cpu_ns,
                calls,
            } => {
                let made = ((now_ns - start_ns) / call_ns).min(calls);
                let undone_cpu_ns = (calls - made) * cpu_ns;
                self.calls -= calls - made;
                match self.strategy {
                    Strategy::Spin => self.spin_cpu_ns -= undone_cpu_ns,
                    _ => self.syscall_cpu_ns -= undone_cpu_ns,
                }
                0
            }
            Doing::Blocking => 0,
            Doing::Handling { until_ns } => until_ns.saturating_sub(now_ns),
        });
    }
}

fn check_work(
    scenario: &Setting,
    config: &IdleConfig,
    options: &RunOptions,
) -> Result<u128, RunError> {
    let events = config
        .arrival
        .map_or(0, |arrival| arrivals_bound(arrival, scenario.run_for_ns));
    let mut bound = 0u128;
    for strategy in &config.strategies {
        // A look per event, one more to handle it, and a blocking call per timeout.
        let timeouts = match *strategy {
            Strategy::Condvar { timeout_ns } | Strategy::Epoll { timeout_ns } => {
                u128::from(scenario.run_for_ns / timeout_ns + 1)
            }
            Strategy::Sleep { duration_ns } => u128::from(scenario.run_for_ns / duration_ns + 1),
            Strategy::Spin | Strategy::Yield | Strategy::SleepZero => 1,
        };
        let timeouts = match config.max_calls {
            Some(calls) => timeouts.min(u128::from(calls)),
            None => timeouts,
        };
        bound += 2 * events + timeouts + 2;
    }
    let strategies = config.strategies.len() as u128;
    bound += retiming_edges(scenario) * strategies;
    // The loops' CPU is their own business; what the machine adds is its outside load.
    let machine_steps = bound::cpu_steps(
        &scenario.machine,
        &scenario.faults,
        scenario.run_for_ns,
        ModelCpu::default(),
    );
    bound::check_bound(
        bound,
        machine_steps,
        options.max_events,
        format!("{events} events for {strategies} loops"),
        "lengthen `every`, lower `burst`, or lengthen `timeout`",
    )
}

pub(crate) fn run(
    scenario: &Setting,
    config: &IdleConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let events = config
        .arrival
        .map_or(0, |arrival| arrivals_bound(arrival, scenario.run_for_ns));
    let plan = Plan {
        steps: check_work(scenario, config, options)?,
        peak: Footprint::new().with(EVENTS, events, BYTES_PER_EVENT),
        design: "idle loop".to_string(),
        fewer_by: "lengthen `every` or lower `burst`",
    };
    let mut started =
        begin::<crate::idle::IdleModel>(scenario, config, seed, options, plan, Vec::new(), sink)?;
    let mut machine = Machine::new(world_config(scenario), &scenario.machine, seed);
    let run = IdleRun::new(scenario, config, seed, &mut machine, sink);
    drive(machine, run, &mut started.watchdog)
}

/// Every event's arrival time is drawn before the run, so that all loops see the same ones.
const EVENTS: &str = "event arrivals";
const BYTES_PER_EVENT: u64 = grown::<u64>();

/// Every strategy's loop, all seeing the same events.
struct IdleRun<'a> {
    config: &'a IdleConfig,
    loops: Vec<Loop>,
    arrivals: Vec<u64>,
    /// When the process could not run, for the loops' time per call.
    stops: Vec<(u64, u64)>,
    stopped_since_ns: Option<u64>,
    costs: SimRng,
    profile: Costs,
    sink: &'a mut dyn TraceSink,
}

impl<'a> IdleRun<'a> {
    fn new(
        scenario: &Setting,
        config: &'a IdleConfig,
        seed: u64,
        world: &mut Machine<Wake>,
        sink: &'a mut dyn TraceSink,
    ) -> Self {
        let arrivals = config.arrival.map_or_else(Vec::new, |arrival| {
            arrivals(arrival, scenario.run_for_ns, seed)
        });
        let loops: Vec<Loop> = config
            .strategies
            .iter()
            .enumerate()
            .map(|(index, &strategy)| {
                world.wake_at_physical(
                    0,
                    Wake::Look {
                        index: index as u32,
                        generation: 0,
                    },
                );
                Loop {
                    strategy,
                    next_event: 0,
                    calls: 0,
                    calls_at_last_wake: 0,
                    events: 0,
                    spin_cpu_ns: 0,
                    syscall_cpu_ns: 0,
                    handle_cpu_ns: 0,
                    stopped_at_ns: None,
                    latency: Latencies::new(),
                    generation: 0,
                    doing: None,
                    paused: None,
                }
            })
            .collect();
        IdleRun {
            config,
            loops,
            arrivals,
            stops: Vec::new(),
            stopped_since_ns: None,
            costs: SimRng::for_purpose(seed, "idle-costs"),
            profile: effective_costs(config),
            sink,
        }
    }
}

impl Binding for IdleRun<'_> {
    type Wake = Wake;

    fn on_wake(&mut self, wake: Wake, world: &mut Machine<Wake>) -> Result<(), RunError> {
        let Wake::Look { index, generation } = wake;
        let now_ns = world.now_ns();
        let end_ns = world.end_ns();
        let state = &mut self.loops[index as usize];
        if generation != state.generation {
            return Ok(());
        }
        let (next, wake) = look(
            state,
            self.config,
            &self.profile,
            &self.arrivals,
            now_ns,
            end_ns,
            &mut self.costs,
        );
        if let Some(at_ns) = next {
            world.wake_at_physical(at_ns, Wake::Look { index, generation });
        }
        if let (Some(wake), true) = (wake, self.sink.wants_events()) {
            self.sink.record(&Event::Model(&wake))?;
        }
        Ok(())
    }

    fn on_fault(
        &mut self,
        _: &FaultEdge,
        effect: &EdgeEffect,
        world: &mut Machine<Wake>,
    ) -> Result<(), RunError> {
        let now_ns = world.now_ns();
        if effect.stopped {
            self.stopped_since_ns = Some(now_ns);
            self.loops
                .iter_mut()
                .for_each(|state| state.suspend(now_ns));
        }
        if let Some(stopped_ns) = effect.resumed_after_ns {
            self.stopped_since_ns = None;
            self.stops.push((now_ns - stopped_ns, now_ns));
            for (index, state) in self.loops.iter_mut().enumerate() {
                if let Some(after_ns) = state.paused.take() {
                    let wake = Wake::Look {
                        index: index as u32,
                        generation: state.generation,
                    };
                    world.wake_at_physical(now_ns + after_ns, wake);
                }
            }
        }
        Ok(())
    }

    fn footprint(&self) -> Footprint {
        Footprint::new().with(EVENTS, self.arrivals.len() as u128, BYTES_PER_EVENT)
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        self.sink
    }

    fn finish(
        &mut self,
        world: &mut Machine<Wake>,
        _: &MachineReport,
    ) -> Result<Summary, RunError> {
        let end_ns = world.end_ns();
        if let Some(since_ns) = self.stopped_since_ns {
            self.stops.push((since_ns, end_ns));
        }
        let broken = check_cpu(&self.loops, &self.stops, end_ns);
        for (count, what) in broken.iter().enumerate() {
            crate::invariant::report(self.sink, end_ns, count as u64 + 1, what.clone())?;
        }
        Ok(summarise(
            &self.loops,
            self.arrivals.len() as u64,
            &self.stops,
            end_ns,
            broken.len() as u64,
        ))
    }
}

/// The loop looks for events at `now_ns`: it handles what has arrived, or idles. Returns when it
/// looks next, if before the end and it has calls left, and what it noticed.
fn look(
    state: &mut Loop,
    config: &IdleConfig,
    profile: &Costs,
    arrivals: &[u64],
    now_ns: u64,
    end_ns: u64,
    costs: &mut SimRng,
) -> (Option<u64>, Option<IdleWakeEvent>) {
    if state.stopped_at_ns.is_some() {
        return (None, None);
    }
    let first = state.next_event;
    let noticed = handle_arrived(state, config, arrivals, now_ns, end_ns);
    if noticed > 0 {
        let wake = IdleWakeEvent {
            t_ns: now_ns,
            strategy: state.strategy.name(),
            events: noticed,
            latency_ns: now_ns - arrivals[first],
            idle_calls: state.calls - state.calls_at_last_wake,
        };
        state.calls_at_last_wake = state.calls;
        let until_ns = now_ns.saturating_add(noticed.saturating_mul(config.handle_ns));
        state.doing = Some(Doing::Handling { until_ns });
        let next = Some(until_ns).filter(|&at_ns| at_ns < end_ns);
        return (next, Some(wake));
    }
    (
        idle(state, config, profile, arrivals, now_ns, end_ns, costs),
        None,
    )
}

/// Records the events that have arrived by `now_ns` as noticed; returns how many.
fn handle_arrived(
    state: &mut Loop,
    config: &IdleConfig,
    arrivals: &[u64],
    now_ns: u64,
    end_ns: u64,
) -> u64 {
    let first = state.next_event;
    while state.next_event < arrivals.len() && arrivals[state.next_event] <= now_ns {
        state.latency.record(now_ns - arrivals[state.next_event]);
        state.next_event += 1;
    }
    let handled = (state.next_event - first) as u64;
    state.events += handled;
    // Handling that would run past the end of the run is charged up to the end only.
    let handle_ns = handled.saturating_mul(config.handle_ns);
    state.handle_cpu_ns += handle_ns.min(end_ns.saturating_sub(now_ns));
    handled
}

/// The loop found nothing: it idles until it next looks, which it returns if before the end.
fn idle(
    state: &mut Loop,
    config: &IdleConfig,
    profile: &Costs,
    arrivals: &[u64],
    now_ns: u64,
    end_ns: u64,
    costs: &mut SimRng,
) -> Option<u64> {
    let calls_left = match config.max_calls {
        Some(max) if state.calls >= max => {
            state.stopped_at_ns = Some(now_ns);
            return None;
        }
        Some(max) => max - state.calls,
        None => u64::MAX,
    };
    let next_event_ns = arrivals.get(state.next_event).copied();
    let (idle, doing) = idle_call(
        state.strategy,
        profile,
        now_ns,
        next_event_ns,
        end_ns,
        calls_left,
        costs,
    );
    state.calls += idle.calls;
    match state.strategy {
        Strategy::Spin => state.spin_cpu_ns += idle.cpu_ns,
        _ => state.syscall_cpu_ns += idle.cpu_ns,
    }
    state.doing = Some(doing);
    // A batch cut short by the end of the run leaves no whole call to make before it. A loop
    // that made its last call stops when it next looks.
    Some(idle.until_ns).filter(|&at_ns| at_ns > now_ns && at_ns < end_ns)
}

/// What the strategy does from `now_ns` until it next looks, cut at the run's end.
fn idle_call(
    strategy: Strategy,
    profile: &Costs,
    now_ns: u64,
    next_event_ns: Option<u64>,
    end_ns: u64,
    calls_left: u64,
    costs: &mut SimRng,
) -> (Idle, Doing) {
    if strategy.polls() {
        return poll_call(strategy, profile, now_ns, next_event_ns, end_ns, calls_left);
    }
    block_call(strategy, profile, now_ns, next_event_ns, costs)
}

/// A polling strategy's calls until the next event, each at the profile's mean cost.
fn poll_call(
    strategy: Strategy,
    profile: &Costs,
    now_ns: u64,
    next_event_ns: Option<u64>,
    end_ns: u64,
    calls_left: u64,
) -> (Idle, Doing) {
    let round = |ns: f64| ns.round().max(1.0) as u64;
    let (call_ns, cpu_ns) = match strategy {
        Strategy::Spin => (round(profile.spin_iteration.mean_ns()), 0),
        Strategy::Yield => {
            let call_ns = round(profile.sched_yield.mean_ns());
            (call_ns, call_ns)
        }
        _ => (
            round(profile.nanosleep_zero.mean_ns()),
            round(profile.nanosleep_zero_cpu.mean_ns()),
        ),
    };
    // A spin's whole call is CPU; `poll_until` caps the CPU at the call's length.
    let cpu_ns = if strategy == Strategy::Spin {
        call_ns
    } else {
        cpu_ns
    };
    let deadline_ns = next_event_ns.unwrap_or(end_ns).min(end_ns);
    let mut idle = poll_until(now_ns, deadline_ns, call_ns, cpu_ns, calls_left);
    if idle.until_ns > end_ns {
        // Only the calls that finish within the run count.
        let calls = (end_ns - now_ns) / call_ns;
        idle = Idle {
            until_ns: now_ns + calls * call_ns,
            calls,
            cpu_ns: calls * cpu_ns.min(call_ns),
        };
    }
    let doing = Doing::Polling {
        start_ns: now_ns,
        call_ns,
        cpu_ns: cpu_ns.min(call_ns),
        calls: idle.calls,
    };
    (idle, doing)
}

/// A blocking strategy's one wait, ended by its timeout or a wake, with sampled costs.
fn block_call(
    strategy: Strategy,
    profile: &Costs,
    now_ns: u64,
    next_event_ns: Option<u64>,
    costs: &mut SimRng,
) -> (Idle, Doing) {
    // The condvar and epoll waits are woken by an event, after a futex wake's latency; their own
    // CPU is a system call's round trip, as a lone sched_yield costs. A fixed sleep overshoots
    // by at least nanosleep(0)'s wall time (the slack and the call around it), at its CPU cost.
    let (timeout_ns, overshoot, cpu, wake) = match strategy {
        Strategy::Condvar { timeout_ns } => (
            timeout_ns,
            &profile.condvar_timeout_overshoot,
            &profile.sched_yield,
            Some(&profile.condvar_signal_to_wake),
        ),
        Strategy::Epoll { timeout_ns } => (
            timeout_ns,
            &profile.epoll_timeout_overshoot,
            &profile.sched_yield,
            Some(&profile.condvar_signal_to_wake),
        ),
        Strategy::Sleep { duration_ns } => (
            duration_ns,
            &profile.nanosleep_zero,
            &profile.nanosleep_zero_cpu,
            None,
        ),
        Strategy::Spin | Strategy::Yield | Strategy::SleepZero => {
            unreachable!("polling strategies return above")
        }
    };
    let cpu_ns = cpu.sample(costs);
    let wake_ns = wake.map_or(0, |latency| latency.sample(costs));
    let idle = block(
        now_ns,
        next_event_ns,
        timeout_ns,
        wake.is_some(),
        wake_ns,
        overshoot.sample(costs),
        cpu_ns,
    );
    (idle, Doing::Blocking)
}

/// The profile's costs, with the scenario's timer slack in place of the profile's: the slack is
/// part of every sleep's and timed wait's overshoot, as `PR_SET_TIMERSLACK` changes it.
fn effective_costs(config: &IdleConfig) -> Costs {
    let mut costs = config.profile.costs;
    if let Some(slack_ns) = config.timer_slack_ns {
        let delta_ns = slack_ns as i64 - costs.timer_slack_ns as i64;
        costs.nanosleep_zero = costs.nanosleep_zero.shifted(delta_ns);
        costs.condvar_timeout_overshoot = costs.condvar_timeout_overshoot.shifted(delta_ns);
        costs.epoll_timeout_overshoot = costs.epoll_timeout_overshoot.shifted(delta_ns);
        costs.timer_slack_ns = slack_ns;
    }
    costs
}

/// How long the process was stopped before `until_ns`.
fn stopped_within(stops: &[(u64, u64)], until_ns: u64) -> u64 {
    stops
        .iter()
        .map(|&(from_ns, to_ns)| to_ns.min(until_ns).saturating_sub(from_ns))
        .sum()
}

/// The idle model's invariant: a loop never uses more CPU than the time it could run. Returns
/// what each loop that broke it did.
fn check_cpu(loops: &[Loop], stops: &[(u64, u64)], end_ns: u64) -> Vec<String> {
    loops
        .iter()
        .filter_map(|state| {
            let total_ns = state.stopped_at_ns.unwrap_or(end_ns);
            let runnable_ns = total_ns.saturating_sub(stopped_within(stops, total_ns));
            let cpu_ns = state.spin_cpu_ns + state.syscall_cpu_ns + state.handle_cpu_ns;
            (cpu_ns > runnable_ns).then(|| {
                format!(
                    "the {} loop used {} of CPU in {} it could run",
                    state.strategy.name(),
                    ticklab_sim::Approx(cpu_ns),
                    ticklab_sim::Approx(runnable_ns)
                )
            })
        })
        .collect()
}

fn summarise(
    loops: &[Loop],
    events: u64,
    stops: &[(u64, u64)],
    end_ns: u64,
    violations: u64,
) -> Summary {
    let mut summary = Summary::new("idle", end_ns, METRICS, &[events, violations], Vec::new());
    let mut threads = Vec::with_capacity(loops.len());
    for state in loops {
        let total_ns = state.stopped_at_ns.unwrap_or(end_ns);
        let cpu_ns = state.spin_cpu_ns + state.syscall_cpu_ns + state.handle_cpu_ns;
        let idle_ns =
            total_ns.saturating_sub(state.handle_cpu_ns + stopped_within(stops, total_ns));
        let values = [
            state.calls,
            total_ns,
            idle_ns.checked_div(state.calls).unwrap_or(0),
            crate::cpu_report::percent(cpu_ns, total_ns),
            state.events,
            state.latency.quantile(0.5),
            state.latency.quantile(0.99),
            state.latency.max_ns(),
        ];
        let name = state.strategy.name();
        summary
            .groups
            .push(Section::new("strategy", name, STRATEGY_METRICS, &values));
        threads.push((
            format!("loop-{name}"),
            CoreTime {
                running_ns: cpu_ns,
                waiting_ns: 0,
                spinning_ns: state.spin_cpu_ns,
                syscall_ns: state.syscall_cpu_ns,
            },
        ));
    }
    // Each loop has a core of its own.
    let cores: Vec<u64> = threads.iter().map(|(_, time)| time.running_ns).collect();
    summary.parts = crate::cpu_report::sections(&threads, &cores, end_ns);
    summary
}
