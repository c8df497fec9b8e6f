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
    bursty: Vec<ThreadId>,
    rng: SimRng,
}

impl Load {
    pub(super) fn new(config: OutsideLoad, seed: u64) -> Self {
        Load {
            config,
            bursty: Vec::new(),
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
    for index in 0..bursts.threads {
        let thread = cpu.add_owned_thread(format!("load-{index}"), Owner::Load(index));
        cpu.load.bursty.push(thread);
        let gap_ns = cpu.load.gap_ns(bursts);
        cpu.load_wakes.push((gap_ns, index));
    }
}

/// A bursty thread's gap ended: its next burst starts.
pub(super) fn burst(cpu: &mut Cpu, index: u32, now_ns: u64) {
    let bursts = cpu.load.config.bursts.expect("only bursty threads wake");
    let thread = cpu.load.bursty[index as usize];
    let burst_ns = cpu.load.burst_ns(bursts);
    cpu.run(thread, burst_ns, CpuKind::Busy, now_ns);
}

/// A load thread finished its work: a bursty one rests until its next burst.
pub(super) fn done(cpu: &mut Cpu, index: u32, now_ns: u64) {
    let Some(bursts) = cpu.load.config.bursts else {
        return;
    };
    if index == u32::MAX {
        return;
    }
    let gap_ns = cpu.load.gap_ns(bursts);
    cpu.load_wakes.push((now_ns.saturating_add(gap_ns), index));
}
