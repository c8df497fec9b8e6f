//! A host's oscillator: how fast its idea of time runs against physical time.
//!
//! Every clock of a machine counts ticks of one crystal. A crystal `drift_ppb` parts per billion
//! fast makes monotonic, boottime and wall all run that much fast, so a host with drift keeps its
//! [`Machine`](crate::Machine) in *local* nanoseconds and converts at the edge: faults and
//! messages happen in physical time, the machine's clocks read local time.

use crate::time::NS_PER_SEC;

const PPB: i128 = NS_PER_SEC as i128;

/// The most a crystal may be off: 10%, far beyond any real one (they are within 100 ppm), but a
/// bound that keeps every conversion exact and monotonic.
pub const MAX_DRIFT_PPB: i64 = 100_000_000;

/// A constant rate error: local time is `physical * (1 + drift_ppb / 1e9)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drift {
    drift_ppb: i64,
}

impl Drift {
    pub const NONE: Drift = Drift { drift_ppb: 0 };

    /// A crystal `drift_ppb` fast (or slow, if negative); clamped to ±[`MAX_DRIFT_PPB`].
    pub fn new(drift_ppb: i64) -> Self {
        Drift {
            drift_ppb: drift_ppb.clamp(-MAX_DRIFT_PPB, MAX_DRIFT_PPB),
        }
    }

    pub fn ppb(self) -> i64 {
        self.drift_ppb
    }

    /// Local time at physical time `phys_ns`. Non-decreasing in `phys_ns`.
    #[inline]
    pub fn local_ns(self, phys_ns: u64) -> u64 {
        if self.drift_ppb == 0 {
            return phys_ns;
        }
        let local = i128::from(phys_ns) * (PPB + i128::from(self.drift_ppb)) / PPB;
        local.clamp(0, i128::from(u64::MAX)) as u64
    }

    /// The first physical time at which local time reads at least `local_ns`.
    pub fn phys_at_or_after(self, local_ns: u64) -> u64 {
        if self.drift_ppb == 0 {
            return local_ns;
        }
        let rate = PPB + i128::from(self.drift_ppb);
        // ceil(local * 1e9 / rate) is the smallest p with p * rate / 1e9 >= local in exact
        // arithmetic; the floor in `local_ns` may need one step more.
        let mut phys =
            ((i128::from(local_ns) * PPB + rate - 1) / rate).clamp(0, u64::MAX.into()) as u64;
        while self.local_ns(phys) < local_ns && phys < u64::MAX {
            phys += 1;
        }
        phys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_crystal_reads_ahead_and_converts_back_to_the_first_physical_moment() {
        let fast = Drift::new(200_000); // 200 ppm
        assert_eq!(fast.local_ns(10 * NS_PER_SEC), 10 * NS_PER_SEC + 2_000_000);
        for local in [0, 1, 999, 1_000_000_007, 3_600 * NS_PER_SEC + 17] {
            let phys = fast.phys_at_or_after(local);
            assert!(fast.local_ns(phys) >= local);
            assert!(phys == 0 || fast.local_ns(phys - 1) < local);
        }
    }

    #[test]
    fn a_slow_crystal_reads_behind() {
        let slow = Drift::new(-1_000_000); // 1000 ppm slow
        assert_eq!(slow.local_ns(NS_PER_SEC), NS_PER_SEC - 1_000_000);
        let phys = slow.phys_at_or_after(NS_PER_SEC);
        assert!(phys > NS_PER_SEC);
        assert!(slow.local_ns(phys) >= NS_PER_SEC && slow.local_ns(phys - 1) < NS_PER_SEC);
    }
}
