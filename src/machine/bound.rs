//! The steps a machine's CPU may take besides the model's own events, worked out before a run
//! starts: slice ends on contended cores and the bursts of outside load. Every kind adds them to
//! its work bound, so that a machine whose load keeps its cores contended is refused up front, by
//! the same figure whichever model runs on it.

use ticklab_sim::{FULL_SHARE_PPM, Fault};

use super::config::MachineConfig;
use crate::runner::error::RunError;

/// What the model asks of the machine's CPU at most.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ModelCpu {
    /// Pieces of CPU work the model gives its threads: each ends with a slice end.
    pub(crate) pieces: u128,
    /// Whole time slices those pieces span between them: while other threads wait, a core ends
    /// a slice every `time_slice` of them.
    pub(crate) slices: u128,
    /// The most threads the model runs at once.
    pub(crate) threads: u128,
    /// Whether the kind's own bound already counts the slice end that ends each piece.
    pub(crate) piece_ends_counted: bool,
}

impl ModelCpu {
    /// `pieces` pieces of up to `piece_ns` each, on up to `threads` threads.
    pub(crate) fn uniform(pieces: u128, piece_ns: u64, threads: u128, slice_ns: u64) -> Self {
        ModelCpu {
            pieces,
            slices: pieces.saturating_mul(u128::from(piece_ns / slice_ns.max(1))),
            threads,
            piece_ends_counted: false,
        }
    }

    /// The same, for a kind whose own bound counts the slice end of each piece.
    pub(crate) fn counted(self) -> Self {
        ModelCpu {
            piece_ends_counted: true,
            ..self
        }
    }
}

/// The steps `machine`'s CPU may take over `run_for_ns`: two wakes per burst of each bursty load
/// thread; on every core a slice end per time slice all run long when more load threads than
/// cores keep it contended, or while a `cpu-load` spell lasts; and for each piece of the model's
/// work, one slice end, or, where threads may outnumber cores, a slice end on every core for
/// each slice the piece may wait and run. A thread nobody waits for runs in one stretch, so an
/// uncontended machine costs only its pieces.
pub(crate) fn cpu_steps(
    machine: &MachineConfig,
    faults: &[Fault],
    run_for_ns: u64,
    model: ModelCpu,
) -> u128 {
    let load = machine.load;
    let spells = FaultLoad::of(faults, machine);
    let lasting_threads = load.busy_threads + load.bursts.map_or(0, |bursts| bursts.threads);
    let load_threads = lasting_threads.saturating_add(spells.threads);
    let mut steps = spells.burst_wakes;
    if let Some(bursts) = load.bursts {
        let per_thread = u128::from(run_for_ns / bursts.mean_burst_ns.max(1) + 1);
        steps += 2 * per_thread * u128::from(bursts.threads);
    }
    let piece_ends = if model.piece_ends_counted {
        0
    } else {
        model.pieces
    };
    let Some(cores) = machine.cores else {
        return steps + piece_ends;
    };
    let cores = cores as u128;
    let slice_ns = machine.time_slice_ns.max(1);
    if u128::from(lasting_threads) > cores {
        steps += u128::from(run_for_ns / slice_ns + 1) * cores;
    } else {
        steps += spells.slices(slice_ns) * cores;
    }
    let contended = u128::from(load_threads) + model.threads > cores;
    steps.saturating_add(if contended {
        model
            .slices
            .saturating_add(2 * model.pieces)
            .saturating_mul(cores)
            .saturating_add(piece_ends)
    } else {
        piece_ends
    })
}

/// A kind's work bound with its machine's steps in it: `model_events` of its own, explained by
/// `why` and lowered by `fewer_by`, and `machine_steps` from [`cpu_steps`]. Refused when past
/// `max_events`, with the hint of whichever share is the larger.
pub(crate) fn check_bound(
    model_events: u128,
    machine_steps: u128,
    max_events: u64,
    why: String,
    fewer_by: &'static str,
) -> Result<u128, RunError> {
    let bound = model_events.saturating_add(machine_steps);
    if bound <= u128::from(max_events) {
        return Ok(bound);
    }
    let (why, fewer_by) = if machine_steps == 0 {
        (why, fewer_by)
    } else {
        let why =
            format!("{why}, and {machine_steps} slice ends and load bursts on the machine's cores");
        if machine_steps > model_events {
            (why, MACHINE_FEWER_BY)
        } else {
            (why, fewer_by)
        }
    };
    Err(RunError::TooMuchWork {
        events_bound: bound,
        max_events,
        why,
        fewer_by,
    })
}

/// How a machine's own steps are made fewer: contended cores end a slice every `time_slice`.
const MACHINE_FEWER_BY: &str = "lengthen `time_slice`, or lower `busy_threads`, `load` or the \
     cpu-load faults' `threads` so that the load leaves the cores uncontended";

/// The `cpu-load` faults of one machine: the most threads they may run at once (all of them),
/// how long each lasts, and the bursts of those that run for a share of their time.
pub(crate) struct FaultLoad {
    pub(crate) threads: u32,
    durations_ns: Vec<u64>,
    /// Bursts the spells with a share may start: each of their threads, a burst per
    /// `load_burst` of the spell at most.
    burst_wakes: u128,
}

impl FaultLoad {
    /// The spells of `faults` on a machine of `cores` cores, each thread bursting every
    /// `mean_burst_ns` on average.
    pub(crate) fn of(faults: &[Fault], machine: &MachineConfig) -> Self {
        let cores = machine.cores.unwrap_or(1) as u32;
        let mean_burst_ns = machine
            .load
            .bursts
            .map_or(super::spec::DEFAULT_LOAD_BURST_NS, |bursts| {
                bursts.mean_burst_ns
            });
        let mut spells = FaultLoad {
            threads: 0,
            durations_ns: Vec::new(),
            burst_wakes: 0,
        };
        for fault in faults {
            if let Fault::CpuLoad {
                duration_ns,
                threads,
                share_ppm,
                ..
            } = *fault
            {
                let threads = threads.unwrap_or(cores);
                spells.threads = spells.threads.saturating_add(threads);
                spells.durations_ns.push(duration_ns);
                if share_ppm < FULL_SHARE_PPM {
                    // Gaps are drawn at random: count twice the mean number of bursts.
                    let bursts = 2 * u128::from(duration_ns / mean_burst_ns.max(1) + 1);
                    spells.burst_wakes += 2 * bursts * u128::from(threads);
                }
            }
        }
        spells
    }

    /// The slice ends one core may take while the spells last.
    fn slices(&self, slice_ns: u64) -> u128 {
        self.durations_ns
            .iter()
            .map(|&duration_ns| u128::from(duration_ns / slice_ns + 1))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::OutsideLoad;

    const SECOND_NS: u64 = 1_000_000_000;

    fn machine(cores: usize, busy_threads: u32) -> MachineConfig {
        MachineConfig {
            load: OutsideLoad {
                busy_threads,
                bursts: None,
            },
            ..MachineConfig::with_cores(cores, 1_000_000)
        }
    }

    #[test]
    fn load_that_outnumbers_the_cores_ends_a_slice_on_each_core_every_slice() {
        let model = ModelCpu::uniform(10, 0, 1, 1_000_000);
        let steps = cpu_steps(&machine(2, 3), &[], 10 * SECOND_NS, model);
        // 10,001 slices on each of 2 cores, and each piece waits on both cores.
        assert_eq!(steps, 10_001 * 2 + (2 * 10) * 2 + 10);
    }

    #[test]
    fn an_uncontended_machine_costs_only_the_models_pieces() {
        let model = ModelCpu::uniform(10, 5_000_000, 1, 1_000_000);
        assert_eq!(cpu_steps(&machine(2, 1), &[], 10 * SECOND_NS, model), 10);
    }

    #[test]
    fn a_cpu_load_spell_contends_only_while_it_lasts() {
        let spell = Fault::CpuLoad {
            at_ns: SECOND_NS,
            duration_ns: SECOND_NS,
            threads: Some(4),
            share_ppm: FULL_SHARE_PPM,
        };
        let model = ModelCpu::default();
        let steps = cpu_steps(&machine(2, 0), &[spell], 100 * SECOND_NS, model);
        assert_eq!(steps, 1_001 * 2);
    }
}
