//! Outside CPU load: threads of other programs that compete for the same cores as the model's.
//!
//! - Busy threads compute for the whole run.
//! - Bursty threads alternate bursts of CPU and idle gaps, both of exponentially distributed
//!   length, so that each is busy the load's share of the time when it has a core to itself:
//!   other programs' work arriving at random, such as a machine at 85% CPU.

use rand_distr::{Distribution, Exp};
use ticklab_sim::{CpuKind, SimRng, ThreadId};

use super::config::{Bursts, OutsideLoad};
use super::cpu::{Cpu, Owner};

/// The load's threads as they run.
#[derive(Debug)]
pub struct Load {
    config: OutsideLoad,
    /// Every bursty thread: the load's own, then those of `cpu-load` faults with a `share`.
    bursty: Vec<Bursty>,
    /// The bursty threads of `cpu-load` faults under way, by index in `bursty`, latest last.
    spells: Vec<u32>,
    /// How long a burst of a `cpu-load` fault's thread lasts on average: the machine's
    /// `load_burst`.
    spell_burst_ns: u64,
    rng: SimRng,
}

/// A thread that computes in bursts, and how.
#[derive(Debug)]
struct Bursty {
    thread: ThreadId,
    bursts: Bursts,
    /// A thread of a `cpu-load` fault that ended rests for good: a burst already filed for it
    /// never starts.
    active: bool,
}

impl Load {
    pub(super) fn new(config: OutsideLoad, seed: u64) -> Self {
        Load {
            config,
            bursty: Vec::new(),
            spells: Vec::new(),
            spell_burst_ns: config
                .bursts
                .map_or(super::spec::DEFAULT_LOAD_BURST_NS, |bursts| {
                    bursts.mean_burst_ns
                }),
            rng: SimRng::for_purpose(seed, "machine-load"),
        }
    }

    fn burst_ns(&mut self, bursts: Bursts) -> u64 {
        draw_ns(&mut self.rng, bursts.mean_burst_ns)
    }

    fn gap_ns(&mut self, bursts: Bursts) -> u64 {
        let share = f64::from(bursts.share_ppm) / 1e6;
        let mean_gap_ns = bursts.mean_burst_ns as f64 * (1.0 - share) / share;
        draw_ns(&mut self.rng, mean_gap_ns.round() as u64)
    }
}

/// An exponentially distributed length with mean `mean_ns`, at least 1 ns.
fn draw_ns(rng: &mut SimRng, mean_ns: u64) -> u64 {
    if mean_ns == 0 {
        return 0;
    }
    let exp = Exp::new(1.0 / mean_ns as f64).expect("a positive rate");
    (exp.sample(rng).round() as u64).max(1)
}

/// Starts the load: busy threads at once, each bursty thread after a gap.
pub(super) fn start(cpu: &mut Cpu, run_for_ns: u64) {
    let config = cpu.load.config;
    for index in 0..config.busy_threads {
        let thread = cpu.add_owned_thread(format!("load-busy-{index}"), Owner::Load(u32::MAX));
        cpu.run(thread, run_for_ns, CpuKind::Busy, 0);
    }
    let Some(bursts) = config.bursts else {
        return;
    };
    for _ in 0..bursts.threads {
        add_bursty(cpu, bursts, 0, |index| format!("load-{index}"));
    }
}

/// A new bursty thread, resting until its first burst `now_ns` plus a gap from now.
fn add_bursty(cpu: &mut Cpu, bursts: Bursts, now_ns: u64, name: impl Fn(usize) -> String) {
    let index = cpu.load.bursty.len() as u32;
    let thread = cpu.add_owned_thread(name(index as usize), Owner::Load(index));
    cpu.load.bursty.push(Bursty {
        thread,
        bursts,
        active: true,
    });
    let gap_ns = cpu.load.gap_ns(bursts);
    cpu.load_wakes.push((now_ns.saturating_add(gap_ns), index));
}

/// A `cpu-load` fault with a share starts: `threads` new bursty threads, each busy `share_ppm`
/// of its time, until it ends.
pub(super) fn start_spell(cpu: &mut Cpu, threads: u32, share_ppm: u32, now_ns: u64) {
    let bursts = Bursts {
        threads: 1,
        share_ppm,
        mean_burst_ns: cpu.load.spell_burst_ns,
    };
    for _ in 0..threads {
        let index = cpu.load.bursty.len() as u32;
        add_bursty(cpu, bursts, now_ns, |index| {
            format!("cpu-load-share-{index}")
        });
        cpu.load.spells.push(index);
    }
}

/// A `cpu-load` fault with a share ends: `threads` of the bursty threads of that share stop,
/// the latest started first.
pub(super) fn stop_spell(cpu: &mut Cpu, threads: u32, share_ppm: u32, now_ns: u64) {
    for _ in 0..threads {
        let found = cpu
            .load
            .spells
            .iter()
            .rposition(|&index| cpu.load.bursty[index as usize].bursts.share_ppm == share_ppm);
        let Some(position) = found else {
            return;
        };
        let index = cpu.load.spells.remove(position);
        let bursty = &mut cpu.load.bursty[index as usize];
        bursty.active = false;
        let thread = bursty.thread;
        cpu.cores.stop(thread, now_ns, &mut cpu.slice_ends);
    }
}

/// A bursty thread's gap ended: its next burst starts, unless its `cpu-load` fault has ended.
pub(super) fn burst(cpu: &mut Cpu, index: u32, now_ns: u64) {
    let bursty = &cpu.load.bursty[index as usize];
    if !bursty.active {
        return;
    }
    let (thread, bursts) = (bursty.thread, bursty.bursts);
    let burst_ns = cpu.load.burst_ns(bursts);
    cpu.run(thread, burst_ns, CpuKind::Busy, now_ns);
}

/// A load thread finished its work: a bursty one rests until its next burst.
pub(super) fn done(cpu: &mut Cpu, index: u32, now_ns: u64) {
    if index == u32::MAX {
        return;
    }
    let bursty = &cpu.load.bursty[index as usize];
    if !bursty.active {
        return;
    }
    let bursts = bursty.bursts;
    let gap_ns = cpu.load.gap_ns(bursts);
    cpu.load_wakes.push((now_ns.saturating_add(gap_ns), index));
}

#[cfg(test)]
mod tests {
    use ticklab_sim::{EdgeEffect, LoadEdge};

    use crate::machine::config::MachineConfig;
    use crate::machine::cpu::{Cpu, CpuWake, SliceOutcome};

    const SECOND_NS: u64 = 1_000_000_000;

    fn busy_ns(cpu: &Cpu) -> u64 {
        cpu.cores.core_busy_ns().iter().sum()
    }

    /// Steps `cpu` alone up to `to_ns`, as the drive loop does, and returns how long its cores
    /// were busy meanwhile, as charged at slice ends.
    fn step(cpu: &mut Cpu, queue: &mut Vec<(u64, u64, CpuWake)>, to_ns: u64) -> u64 {
        let busy_before_ns = busy_ns(cpu);
        let mut filed = 0u64;
        loop {
            cpu.drain_wakes(|at_ns, wake| {
                filed += 1;
                queue.push((at_ns, filed, wake));
            });
            queue.sort_by_key(|&(at_ns, order, _)| std::cmp::Reverse((at_ns, order)));
            match queue.last() {
                Some(&(at_ns, _, _)) if at_ns < to_ns => {}
                _ => break,
            }
            let (at_ns, _, wake) = queue.pop().expect("a wake");
            match wake {
                CpuWake::Slice(ticket) => {
                    if let SliceOutcome::LoadDone(index) = cpu.slice_ended(ticket, at_ns) {
                        cpu.load_done(index, at_ns);
                    }
                }
                CpuWake::Load(index) => cpu.load_burst(index, at_ns),
            }
        }
        busy_ns(cpu) - busy_before_ns
    }

    #[test]
    fn a_spell_with_a_share_keeps_its_cores_that_busy_and_then_rests_for_good() {
        let mut cpu = Cpu::new(&MachineConfig::with_cores(2, 1_000_000), 7, 30 * SECOND_NS);
        let mut queue = Vec::new();
        let edge = |cpu_load| EdgeEffect {
            cpu_load: Some(cpu_load),
            ..EdgeEffect::default()
        };
        cpu.on_edge(
            &edge(LoadEdge::Starts {
                threads: None,
                share_ppm: 250_000,
            }),
            0,
        );
        let spell_busy_ns = step(&mut cpu, &mut queue, 10 * SECOND_NS);
        // A thread per core, each busy a quarter of its time: half a core of the two, give or
        // take the randomness of 1,000 bursts a thread.
        let share = spell_busy_ns as f64 / (20 * SECOND_NS) as f64;
        assert!((0.22..0.28).contains(&share), "{share}");
        cpu.on_edge(
            &edge(LoadEdge::Stops {
                threads: None,
                share_ppm: 250_000,
            }),
            10 * SECOND_NS,
        );
        let stopped_ns = busy_ns(&cpu);
        assert_eq!(step(&mut cpu, &mut queue, 20 * SECOND_NS), 0);
        assert_eq!(busy_ns(&cpu), stopped_ns);
    }
}
