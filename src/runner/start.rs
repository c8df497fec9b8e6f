//! How every run starts: the checks before it, its world's configuration, the first event of its
//! trace, and its watchdog.

use ticklab_sim::WorldConfig;

use super::error::RunError;
use super::memory_check::check_memory;
use super::options::RunOptions;
use super::watchdog::Watchdog;
use crate::memory::Footprint;
use crate::memory::budget::Admission;
use crate::model::Model;
use crate::scenario::setting::Setting;
use crate::trace::{Event, StartEvent, TraceSink, Wall};

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

/// What a runner knows before it starts: the bound on its steps, its largest footprint, and the
/// design its errors name.
pub(crate) struct Plan {
    /// The most steps the run can take: the work bound the runner checked.
    pub steps: u128,
    /// The most the run can hold at once.
    pub peak: Footprint,
    /// The design the run's errors name, such as "burst interval".
    pub design: String,
    /// What a user lowers when the peak does not fit the memory bound.
    pub fewer_by: &'static str,
}

/// A run that may go: its watchdog, and its share of the process's memory budget, which it
/// holds until it ends.
pub(crate) struct Started {
    pub watchdog: Watchdog,
    /// Held, not read: the run gives its share of the budget back when it ends.
    pub _admission: Admission<'static>,
}

/// The one startup every runner makes, in this order: the memory check (the run is refused, or
/// waits for its share of the budget), then the first event of the trace with `notes`, then
/// the watchdog that stops a run that would not end.
pub(crate) fn begin<M: Model>(
    scenario: &Setting,
    config: &M::Config,
    seed: u64,
    options: &RunOptions,
    plan: Plan,
    notes: Vec<String>,
    sink: &mut dyn TraceSink,
) -> Result<Started, RunError> {
    let admission = check_memory(&plan.peak, options, scenario, &plan.design, plan.fewer_by)?;
    let mut start = start_event::<M>(scenario, config, seed);
    start.notes.extend(notes);
    sink.record(&Event::Start(&start))?;
    Ok(Started {
        watchdog: Watchdog::new(plan.steps, plan.design, options.max_memory_for(scenario)),
        _admission: admission,
    })
}
