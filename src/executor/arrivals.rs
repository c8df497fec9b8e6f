//! When a task group's instances arrive: all at once, periodically, or with exponential gaps
//! (a Poisson process) drawn from the group's own seeded stream.

use rand_distr::{Distribution, Exp};
use ticklab_sim::SimRng;

use super::spec::{Arrival, GroupConfig};

/// The arrivals of one group still to come.
#[derive(Clone, Debug)]
pub struct Arrivals {
    arrival: Arrival,
    next_ns: u64,
    left: u32,
    rng: SimRng,
}

impl Arrivals {
    /// `group`'s arrivals under `seed`; the stream is the group's own, so adding a group never
    /// moves another's arrivals.
    pub fn new(group: &GroupConfig, seed: u64) -> Self {
        let mut arrivals = Arrivals {
            arrival: group.arrival,
            next_ns: group.start_ns,
            left: group.count,
            rng: SimRng::for_purpose(seed, &format!("arrivals/{}", group.name)),
        };
        if let Arrival::Poisson { .. } = arrivals.arrival {
            arrivals.next_ns = arrivals.next_ns.saturating_add(arrivals.gap_ns());
        }
        arrivals
    }

    /// The next arrival's physical time, consuming it; `None` once every instance has arrived.
    pub fn next_ns(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let at_ns = self.next_ns;
        self.next_ns = at_ns.saturating_add(self.gap_ns());
        Some(at_ns)
    }

    fn gap_ns(&mut self) -> u64 {
        match self.arrival {
            Arrival::AtOnce => 0,
            Arrival::Every { period_ns } => period_ns,
            Arrival::Poisson { mean_ns } => {
                let exponential =
                    Exp::new(1.0 / mean_ns as f64).expect("a positive mean gives a valid rate");
                exponential.sample(&mut self.rng).round() as u64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(arrival: Arrival, count: u32) -> GroupConfig {
        GroupConfig {
            name: "g".into(),
            runtime: 0,
            count,
            start_ns: 100,
            arrival,
            steps: Vec::new(),
            repeat: 1,
        }
    }

    fn all(mut arrivals: Arrivals) -> Vec<u64> {
        std::iter::from_fn(|| arrivals.next_ns()).collect()
    }

    #[test]
    fn at_once_and_periodic_arrivals_start_at_start() {
        assert_eq!(
            all(Arrivals::new(&group(Arrival::AtOnce, 3), 0)),
            [100, 100, 100]
        );
        assert_eq!(
            all(Arrivals::new(
                &group(Arrival::Every { period_ns: 10 }, 3),
                0
            )),
            [100, 110, 120]
        );
    }

    #[test]
    fn poisson_arrivals_have_the_mean_gap_and_repeat_under_a_seed() {
        let poisson = group(Arrival::Poisson { mean_ns: 1_000_000 }, 10_000);
        let times = all(Arrivals::new(&poisson, 7));
        assert_eq!(times, all(Arrivals::new(&poisson, 7)));
        assert_ne!(times, all(Arrivals::new(&poisson, 8)));
        let mean_gap_ns = (times[times.len() - 1] - 100) as f64 / times.len() as f64;
        assert!(
            (950_000.0..1_050_000.0).contains(&mean_gap_ns),
            "mean gap {mean_gap_ns}"
        );
    }
}
