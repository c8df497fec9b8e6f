//! Running a scenario: options, errors, and what every model's runner shares.

pub(crate) mod error;
pub(crate) mod options;

pub use error::RunError;
pub use options::{DEFAULT_MAX_EVENTS, RunOptions};

use std::io;

use ticklab_sim::{ClockId, Edge, EdgeEffect, Fault, FaultEdge, World, WorldConfig};

use crate::expect::Outcome;
use crate::memory::budget::{self, Admission};
use crate::memory::{DEFAULT_MAX_MEMORY_BYTES, Footprint};
use crate::model::Model;
use crate::scenario::{Scenario, Setting};
use crate::trace::{Event, FaultEvent, ResumeEvent, StartEvent, Summary, TraceSink, Wall};

/// A finished run: its summary and how its expectations fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunReport {
    pub seed: u64,
    pub summary: Summary,
    pub outcomes: Vec<Outcome>,
}

impl RunReport {
    pub fn passed(&self) -> bool {
        self.outcomes.iter().all(|outcome| outcome.passed)
    }
}

/// Runs `scenario`, streaming its trace into `sink`, and checks its `[expect]`.
pub fn run_scenario<S: TraceSink>(
    scenario: &Scenario,
    options: &RunOptions,
    sink: &mut S,
) -> Result<RunReport, RunError> {
    let seed = options.seed.unwrap_or(scenario.seed);
    let options = &options.for_scenario(scenario);
    let summary =
        scenario
            .model
            .run(&scenario.setting, seed, options, sink as &mut dyn TraceSink)?;
    let outcomes = scenario
        .expectations
        .iter()
        .map(|expectation| {
            let actual = summary
                .lookup(expectation.group.as_deref(), expectation.metric.name)
                .expect("expectations name the model's own metrics");
            expectation.check(actual)
        })
        .collect();
    Ok(RunReport {
        seed,
        summary,
        outcomes,
    })
}

/// The one command that reproduces a run, byte for byte. `program` is the command that runs the
/// command line holding the scenario's designs, as a shell would take it: `ticklab`, or for a
/// user's own binary what [`crate::cli::invoked_as`] gives (`cargo run -p my-timers --`).
/// `profile` is a cost profile given on the command line in place of the scenario's.
pub fn replay_command(
    program: &str,
    source: &str,
    seed: u64,
    options: &RunOptions,
    profile: Option<&std::path::Path>,
) -> String {
    let quote = |text: &str| {
        shlex::try_quote(text)
            .unwrap_or_else(|_| text.into())
            .into_owned()
    };
    let mut command = format!("{program} run {} --seed {seed}", quote(source));
    if options.max_events != DEFAULT_MAX_EVENTS {
        command.push_str(&format!(" --max-events {}", options.max_events));
    }
    if options.max_memory_bytes != DEFAULT_MAX_MEMORY_BYTES {
        command.push_str(&format!(" --max-memory {}B", options.max_memory_bytes));
    }
    if let Some(profile) = profile {
        command.push_str(&format!(
            " --profile {}",
            quote(&profile.display().to_string())
        ));
    }
    command
}

pub(crate) fn world_config(scenario: &Setting) -> WorldConfig {
    WorldConfig {
        platform: scenario.platform,
        instant_clock: scenario.instant_clock,
        wall_start_ns: scenario.wall_start_ns,
        run_for_ns: scenario.run_for_ns,
        faults: scenario.faults.clone(),
    }
}

/// The first event of a run of `config`, a table of kind `M`.
pub(crate) fn start_event<M: Model>(
    scenario: &Setting,
    config: &M::Config,
    seed: u64,
) -> StartEvent {
    let overridden = scenario.instant_clock != scenario.platform.instant_clock();
    StartEvent {
        t_ns: 0,
        about: scenario.about.clone(),
        source: scenario.source.clone(),
        model: M::KIND,
        platform: scenario.platform.name(),
        instant_clock: scenario.instant_clock.name(),
        instant_source: (!overridden).then(|| scenario.platform.instant_source()),
        seed,
        run_for_ns: scenario.run_for_ns,
        wall: Wall(scenario.wall_start_ns),
        profile: M::profile(config).map(|profile| profile.source.clone()),
        notes: Vec::new(),
    }
}

/// Bounds the steps of a run while it runs: the estimate made before it started, with room to
/// spare, so that a model that keeps waking without the run getting anywhere ends with an error
/// naming it instead of hanging.
#[derive(Debug)]
pub struct Watchdog {
    limit: u64,
    steps: u64,
    /// Most steps at one physical instant: the estimate itself, since a run cannot take more
    /// steps at one instant than it takes in all, with room for the machine's own.
    same_instant_limit: u64,
    /// The instant seen at the latest checkpoint where time had moved, and the step count then.
    /// Physical time never goes back, so a later checkpoint at the same instant means every step
    /// in between was at it.
    mark_ns: u64,
    mark_steps: u64,
    design: String,
    max_memory_bytes: u64,
}

/// How far past its estimated bound a run may go before it counts as running away: estimates are
/// bounds on the model's own events, and the machine adds its own (slice ends, outside load).
const RUNAWAY_FACTOR: u128 = 4;
const RUNAWAY_SLACK: u128 = 1_000_000;
/// Steps between the watchdog's checks: checking every step would cost the innermost loop a few
/// per cent, and a run stopped a few thousand steps late is stopped all the same.
const CHECK_EVERY: u64 = 1 << 12;

impl Watchdog {
    /// A watchdog for a run estimated at `bound` events of `design`, holding at most
    /// `max_memory_bytes` of live state.
    pub fn new(bound: u128, design: impl Into<String>, max_memory_bytes: u64) -> Self {
        let limit = bound
            .saturating_mul(RUNAWAY_FACTOR)
            .saturating_add(RUNAWAY_SLACK);
        Watchdog {
            limit: u64::try_from(limit).unwrap_or(u64::MAX),
            steps: 0,
            same_instant_limit: u64::try_from(bound.saturating_add(RUNAWAY_SLACK))
                .unwrap_or(u64::MAX),
            mark_ns: 0,
            mark_steps: 0,
            design: design.into(),
            max_memory_bytes,
        }
    }

    /// Whether the latest step was one at which the run's memory is measured.
    #[inline]
    pub fn at_checkpoint(&self) -> bool {
        self.steps.is_multiple_of(CHECK_EVERY)
    }

    /// Stops a run whose live state passed its bound, or whose event queue overflowed.
    #[cold]
    pub fn check_memory(
        &self,
        now_ns: u64,
        live: &Footprint,
        queue_overflowed: bool,
    ) -> Result<(), RunError> {
        if queue_overflowed {
            return Err(RunError::TooManyWakes {
                design: self.design.clone(),
                at_ns: Some(now_ns),
                wakes: 0,
            });
        }
        let bytes = live.bytes();
        if bytes > u128::from(self.max_memory_bytes) {
            return Err(RunError::OutOfMemory {
                design: self.design.clone(),
                at_ns: now_ns,
                bytes,
                max_bytes: self.max_memory_bytes,
                footprint: live.to_string(),
            });
        }
        Ok(())
    }

    #[inline]
    pub fn step(&mut self, now_ns: u64) -> Result<(), RunError> {
        self.steps += 1;
        if self.steps.is_multiple_of(CHECK_EVERY) {
            return self.check(now_ns);
        }
        Ok(())
    }

    #[cold]
    fn check(&mut self, now_ns: u64) -> Result<(), RunError> {
        if now_ns != self.mark_ns {
            self.mark_ns = now_ns;
            self.mark_steps = self.steps;
        } else if self.steps - self.mark_steps > self.same_instant_limit {
            return Err(RunError::Stuck {
                design: self.design.clone(),
                at_ns: now_ns,
                steps: self.steps - self.mark_steps,
            });
        }
        if self.steps > self.limit {
            return Err(RunError::Runaway {
                design: self.design.clone(),
                at_ns: now_ns,
                steps: self.steps,
            });
        }
        Ok(())
    }
}

/// What a footprint calls the wakes waiting in the event queue.
pub const WAKES: &str = "wakes waiting";

/// Refuses a run whose largest possible footprint could pass its memory bound, or that could
/// have more wakes waiting at once than the event queue holds; else waits until the run fits
/// the process's memory budget beside the runs going in parallel ([`budget`]). The run holds the
/// admission it returns until it ends.
pub(crate) fn check_memory(
    peak: &Footprint,
    options: &RunOptions,
    scenario: &Setting,
    design: &str,
    fewer_by: &'static str,
) -> Result<Admission<'static>, RunError> {
    let max_bytes = options.max_memory_for(scenario);
    let wakes = peak.count_of(WAKES);
    if wakes > ticklab_sim::MAX_PENDING_WAKES as u128 {
        return Err(RunError::TooManyWakes {
            design: design.to_string(),
            at_ns: None,
            wakes,
        });
    }
    let bytes_bound = peak.bytes();
    if bytes_bound > u128::from(max_bytes) {
        return Err(RunError::TooMuchMemory {
            bytes_bound,
            max_bytes,
            footprint: peak.to_string(),
            fewer_by,
        });
    }
    let claim_bytes = budget::claim_bytes(bytes_bound, max_bytes, options.max_memory_bytes);
    Ok(budget::PROCESS.admit(claim_bytes, options.max_memory_bytes))
}

/// Traces a fault edge, and the resume it may have caused.
pub(crate) fn record_fault<P: Copy, S: TraceSink + ?Sized>(
    world: &World<P>,
    edge: &FaultEdge,
    effect: &EdgeEffect,
    sink: &mut S,
) -> io::Result<()> {
    if !sink.wants_events() {
        return Ok(());
    }
    let fault = FaultEvent {
        t_ns: world.now_ns(),
        fault: edge.fault_index,
        kind: edge.fault.kind().name(),
        what: edge.fault.to_string(),
        host: None,
        instant_ns: world.instant_ns(),
        wall: Wall(world.wall_ns()),
    };
    match edge.edge {
        Edge::Begin => sink.record(&Event::FaultBegin(&fault))?,
        Edge::End => sink.record(&Event::FaultEnd(&fault))?,
        Edge::Point => sink.record(&Event::WallStep(&fault))?,
    }
    if let Some(stopped_ns) = effect.resumed_after_ns {
        sink.record(&Event::Resume(&ResumeEvent {
            t_ns: world.now_ns(),
            host: None,
            stopped_ns,
            instant_ns: world.instant_ns(),
            wall: Wall(world.wall_ns()),
        }))?;
    }
    Ok(())
}

/// How many fault edges can make the world re-time every pending wake: each suspend's end (the
/// process may run again) and, when `Instant` reads the wall clock, every step and slew edge.
pub(crate) fn retiming_edges(scenario: &Setting) -> u128 {
    let on_wall = scenario.instant_clock == ClockId::Wall;
    scenario
        .faults
        .iter()
        .map(|fault| match fault {
            Fault::SystemSuspend { .. } | Fault::ProcessSuspend { .. } => 1,
            Fault::WallStep { .. } if on_wall => 1,
            Fault::WallSlew { .. } if on_wall => 2,
            _ => 0,
        })
        .sum()
}

/// The most a clock can advance over the run: physical time, plus every forward wall step and
/// the extra of every fast slew if the clock is the wall. Bounds how many periods can elapse.
pub(crate) fn clock_advance_bound_ns(scenario: &Setting, clock: ClockId) -> u128 {
    let mut bound = u128::from(scenario.run_for_ns);
    if clock == ClockId::Wall {
        for fault in &scenario.faults {
            match *fault {
                Fault::WallStep { by_ns, .. } if by_ns > 0 => bound += by_ns as u128,
                Fault::WallSlew {
                    at_ns,
                    duration_ns,
                    rate_ppb,
                } if rate_ppb > 0 => {
                    let inside_ns = duration_ns.min(scenario.run_for_ns - at_ns);
                    bound += u128::from(inside_ns) * rate_ppb as u128 / 1_000_000_000 + 1;
                }
                _ => {}
            }
        }
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps until the watchdog objects, with `now_ns` computed from the step's number.
    fn steps_until_stopped(watchdog: &mut Watchdog, now_ns: impl Fn(u64) -> u64) -> RunError {
        (0..u64::MAX)
            .find_map(|step| watchdog.step(now_ns(step)).err())
            .expect("the watchdog stops the run")
    }

    #[test]
    fn a_run_that_keeps_waking_at_one_instant_is_stuck_there() {
        let bound = 2_000_000;
        let mut watchdog = Watchdog::new(bound, "planted timer", u64::MAX);
        match steps_until_stopped(&mut watchdog, |step| 5_000 + step.min(3)) {
            RunError::Stuck {
                design,
                at_ns,
                steps,
            } => {
                assert_eq!(design, "planted timer");
                assert_eq!(at_ns, 5_003);
                // Stopped at the first check past the limit.
                let limit = (bound + RUNAWAY_SLACK) as u64;
                assert!(steps > limit && steps <= limit + CHECK_EVERY, "{steps}");
            }
            other => panic!("expected a stuck run, got {other:?}"),
        }
    }

    #[test]
    fn a_run_that_moves_on_but_never_ends_runs_away_after_its_bound() {
        let mut watchdog = Watchdog::new(10, "planted interval", u64::MAX);
        match steps_until_stopped(&mut watchdog, |step| step / 2) {
            RunError::Runaway { design, steps, .. } => {
                assert_eq!(design, "planted interval");
                let limit = (10 * RUNAWAY_FACTOR + RUNAWAY_SLACK) as u64;
                assert!(steps > limit && steps <= limit + CHECK_EVERY, "{steps}");
            }
            other => panic!("expected a runaway, got {other:?}"),
        }
    }

    #[test]
    fn many_steps_at_one_instant_within_the_bound_are_allowed() {
        let mut watchdog = Watchdog::new(2_000_000, "burst", u64::MAX);
        for _ in 0..2_000_000 {
            watchdog
                .step(7)
                .expect("a burst within the bound is no runaway");
        }
    }
}
