//! The world's seeded randomness, split by purpose.
//!
//! Each purpose ("interval-periods", "fault-jitter", ...) gets its own ChaCha8 stream under the
//! run's seed. Adding a draw for one purpose therefore never shifts the numbers another purpose
//! sees, and old seeds keep reproducing old traces.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A deterministic random stream. Implements [`RngCore`], so `rand`'s distributions work on it.
#[derive(Clone, Debug)]
pub struct SimRng {
    inner: ChaCha8Rng,
}

impl SimRng {
    /// The stream for `purpose` under `seed`.
    pub fn for_purpose(seed: u64, purpose: &str) -> Self {
        let mut inner = ChaCha8Rng::seed_from_u64(seed);
        inner.set_stream(stable_hash(purpose));
        SimRng { inner }
    }

    /// A uniform draw from `low..=high`.
    pub fn in_range(&mut self, low: u64, high: u64) -> u64 {
        use rand::Rng;
        self.inner.random_range(low..=high)
    }
}

impl RngCore for SimRng {
    fn next_u32(&mut self) -> u32 {
        self.inner.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.inner.fill_bytes(dest)
    }
}

/// FNV-1a: stable across Rust versions and platforms, unlike `std`'s hashers.
fn stable_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_purpose_give_the_same_stream() {
        let draws = |seed, purpose| {
            let mut rng = SimRng::for_purpose(seed, purpose);
            (0..8).map(|_| rng.in_range(10, 1_000)).collect::<Vec<_>>()
        };
        assert_eq!(draws(7, "periods"), draws(7, "periods"));
        assert_ne!(draws(7, "periods"), draws(7, "phases"));
        assert_ne!(draws(7, "periods"), draws(8, "periods"));
    }

    #[test]
    fn streams_are_pinned_across_releases() {
        // A changed value here means old seeds no longer replay old traces: that needs a note in
        // the changelog, not a silent update.
        let mut rng = SimRng::for_purpose(1, "interval-periods");
        let first: Vec<_> = (0..4).map(|_| rng.in_range(10, 1_000)).collect();
        assert_eq!(first, PINNED_DRAWS);
    }

    const PINNED_DRAWS: [u64; 4] = [604, 236, 414, 768];
}
