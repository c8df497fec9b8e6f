//! Running a scenario: options, errors, and what every model's runner shares.

use std::fmt;
use std::io;

use ticklab_sim::{ClockId, Edge, EdgeEffect, Fault, FaultEdge, World, WorldConfig};

use crate::expect::Outcome;
use crate::memory::{DEFAULT_MAX_MEMORY_BYTES, Footprint, Size};
use crate::scenario::Scenario;
use crate::trace::{Event, FaultEvent, ResumeEvent, StartEvent, Summary, TraceSink, Wall};

/// The default cap on events one run may handle: about ten seconds of simulation, and room for
/// brpc #3383 at full scale (40 M calls).
pub const DEFAULT_MAX_EVENTS: u64 = 250_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Replaces the scenario's `seed`.
    pub seed: Option<u64>,
    /// Refuse runs whose work could exceed this many events.
    pub max_events: u64,
    /// Refuse, or stop, runs whose live state could pass this many bytes; a scenario's own
    /// `max_memory` may raise it for that scenario.
    pub max_memory_bytes: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: None,
            max_events: DEFAULT_MAX_EVENTS,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
        }
    }
}

impl RunOptions {
    /// These options for `scenario`: its own `max_events` and `max_memory` raise the bounds.
    pub fn for_scenario(&self, scenario: &Scenario) -> RunOptions {
        RunOptions {
            max_events: self.max_events.max(scenario.max_events.unwrap_or(0)),
            ..*self
        }
    }

    /// The memory bound for `scenario`: the larger of the options' and the file's own.
    pub fn max_memory_for(&self, scenario: &Scenario) -> u64 {
        self.max_memory_bytes
            .max(scenario.max_memory_bytes.unwrap_or(0))
    }
}

#[derive(Debug)]
pub enum RunError {
    /// The run could need more events than allowed: refused before starting.
    TooMuchWork {
        events_bound: u128,
        max_events: u64,
        why: String,
        /// The scenario keys that would bring the work down, as the model names them.
        fewer_by: &'static str,
    },
    /// The model kept working without the run getting anywhere: more steps than its work bound
    /// allows, as a design whose deadline never advances takes. Stopped, not left to hang.
    Runaway {
        design: String,
        at_ns: u64,
        steps: u64,
    },
    /// The model kept waking at one instant: more steps without time moving than its whole run
    /// could take, as a design takes that sleeps until a deadline it has reached without firing
    /// what is due.
    Stuck {
        design: String,
        at_ns: u64,
        steps: u64,
    },
    /// The run could hold more live state than allowed: refused before starting.
    TooMuchMemory {
        bytes_bound: u128,
        max_bytes: u64,
        /// What would fill it, largest first.
        footprint: String,
        fewer_by: &'static str,
    },
    /// The run held more live state than allowed while it ran, though its estimate did not:
    /// stopped there, as a design that never frees what it holds is.
    OutOfMemory {
        design: String,
        at_ns: u64,
        bytes: u128,
        max_bytes: u64,
        footprint: String,
    },
    /// More wakes could wait at once than the event queue holds: refused before starting
    /// (`at_ns` is `None`), or stopped when it happened.
    TooManyWakes {
        design: String,
        at_ns: Option<u64>,
        /// How many could wait, as estimated; 0 once stopped.
        wakes: u128,
    },
    /// The design declared a metric of its own and did not report it.
    UnreportedMetric {
        design: &'static str,
        metric: &'static str,
    },
    /// Writing the trace failed.
    Io(io::Error),
    /// The simulator a model runs inside (turmoil, for hosts) stopped with an error.
    Simulator(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::TooMuchWork {
                events_bound,
                max_events,
                why,
                fewer_by,
            } => write!(
                f,
                "this run could handle up to {events_bound} events ({why}), more than the limit of {max_events}\n  \
                 hint: {fewer_by}, shorten `run_for` or the faults, or raise the limit with --max-events"
            ),
            RunError::Runaway {
                design,
                at_ns,
                steps,
            } => write!(
                f,
                "the {design} design ran away: {steps} steps by {}, more than its work bound allows, \
                 so the run was stopped\n  hint: a design must move its deadlines forward; one that \
                 keeps waking at the same instant, or never reaches a deadline, never ends",
                ticklab_sim::Secs(*at_ns)
            ),
            RunError::Stuck {
                design,
                at_ns,
                steps,
            } => write!(
                f,
                "the {design} design kept waking at {}: {steps} steps at that one instant without \
                 time moving, more than its whole run allows, so the run was stopped\n  hint: a \
                 wait for a deadline that has come ends at once; a design must fire what is due, \
                 or move its deadline past now, before it waits again",
                ticklab_sim::Secs(*at_ns)
            ),
            RunError::TooMuchMemory {
                bytes_bound,
                max_bytes,
                footprint,
                fewer_by,
            } => {
                write!(
                    f,
                    "this run could hold up to {} of live state ({footprint}), more than the \
                     memory limit of {}\n  hint: {fewer_by}, or raise the limit with --max-memory",
                    Size(*bytes_bound),
                    Size(u128::from(*max_bytes))
                )?;
                // A file may only raise the bound above the default, so suggest it only where
                // the default itself is too little.
                if *bytes_bound > u128::from(DEFAULT_MAX_MEMORY_BYTES) {
                    write!(
                        f,
                        ", or with `max_memory = \"{}\"` at the top of the scenario file",
                        round_up_gib(*bytes_bound)
                    )?;
                }
                Ok(())
            }
            RunError::OutOfMemory {
                design,
                at_ns,
                bytes,
                max_bytes,
                footprint,
            } => write!(
                f,
                "the {design} held {} of live state at {} ({footprint}), more than the memory \
                 limit of {}, so the run was stopped\n  hint: a design that keeps what it no \
                 longer needs grows without end; if this run really needs it, raise the limit \
                 with --max-memory or `max_memory` in the scenario file",
                Size(*bytes),
                ticklab_sim::Secs(*at_ns),
                Size(u128::from(*max_bytes))
            ),
            RunError::TooManyWakes {
                design,
                at_ns,
                wakes,
            } => {
                let max = ticklab_sim::MAX_PENDING_WAKES;
                match at_ns {
                    None => write!(
                        f,
                        "the {design} could have up to {wakes} wakes waiting at once (one for \
                         each call, task or message in flight, and each thread), more than the \
                         {max} the event queue holds"
                    )?,
                    Some(at_ns) => write!(
                        f,
                        "the {design} had more than {max} wakes waiting at once at {}, more \
                         than the event queue holds, so the run was stopped",
                        ticklab_sim::Secs(*at_ns)
                    )?,
                }
                write!(
                    f,
                    "\n  hint: fewer calls, tasks or messages in flight at once: shorten \
                     latencies and timeouts, or lower the rate"
                )
            }
            RunError::UnreportedMetric { design, metric } => write!(
                f,
                "the {design} design declares the metric `{metric}` and did not report it at \
                 the end of the run\n  hint: its `TimerDesign::metric` must answer \
                 Some(value) for every name in its `BuildTimerDesign::METRICS`"
            ),
            RunError::Io(error) => write!(f, "cannot write the trace: {error}"),
            RunError::Simulator(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<io::Error> for RunError {
    fn from(error: io::Error) -> Self {
        RunError::Io(error)
    }
}

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
    let summary = scenario
        .model
        .run(scenario, seed, options, sink as &mut dyn TraceSink)?;
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

pub(crate) fn world_config(scenario: &Scenario) -> WorldConfig {
    WorldConfig {
        platform: scenario.platform,
        instant_clock: scenario.instant_clock,
        wall_start_ns: scenario.wall_start_ns,
        run_for_ns: scenario.run_for_ns,
        faults: scenario.faults.clone(),
    }
}

pub(crate) fn start_event(scenario: &Scenario, seed: u64) -> StartEvent {
    let overridden = scenario.instant_clock != scenario.platform.instant_clock();
    StartEvent {
        t_ns: 0,
        about: scenario.about.clone(),
        source: scenario.source.clone(),
        model: scenario.model.kind(),
        platform: scenario.platform.name(),
        instant_clock: scenario.instant_clock.name(),
        instant_source: (!overridden).then(|| scenario.platform.instant_source()),
        seed,
        run_for_ns: scenario.run_for_ns,
        wall: Wall(scenario.wall_start_ns),
        profile: scenario.profile().map(|profile| profile.source.clone()),
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

/// Refuses a run whose largest possible footprint could pass `max_bytes`, or that could have
/// more wakes waiting at once than the event queue holds.
pub(crate) fn check_memory(
    peak: &Footprint,
    max_bytes: u64,
    design: &str,
    fewer_by: &'static str,
) -> Result<(), RunError> {
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
    Ok(())
}

/// A `max_memory` value that covers `bytes`: whole GiB, rounded up.
fn round_up_gib(bytes: u128) -> String {
    format!("{}GiB", bytes.div_ceil(1 << 30).max(1))
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
pub(crate) fn retiming_edges(scenario: &Scenario) -> u128 {
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
pub(crate) fn clock_advance_bound_ns(scenario: &Scenario, clock: ClockId) -> u128 {
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
