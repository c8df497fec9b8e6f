//! How every run starts: its world's configuration and the first event of its trace.

use ticklab_sim::WorldConfig;

use crate::model::Model;
use crate::scenario::setting::Setting;
use crate::trace::{StartEvent, Wall};

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
