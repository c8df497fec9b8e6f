//! When the events of an idle scenario arrive, from the seeded RNG.

use rand_distr::{Distribution, Exp};
use ticklab_sim::SimRng;

use super::spec::Arrival;

/// Every arrival before `end_ns`, in order.
pub(crate) fn arrivals(arrival: Arrival, end_ns: u64, seed: u64) -> Vec<u64> {
    let mut times = Vec::new();
    match arrival {
        Arrival::Periodic { every_ns } => {
            times.extend((1..).map(|n| n * every_ns).take_while(|&t| t < end_ns));
        }
        Arrival::Poisson { mean_ns } => {
            let gaps = Exp::new(1.0 / mean_ns as f64).expect("a positive mean gives a valid rate");
            let mut rng = SimRng::for_purpose(seed, "idle-arrivals");
            let mut t_ns = 0u64;
            loop {
                t_ns = t_ns.saturating_add((gaps.sample(&mut rng) as u64).max(1));
                if t_ns >= end_ns {
                    break;
                }
                times.push(t_ns);
            }
        }
        Arrival::Bursts {
            every_ns,
            size,
            spacing_ns,
        } => {
            for start_ns in (1..).map(|n| n * every_ns).take_while(|&t| t < end_ns) {
                times.extend(
                    (0..u64::from(size))
                        .map(|i| start_ns + i * spacing_ns)
                        .take_while(|&t| t < end_ns),
                );
            }
            times.sort_unstable();
        }
    }
    times
}

/// How many arrivals a run can have, before drawing them: Poisson counts get generous room.
pub(crate) fn arrivals_bound(arrival: Arrival, end_ns: u64) -> u128 {
    match arrival {
        Arrival::Periodic { every_ns } => u128::from(end_ns / every_ns + 1),
        Arrival::Poisson { mean_ns } => 2 * u128::from(end_ns / mean_ns) + 1_000,
        Arrival::Bursts { every_ns, size, .. } => {
            u128::from(end_ns / every_ns + 1) * u128::from(size)
        }
    }
}
