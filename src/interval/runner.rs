//! Binds [`IntervalCore`]s into the world: one runtime thread, a timer driver of finite
//! resolution, and the scenario's faults.

use ticklab_models::interval::IntervalCore;
use ticklab_sim::{SimRng, Step, World};

use super::stats::IntervalStats;
use super::{IntervalConfig, Period, Phase};
use crate::run::{
    RunError, RunOptions, clock_advance_bound_ns, record_fault, start_event, world_config,
};
use crate::scenario::Scenario;
use crate::trace::{Event, Summary, TickEvent, TraceSink, Wall};

/// One interval's drawn parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalPlan {
    pub period_ns: u64,
    /// When the interval is created; its first deadline follows from its behaviour.
    pub created_ns: u64,
}

/// Draws every interval's period and phase from the seed, each from its own stream.
pub fn plan_intervals(config: &IntervalConfig, seed: u64) -> Vec<IntervalPlan> {
    let mut periods = SimRng::for_purpose(seed, "interval-periods");
    let mut phases = SimRng::for_purpose(seed, "interval-phases");
    let resolution_ns = config.timer_resolution_ns;
    (0..config.count)
        .map(|_| {
            let period_ns = match config.period {
                Period::Fixed { period_ns } => period_ns,
                Period::DrawnMs { low_ms, high_ms } => {
                    periods.in_range(low_ms, high_ms) * ticklab_sim::NS_PER_MS
                }
            };
            let created_ns = match config.phase {
                Phase::Fixed { offset_ns } => offset_ns,
                // Phases land on the driver's grid: finer offsets could not be observed anyway.
                Phase::Random => match period_ns / resolution_ns {
                    0 | 1 => 0,
                    steps => phases.in_range(0, steps - 1) * resolution_ns,
                },
            };
            IntervalPlan {
                period_ns,
                created_ns,
            }
        })
        .collect()
}

/// Rounds a deadline up to the driver's grid, as tokio's wheel rounds up to the next millisecond.
#[inline]
fn driver_deadline_ns(deadline_ns: i64, resolution_ns: i64) -> i64 {
    match deadline_ns.rem_euclid(resolution_ns) {
        0 => deadline_ns,
        rest => deadline_ns.saturating_add(resolution_ns - rest),
    }
}

fn check_work(
    scenario: &Scenario,
    plans: &[IntervalPlan],
    options: &RunOptions,
) -> Result<(), RunError> {
    let advance_ns = clock_advance_bound_ns(scenario, scenario.instant_clock);
    // Every design moves each deadline at least one period past the last, so an interval ticks
    // at most once per period of clock advance, plus its first tick.
    let bound: u128 = plans
        .iter()
        .map(|plan| advance_ns / u128::from(plan.period_ns) + 1)
        .sum();
    if bound > u128::from(options.max_events) {
        let shortest = plans.iter().map(|plan| plan.period_ns).min().unwrap_or(1);
        return Err(RunError::TooMuchWork {
            events_bound: bound,
            max_events: options.max_events,
            why: format!(
                "{} interval(s), the shortest period {}, over {} of Instant time",
                plans.len(),
                ticklab_sim::Compact(shortest as i64),
                ticklab_sim::Compact(advance_ns.min(i64::MAX as u128) as i64)
            ),
        });
    }
    Ok(())
}

pub(crate) fn run<S: TraceSink>(
    scenario: &Scenario,
    config: &IntervalConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut S,
) -> Result<Summary, RunError> {
    let plans = plan_intervals(config, seed);
    check_work(scenario, &plans, options)?;
    let mut world: World<u32> = World::new(world_config(scenario));
    let runtime = world.add_thread("runtime");
    let resolution_ns = config.timer_resolution_ns as i64;
    let mut cores: Vec<IntervalCore> = plans
        .iter()
        .map(|plan| {
            IntervalCore::created_at(
                config.missed_tick,
                plan.created_ns as i64,
                plan.period_ns as i64,
            )
        })
        .collect();
    for (index, core) in cores.iter().enumerate() {
        let deadline =
            world.instant_deadline(driver_deadline_ns(core.deadline_ns(), resolution_ns));
        world.wake_at(deadline, index as u32);
    }
    let wants_events = sink.wants_events();
    let mut tick_counts = vec![0u64; if wants_events { cores.len() } else { 0 }];
    let mut stats = IntervalStats::new(cores.len());
    sink.record(&Event::Start(&start_event(scenario, seed)))?;
    loop {
        match world.next_step() {
            Step::Wake { payload, deadline } => {
                let index = payload as usize;
                if config.tick_cost_ns > 0 {
                    // A current-thread runtime handles one tick at a time: due ticks wait.
                    let busy_until_ns = world.thread(runtime).busy_until_ns();
                    if busy_until_ns > world.now_ns() {
                        world.wake_no_earlier_than(busy_until_ns, deadline, payload);
                        continue;
                    }
                }
                let instant_ns = world.instant_ns();
                let core = &mut cores[index];
                let Some(tick) = core.tick(instant_ns) else {
                    // The clock moved back (a wall Instant stepped) since the wake was filed.
                    let again = world
                        .instant_deadline(driver_deadline_ns(core.deadline_ns(), resolution_ns));
                    world.wake_at(again, payload);
                    continue;
                };
                let now_ns = world.now_ns();
                let wall_ns = world.wall_ns();
                stats.on_tick(index, now_ns, wall_ns, instant_ns - tick.deadline_ns);
                if wants_events {
                    tick_counts[index] += 1;
                    sink.record(&Event::Tick(TickEvent {
                        t_ns: now_ns,
                        interval: payload,
                        seq: tick_counts[index],
                        instant_ns,
                        deadline_ns: tick.deadline_ns,
                        wall: Wall(wall_ns),
                    }))?;
                }
                if config.tick_cost_ns > 0 {
                    world.run_on(runtime, config.tick_cost_ns);
                }
                let next = world
                    .instant_deadline(driver_deadline_ns(tick.next_deadline_ns, resolution_ns));
                world.wake_at(next, payload);
            }
            Step::Fault { edge, effect } => {
                stats.on_fault(world.now_ns(), &effect);
                record_fault(&world, &edge, &effect, sink)?;
            }
            Step::End => break,
        }
    }
    let threads = world.finish_threads();
    let summary = stats.into_summary(world.end_ns(), threads);
    sink.record(&Event::Summary(&summary))?;
    sink.finish()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_round_up_to_the_driver_grid() {
        const MS: i64 = 1_000_000;
        assert_eq!(driver_deadline_ns(5 * MS, MS), 5 * MS);
        assert_eq!(driver_deadline_ns(5 * MS + 1, MS), 6 * MS);
        assert_eq!(driver_deadline_ns(-MS - 1, MS), -MS);
    }
}
