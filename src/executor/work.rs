//! How much work an executor scenario asks for, bounded before the run starts.

use super::spec::{Arrival, ExecutorConfig, GroupConfig, Step};
use super::tasks::{Request, Task};
use crate::machine::Machine;
use crate::machine::bound::{self, ModelCpu};
use crate::memory::{Footprint, grown};
use crate::runner::error::RunError;
use crate::runner::faults::retiming_edges;
use crate::runner::options::RunOptions;
use crate::scenario::setting::Setting;

/// Arrivals of `group` before the run ends: periodic ones stop at the end, Poisson ones are
/// bounded by their count alone.
fn arrivals_within(group: &GroupConfig, run_for_ns: u64) -> u128 {
    let count = u128::from(group.count);
    match group.arrival {
        _ if group.start_ns >= run_for_ns => 0,
        Arrival::Every { period_ns } => {
            count.min(u128::from((run_for_ns - group.start_ns) / period_ns) + 1)
        }
        Arrival::AtOnce | Arrival::Poisson { .. } => count,
    }
}

/// Instances of each group over the run: its own arrivals plus one per `spawn` step of every
/// instance of a group that spawns it. Spawns form no cycles (the scenario checks), so a pass in
/// dependency order settles every group.
fn instances(config: &ExecutorConfig, run_for_ns: u64) -> Vec<u128> {
    fn settle(
        group: usize,
        config: &ExecutorConfig,
        run_for_ns: u64,
        memo: &mut [Option<u128>],
    ) -> u128 {
        if let Some(known) = memo[group] {
            return known;
        }
        let mut total = arrivals_within(&config.groups[group], run_for_ns);
        for (spawner, other) in config.groups.iter().enumerate() {
            let spawns = other
                .steps
                .iter()
                .filter(|step| matches!(step, Step::Spawn { group: child } if *child == group))
                .count() as u128
                * u128::from(other.repeat);
            if spawns > 0 {
                let spawners = settle(spawner, config, run_for_ns, memo);
                total = total.saturating_add(spawns.saturating_mul(spawners));
            }
        }
        memo[group] = Some(total);
        total
    }
    let mut memo = vec![None; config.groups.len()];
    (0..config.groups.len())
        .map(|group| settle(group, config, run_for_ns, &mut memo))
        .collect()
}

/// Events one instance of a step can cause, at most: the wakes of its task and worker, a slice
/// end per time slice of CPU work (preemptions included), and for io the connection task's two
/// polls, the reply and the driver's notice.
fn step_events(step: &Step, slice_ns: u64) -> u128 {
    let cpu_events = |ns: u64| u128::from(ns / slice_ns) * 2 + 4;
    match *step {
        Step::Cpu { ns } | Step::SpawnBlocking { ns } | Step::BlockInPlace { ns } => {
            cpu_events(ns) + 4
        }
        // A timeout adds its timer's wake and the driver poll that fires it.
        Step::Io { timeout_ns, .. } => 16 + if timeout_ns.is_some() { 4 } else { 0 },
        Step::Yield
        | Step::Sleep { .. }
        | Step::Tick { .. }
        | Step::Block { .. }
        | Step::Spawn { .. } => 6,
    }
}

pub(crate) fn check_work(
    scenario: &Setting,
    config: &ExecutorConfig,
    options: &RunOptions,
) -> Result<u128, RunError> {
    let instances = instances(config, scenario.run_for_ns);
    let tasks: u128 = instances.iter().sum();
    let workers: u128 = config
        .runtimes
        .iter()
        .map(|runtime| runtime.scheduler.workers as u128)
        .sum();
    let mut bound: u128 = workers * 4;
    for (group, count) in config.groups.iter().zip(&instances) {
        let per_round: u128 = group
            .steps
            .iter()
            .map(|step| step_events(step, scenario.machine.time_slice_ns))
            .sum();
        let per_instance = 6 + per_round.saturating_mul(u128::from(group.repeat));
        bound = bound.saturating_add(count.saturating_mul(per_instance));
    }
    // A clock change re-times every pending wake: at most one per task and worker.
    bound = bound.saturating_add(retiming_edges(scenario).saturating_mul(tasks + workers));
    // The executor's own slices are counted above, step by step; what the machine adds is its
    // outside load, and the waits of the tasks' CPU steps behind it.
    let model = ModelCpu {
        pieces: tasks,
        slices: 0,
        threads: 1,
        piece_ends_counted: true,
    };
    let machine_steps = bound::cpu_steps(
        &scenario.machine,
        &scenario.faults,
        scenario.run_for_ns,
        model,
    );
    bound::check_bound(
        bound,
        machine_steps,
        options.max_events,
        format!("{tasks} tasks, spawned ones included"),
        "lower the task groups' `count` or their `cpu` times, or lengthen `time_slice`",
    )
}

/// What a footprint calls the run's tasks and io requests.
pub(crate) const TASKS: &str = "tasks";
pub(crate) const REQUESTS: &str = "io requests";

/// What one task costs: its entry in the task table, which keeps finished tasks for the
/// summary, its places in the run queues, and a wake.
pub(crate) const BYTES_PER_TASK: u64 = grown::<Task>() + 2 * grown::<u32>();
pub(crate) const BYTES_PER_REQUEST: u64 = grown::<Request>();

/// The most the run can hold: every task it will ever have, since the task table keeps them
/// all, and every io request. A task that waits (a sleep, a tick, an io reply, a blocking call)
/// may have a wake waiting meanwhile; one that only computes, yields and spawns has none of its
/// own.
pub(crate) fn peak_footprint<W: Copy>(scenario: &Setting, config: &ExecutorConfig) -> Footprint {
    let instances = instances(config, scenario.run_for_ns);
    let tasks: u128 = instances.iter().sum();
    let mut requests = 0u128;
    let mut waiting = 0u128;
    for (group, count) in config.groups.iter().zip(&instances) {
        let io_steps = group
            .steps
            .iter()
            .filter(|step| matches!(step, Step::Io { .. }))
            .count() as u128;
        requests =
            requests.saturating_add(count.saturating_mul(io_steps * u128::from(group.repeat)));
        let waits = group.steps.iter().any(|step| {
            matches!(
                step,
                Step::Sleep { .. }
                    | Step::Tick { .. }
                    | Step::Block { .. }
                    | Step::Io { .. }
                    | Step::SpawnBlocking { .. }
            )
        });
        if waits {
            waiting = waiting.saturating_add(*count);
        }
    }
    Footprint::new()
        .with(TASKS, tasks, BYTES_PER_TASK)
        .with(REQUESTS, requests, BYTES_PER_REQUEST)
        .with(
            crate::runner::memory_check::WAKES,
            waiting,
            Machine::<W>::BYTES_PER_WAKE,
        )
}
