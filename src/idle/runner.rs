//! Runs one event loop per strategy in the world, each on its own core, all seeing the same
//! events.
//!
//! A polling strategy's calls between two events are charged in one step: the number of whole
//! calls (at the profile's mean cost) that fit before the loop first looks after the event. A
//! blocking strategy makes one call at a time, its wake-up and overshoot drawn from the profile.

use hdrhistogram::Histogram;
use ticklab_models::idle::{Idle, Strategy, block, poll_until};
use ticklab_sim::{ClockId, CoreTime, Deadline, SimRng, Step as WorldStep, World};

use super::arrivals::{arrivals, arrivals_bound};
use super::spec::IdleConfig;
use super::{METRICS, STRATEGY_METRICS};
use crate::profile::Costs;
use crate::run::{RunError, RunOptions, record_fault, retiming_edges, start_event, world_config};
use crate::scenario::Scenario;
use crate::trace::{Event, IdleWakeEvent, Section, Summary, TraceSink};

#[derive(Clone, Copy, Debug)]
enum Wake {
    /// The loop of strategy `index` looks for events.
    Look { index: u32 },
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
    latency: Histogram<u64>,
    max_latency_ns: u64,
}

fn check_work(
    scenario: &Scenario,
    config: &IdleConfig,
    options: &RunOptions,
) -> Result<(), RunError> {
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
    if bound > u128::from(options.max_events) {
        return Err(RunError::TooMuchWork {
            events_bound: bound,
            max_events: options.max_events,
            why: format!("{events} events for {strategies} loops"),
            fewer_by: "lengthen `every`, lower `burst`, or lengthen `timeout`",
        });
    }
    Ok(())
}

pub(crate) fn run<S: TraceSink>(
    scenario: &Scenario,
    config: &IdleConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut S,
) -> Result<Summary, RunError> {
    check_work(scenario, config, options)?;
    sink.record(&Event::Start(&start_event(scenario, seed)))?;
    let mut world = World::new(world_config(scenario));
    let arrivals = config.arrival.map_or_else(Vec::new, |arrival| {
        arrivals(arrival, scenario.run_for_ns, seed)
    });
    let mut loops: Vec<Loop> = config
        .strategies
        .iter()
        .enumerate()
        .map(|(index, &strategy)| {
            world.wake_at(
                physical(0),
                Wake::Look {
                    index: index as u32,
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
                latency: Histogram::new(3).expect("three significant digits is valid"),
                max_latency_ns: 0,
            }
        })
        .collect();
    let mut costs = SimRng::for_purpose(seed, "idle-costs");
    let profile = &config.profile.costs;
    loop {
        match world.next_step() {
            WorldStep::Wake {
                payload: Wake::Look { index },
                ..
            } => {
                let now_ns = world.now_ns();
                let end_ns = world.end_ns();
                let state = &mut loops[index as usize];
                let (next, wake) = look(
                    state, config, profile, &arrivals, now_ns, end_ns, &mut costs,
                );
                if let Some(at_ns) = next {
                    world.wake_at(physical(at_ns), Wake::Look { index });
                }
                if let (Some(wake), true) = (wake, sink.wants_events()) {
                    sink.record(&Event::IdleWake(wake))?;
                }
            }
            WorldStep::Fault { edge, effect } => record_fault(&world, &edge, &effect, sink)?,
            WorldStep::End => break,
        }
    }
    let summary = summarise(&loops, arrivals.len() as u64, world.end_ns());
    sink.record(&Event::Summary(&summary))?;
    sink.finish()?;
    Ok(summary)
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
    let noticed = handle_arrived(state, config, arrivals, now_ns);
    if noticed > 0 {
        let wake = IdleWakeEvent {
            t_ns: now_ns,
            strategy: state.strategy.name(),
            events: noticed,
            latency_ns: now_ns - arrivals[first],
            idle_calls: state.calls - state.calls_at_last_wake,
        };
        state.calls_at_last_wake = state.calls;
        let next = Some(now_ns + noticed * config.handle_ns).filter(|&at_ns| at_ns < end_ns);
        return (next, Some(wake));
    }
    (
        idle(state, config, profile, arrivals, now_ns, end_ns, costs),
        None,
    )
}

/// Records the events that have arrived by `now_ns` as noticed; returns how many.
fn handle_arrived(state: &mut Loop, config: &IdleConfig, arrivals: &[u64], now_ns: u64) -> u64 {
    let first = state.next_event;
    while state.next_event < arrivals.len() && arrivals[state.next_event] <= now_ns {
        let latency_ns = now_ns - arrivals[state.next_event];
        state
            .latency
            .record(latency_ns)
            .expect("an auto-resizing histogram takes any u64");
        state.max_latency_ns = state.max_latency_ns.max(latency_ns);
        state.next_event += 1;
    }
    let handled = (state.next_event - first) as u64;
    state.events += handled;
    state.handle_cpu_ns += handled * config.handle_ns;
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
    let (idle, syscall) = idle_call(
        state.strategy,
        profile,
        now_ns,
        next_event_ns,
        end_ns,
        calls_left,
        costs,
    );
    state.calls += idle.calls;
    match (state.strategy, syscall) {
        (Strategy::Spin, _) => state.spin_cpu_ns += idle.cpu_ns,
        _ => state.syscall_cpu_ns += idle.cpu_ns,
    }
    if config.max_calls.is_some_and(|max| state.calls >= max) && idle.until_ns <= end_ns {
        state.stopped_at_ns = Some(idle.until_ns);
        return None;
    }
    // A batch cut short by the end of the run leaves no whole call to make before it.
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
) -> (Idle, bool) {
    let round = |ns: f64| ns.round().max(1.0) as u64;
    if strategy.polls() {
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
        return (idle, strategy != Strategy::Spin);
    }
    // A blocking call's own CPU is a system call's round trip, as a lone sched_yield costs.
    let cpu_ns = profile.sched_yield.sample(costs);
    let idle = match strategy {
        Strategy::Condvar { timeout_ns } => block(
            now_ns,
            next_event_ns,
            timeout_ns,
            true,
            profile.condvar_signal_to_wake.sample(costs),
            profile.condvar_timeout_overshoot.sample(costs),
            cpu_ns,
        ),
        Strategy::Epoll { timeout_ns } => block(
            now_ns,
            next_event_ns,
            timeout_ns,
            true,
            profile.condvar_signal_to_wake.sample(costs),
            profile.epoll_timeout_overshoot.sample(costs),
            cpu_ns,
        ),
        // nanosleep(0)'s wall time is the least any sleep overshoots by: the slack and the
        // system call around it.
        Strategy::Sleep { duration_ns } => block(
            now_ns,
            next_event_ns,
            duration_ns,
            false,
            0,
            profile.nanosleep_zero.sample(costs),
            profile.nanosleep_zero_cpu.sample(costs),
        ),
        Strategy::Spin | Strategy::Yield | Strategy::SleepZero => {
            unreachable!("polling strategies return above")
        }
    };
    (idle, true)
}

fn summarise(loops: &[Loop], events: u64, end_ns: u64) -> Summary {
    let mut summary = Summary::new("idle", end_ns, METRICS, &[events], Vec::new());
    let mut threads = Vec::with_capacity(loops.len());
    for state in loops {
        let total_ns = state.stopped_at_ns.unwrap_or(end_ns);
        let cpu_ns = state.spin_cpu_ns + state.syscall_cpu_ns + state.handle_cpu_ns;
        let idle_ns = total_ns.saturating_sub(state.handle_cpu_ns);
        let quantile = |q: f64| {
            if state.latency.is_empty() {
                0
            } else {
                state.latency.value_at_quantile(q).min(state.max_latency_ns)
            }
        };
        let values = [
            state.calls,
            total_ns,
            idle_ns.checked_div(state.calls).unwrap_or(0),
            crate::cpu_report::percent(cpu_ns, total_ns),
            state.events,
            quantile(0.5),
            quantile(0.99),
            state.max_latency_ns,
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

/// A moment in physical time, as a deadline: boottime reads physical time since the start.
fn physical(at_ns: u64) -> Deadline {
    Deadline {
        clock: ClockId::Boottime,
        at_ns: at_ns as i64,
    }
}
