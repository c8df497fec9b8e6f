//! What a timer run may cost before it starts: its events, and the memory it is sure to hold.

use super::Wake;
use super::calls::Call;
use crate::machine::Machine;
use crate::machine::bound::{self, ModelCpu};
use crate::memory::{Footprint, grown};
use crate::runner::error::RunError;
use crate::runner::faults::retiming_edges;
use crate::runner::options::RunOptions;
use crate::scenario::setting::Setting;
use crate::timer::spec::TimerConfig;

/// Memory is sampled this many times a run, at even steps of physical time.
pub(super) const MEMORY_SAMPLES: u64 = 100;

fn calls(scenario: &Setting, config: &TimerConfig) -> u128 {
    u128::from(config.clients) * (u128::from(scenario.run_for_ns / config.call_interval_ns) + 1)
}

pub(super) fn check_work(
    scenario: &Setting,
    config: &TimerConfig,
    options: &RunOptions,
) -> Result<u128, RunError> {
    let calls = calls(scenario, config);
    // Each call is a start, a response, at most one fire, at most two timer rounds (the one its
    // wake-up caused and the one its deadline did) and at most one check that its timer fired in
    // time; clock changes re-time every pending wake.
    let pending = 2 * calls + config.most_timer_threads() as u128 + u128::from(config.clients) + 1;
    let events = 6 * calls + u128::from(MEMORY_SAMPLES) + retiming_edges(scenario) * pending;
    // Every fire runs its callback on a timer thread: a piece of work each, at most two rounds'
    // worth per call.
    let callback_ns = config
        .callback_cost_ns
        .max(config.slow_callback.map_or(0, |(_, cost_ns)| cost_ns));
    let model = ModelCpu::uniform(
        2 * calls,
        callback_ns,
        config.most_timer_threads() as u128,
        scenario.machine.time_slice_ns,
    )
    .counted();
    let machine_steps = bound::cpu_steps(
        &scenario.machine,
        &scenario.faults,
        scenario.run_for_ns,
        model,
    );
    bound::check_bound(
        events,
        machine_steps,
        options.max_events,
        format!("{calls} calls from {} clients", config.clients),
        "lengthen `call_interval` or lower `clients`",
    )
}

/// What a footprint calls the calls in flight and the design's timers.
pub(super) const CALLS: &str = "calls in flight";
pub(super) const TIMERS: &str = "timers the design holds";

/// What one call in flight costs: its slot, its generation, and its place on the free list once
/// it ends.
pub(super) const BYTES_PER_CALL: u64 = grown::<Option<Call>>() + 2 * grown::<u32>();

/// What a run is sure to hold at its peak, as it is refused by before it starts. A call is in
/// flight until its response, at most the slowest latency, with its timer, which stays in the
/// design at least until the call ends or the timer fires; its response's wake waits meanwhile,
/// and so does the check of a call answered after its timeout; every client and timer thread has
/// a wake of its own. What depends on the design is left to the check while the run goes: a
/// cancelled timer that lingers until its deadline, as in brpc's design before its fix, and a
/// timer thread's old wake left behind when it is woken early.
pub(super) fn peak_footprint(scenario: &Setting, config: &TimerConfig) -> Footprint {
    let calls = calls(scenario, config);
    let latest_response_ns = config.latency_ns.1.max(if config.slow_responses_ppm > 0 {
        config.slow_latency_ns
    } else {
        0
    });
    let in_flight = calls.min(
        u128::from(config.clients)
            * (u128::from(latest_response_ns.div_ceil(config.call_interval_ns)) + 1),
    );
    let checked = if latest_response_ns > config.timeout_ns {
        in_flight
    } else {
        0
    };
    let threads = config.most_timer_threads() as u128;
    let wakes = in_flight + checked + u128::from(config.clients) + 2 * threads + 1;
    Footprint::new()
        .with(CALLS, in_flight, BYTES_PER_CALL)
        .with(TIMERS, in_flight, config.design.bytes_per_timer)
        .with(
            crate::runner::memory_check::WAKES,
            wakes,
            Machine::<Wake>::BYTES_PER_WAKE,
        )
}
