//! Which workers sit parked, in what order, and which of them holds the driver: the part of a
//! scheduler every shipped design other than tokio's multi-thread one shares.

use super::Park;

/// Parked workers, most recently parked last, and the driver's holder.
#[derive(Clone, Debug, Default)]
pub struct IdleWorkers {
    sleepers: Vec<usize>,
    /// By worker: whether it is among the sleepers, read on every schedule.
    parked: Vec<bool>,
    driver_holder: Option<usize>,
}

impl IdleWorkers {
    /// `worker` parks: the first to park takes the driver and blocks in it; the others sleep
    /// until notified.
    pub fn park(&mut self, worker: usize) -> Park {
        self.sleepers.retain(|&sleeper| sleeper != worker);
        self.sleepers.push(worker);
        if self.parked.len() <= worker {
            self.parked.resize(worker + 1, false);
        }
        self.parked[worker] = true;
        match self.driver_holder {
            None => {
                self.driver_holder = Some(worker);
                Park::OnDriver
            }
            Some(holder) if holder == worker => Park::OnDriver,
            Some(_) => Park::Asleep,
        }
    }

    /// `worker` runs again, and gives the driver back if it held it.
    pub fn unpark(&mut self, worker: usize) {
        self.sleepers.retain(|&sleeper| sleeper != worker);
        if let Some(parked) = self.parked.get_mut(worker) {
            *parked = false;
        }
        if self.driver_holder == Some(worker) {
            self.driver_holder = None;
        }
    }

    pub fn driver_holder(&self) -> Option<usize> {
        self.driver_holder
    }

    /// The last worker to park.
    pub fn last(&self) -> Option<usize> {
        self.sleepers.last().copied()
    }

    pub fn is_parked(&self, worker: usize) -> bool {
        self.parked.get(worker).copied().unwrap_or(false)
    }
}
