//! Binds [`IntervalCore`]s into the world: one runtime thread, a timer driver of finite
//! resolution, and the scenario's faults.

use std::collections::VecDeque;

use ticklab_models::interval::IntervalCore;
use ticklab_sim::{CpuKind, EdgeEffect, FaultEdge, SimRng, ThreadId};

use super::TickEvent;
use super::invariants::IntervalInvariants;
use super::stats::IntervalStats;
use super::{IntervalConfig, Period, Phase};
use crate::machine::bound::{self, ModelCpu};
use crate::machine::{Binding, Machine, MachineReport, drive};
use crate::memory::{Footprint, grown};
use crate::runner::error::RunError;
use crate::runner::faults::{clock_advance_bound_ns, retiming_edges};
use crate::runner::options::RunOptions;
use crate::runner::start::{Plan, begin, world_config};
use crate::scenario::setting::Setting;
use crate::trace::{Event, Summary, TraceSink, Wall};

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
    let resolution_ns = config.driver_resolution_ns;
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
    // Deadlines are rarely negative, and unsigned division skips the signed one's overflow check
    // and sign fix: this runs on every tick.
    const MS: u64 = 1_000_000;
    let rest_ns = match u64::try_from(deadline_ns) {
        // The default millisecond: a remainder by a constant is a multiply, not a division.
        Ok(deadline_ns) if resolution_ns as u64 == MS => (deadline_ns % MS) as i64,
        Ok(deadline_ns) => (deadline_ns % resolution_ns as u64) as i64,
        Err(_) => deadline_ns.rem_euclid(resolution_ns),
    };
    match rest_ns {
        0 => deadline_ns,
        rest => deadline_ns.saturating_add(resolution_ns - rest),
    }
}

/// The events the run may take, or why it is refused.
fn check_work(
    scenario: &Setting,
    plans: &[IntervalPlan],
    tick_cost_ns: u64,
    options: &RunOptions,
) -> Result<u128, RunError> {
    let advance_ns = clock_advance_bound_ns(scenario, scenario.instant_clock);
    // Every design moves each deadline at least one period past the last, so an interval ticks
    // at most once per period of clock advance, plus its first tick.
    let ticks: u128 = plans
        .iter()
        .map(|plan| advance_ns / u128::from(plan.period_ns) + 1)
        .sum();
    // One wake per interval, and the runtime's own, may be pending when a fault re-times them.
    let retimed = retiming_edges(scenario) * (plans.len() as u128 + 1);
    // Each tick's CPU, if it costs any, is a piece of work on the runtime's one thread.
    let tick_pieces = if tick_cost_ns == 0 { 0 } else { ticks };
    let model =
        ModelCpu::uniform(tick_pieces, tick_cost_ns, 1, scenario.machine.time_slice_ns).counted();
    let machine_steps = bound::cpu_steps(
        &scenario.machine,
        &scenario.faults,
        scenario.run_for_ns,
        model,
    );
    let shortest = plans.iter().map(|plan| plan.period_ns).min().unwrap_or(1);
    let why = format!(
        "up to {ticks} ticks of {} interval(s), the shortest period {}, over {} of Instant time, \
         and {retimed} wakes re-timed after clock changes",
        plans.len(),
        ticklab_sim::Compact(shortest as i64),
        ticklab_sim::Compact(advance_ns.min(i64::MAX as u128) as i64)
    );
    bound::check_bound(
        ticks + retimed,
        machine_steps,
        options.max_events,
        why,
        "lengthen the period or lower `count`",
    )
}

pub(crate) fn run(
    scenario: &Setting,
    config: &IntervalConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let plans = plan_intervals(config, seed);
    let plan = Plan {
        steps: check_work(scenario, &plans, config.tick_cost_ns, options)?,
        peak: intervals_footprint(plans.len()),
        design: format!("{} interval", config.missed_tick.name()),
        fewer_by: "lower `count`",
    };
    let mut started = begin::<crate::interval::IntervalModel>(
        scenario,
        config,
        seed,
        options,
        plan,
        Vec::new(),
        sink,
    )?;
    let mut machine = Machine::new(world_config(scenario), &scenario.machine, seed);
    let run = IntervalRun::new(scenario, config, &plans, &mut machine, sink);
    drive(machine, run, &mut started.watchdog)
}

/// What `count` intervals hold: each its core, its plan, its place in the ready queue and its
/// tick count, and a wake.
fn intervals_footprint(count: usize) -> Footprint {
    let bytes_each =
        grown::<IntervalCore>() + grown::<IntervalPlan>() + grown::<u32>() + grown::<u64>();
    Footprint::new()
        .with("intervals", count as u128, bytes_each)
        .with(
            crate::runner::memory_check::WAKES,
            count as u128 + 1,
            Machine::<u32>::BYTES_PER_WAKE,
        )
}

/// One interval run in progress: the intervals on a single runtime thread, like tokio's
/// current-thread runtime.
struct IntervalRun<'a> {
    cores: Vec<IntervalCore>,
    runtime: ThreadId,
    tick_cost_ns: u64,
    resolution_ns: i64,
    /// Intervals that came due while the runtime was busy, in the order they did.
    ready: VecDeque<u32>,
    stats: IntervalStats,
    invariants: IntervalInvariants,
    /// Ticks so far per interval, for the trace's sequence numbers (empty without a trace).
    tick_counts: Vec<u64>,
    sink: &'a mut dyn TraceSink,
}

impl Binding for IntervalRun<'_> {
    type Wake = u32;

    #[inline]
    fn on_wake(&mut self, index: u32, machine: &mut Machine<u32>) -> Result<(), RunError> {
        self.on_due(index, machine)
    }

    fn on_cpu_done(&mut self, _: ThreadId, machine: &mut Machine<u32>) -> Result<(), RunError> {
        self.run_ready(machine)
    }

    fn on_fault(
        &mut self,
        _: &FaultEdge,
        effect: &EdgeEffect,
        machine: &mut Machine<u32>,
    ) -> Result<(), RunError> {
        self.stats.on_fault(machine.now_ns(), effect);
        Ok(())
    }

    fn footprint(&self) -> Footprint {
        intervals_footprint(self.cores.len()).with(
            "ticks ready",
            self.ready.len() as u128,
            grown::<u32>(),
        )
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        self.sink
    }

    fn finish(
        &mut self,
        machine: &mut Machine<u32>,
        report: &MachineReport,
    ) -> Result<Summary, RunError> {
        let now_ns = machine.end_ns();
        for (index, core) in self.cores.iter().enumerate() {
            if let Some(broken) = self.invariants.on_end(index, core.deadline_ns()) {
                crate::invariant::report(self.sink, now_ns, self.invariants.violations, broken)?;
            }
        }
        let stats = std::mem::replace(&mut self.stats, IntervalStats::new(0));
        Ok(stats.into_summary(
            machine.end_ns(),
            report.model_cpu(),
            self.invariants.violations,
        ))
    }
}

impl<'a> IntervalRun<'a> {
    fn new(
        scenario: &Setting,
        config: &IntervalConfig,
        plans: &[IntervalPlan],
        machine: &mut Machine<u32>,
        sink: &'a mut dyn TraceSink,
    ) -> Self {
        let runtime = machine.add_thread("runtime");
        let cores: Vec<IntervalCore> = plans
            .iter()
            .map(|plan| {
                IntervalCore::created_at(
                    config.missed_tick,
                    plan.created_ns as i64,
                    plan.period_ns as i64,
                )
            })
            .collect();
        let mut run = IntervalRun {
            runtime,
            tick_cost_ns: config.tick_cost_ns,
            resolution_ns: config.driver_resolution_ns as i64,
            ready: VecDeque::new(),
            stats: IntervalStats::new(cores.len()),
            invariants: IntervalInvariants::new(
                config.missed_tick,
                scenario.instant_clock,
                plans.iter().map(|plan| plan.period_ns).collect(),
            ),
            tick_counts: if sink.wants_events() {
                vec![0; cores.len()]
            } else {
                Vec::new()
            },
            cores,
            sink,
        };
        for index in 0..run.cores.len() {
            run.wait_for(index as u32, machine);
        }
        run
    }

    /// The runtime waits for the interval's next deadline, rounded up to the driver's grid as
    /// tokio's wheel rounds up to the next millisecond; the wait ends as the platform's timed
    /// waits end.
    #[inline]
    fn wait_for(&mut self, index: u32, machine: &mut Machine<u32>) {
        let deadline_ns = self.cores[index as usize].deadline_ns();
        let driver_ns = driver_deadline_ns(deadline_ns, self.resolution_ns);
        let deadline = machine.instant_deadline(driver_ns);
        machine.timed_wake(deadline, index);
    }

    /// An interval's deadline came: tick it now, or queue it behind the runtime's current work.
    #[inline]
    fn on_due(&mut self, index: u32, machine: &mut Machine<u32>) -> Result<(), RunError> {
        if self.tick_cost_ns > 0 && (machine.is_busy(self.runtime) || !self.ready.is_empty()) {
            self.ready.push_back(index);
            return Ok(());
        }
        self.tick(index, machine)
    }

    /// Ticks queued intervals while the runtime is free.
    fn run_ready(&mut self, machine: &mut Machine<u32>) -> Result<(), RunError> {
        while !machine.is_busy(self.runtime) {
            let Some(index) = self.ready.pop_front() else {
                break;
            };
            self.tick(index, machine)?;
        }
        Ok(())
    }

    #[inline]
    fn tick(&mut self, index: u32, machine: &mut Machine<u32>) -> Result<(), RunError> {
        let instant_ns = machine.instant_ns();
        let Some(tick) = self.cores[index as usize].tick(instant_ns) else {
            // The clock moved back (a wall Instant stepped) since the wake was filed.
            self.wait_for(index, machine);
            return Ok(());
        };
        let now_ns = machine.now_ns();
        let wall_ns = machine.wall_ns();
        if let Some(broken) = self
            .invariants
            .on_tick(index as usize, instant_ns, tick.deadline_ns)
        {
            crate::invariant::report(self.sink, now_ns, self.invariants.violations, broken)?;
        }
        self.stats.on_tick(
            index as usize,
            now_ns,
            wall_ns,
            instant_ns - tick.deadline_ns,
        );
        if !self.tick_counts.is_empty() {
            let seq = &mut self.tick_counts[index as usize];
            *seq += 1;
            self.sink.record(&Event::Model(&TickEvent {
                t_ns: now_ns,
                interval: index,
                seq: *seq,
                instant_ns,
                deadline_ns: tick.deadline_ns,
                wall: Wall(wall_ns),
            }))?;
        }
        if self.tick_cost_ns > 0 {
            machine.run(self.runtime, self.tick_cost_ns, CpuKind::Busy);
        }
        self.wait_for(index, machine);
        Ok(())
    }
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
