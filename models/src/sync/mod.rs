//! The sync facade: the few shared-memory primitives the designs use, behind one trait so that the
//! same code runs on std threads, under loom's exhaustive interleavings and under shuttle's
//! randomised schedules.
//!
//! Designs are generic over [`Primitives`] instead of switching on a `cfg`, so a plain
//! `cargo test --workspace` can run std, loom and shuttle checks side by side. Locking takes a
//! closure (`lock.with(|state| ...)`), so no guard type leaks out of the facade: each backend keeps
//! its own guards inside.
//!
//! ```
//! use std::sync::atomic::Ordering;
//! use ticklab_models::sync::{Atomic64, Lock, Primitives, StdPrimitives};
//!
//! fn bump<S: Primitives>(count: &S::AtomicU64, log: &S::Mutex<Vec<u64>>) {
//!     let seen = count.fetch_add(1, Ordering::AcqRel);
//!     log.with(|log| log.push(seen));
//! }
//!
//! let count = <StdPrimitives as Primitives>::AtomicU64::new(0);
//! let log = <StdPrimitives as Primitives>::Mutex::new(Vec::new());
//! bump::<StdPrimitives>(&count, &log);
//! assert_eq!(log.with(|log| log.clone()), [0]);
//! ```

#[cfg(feature = "loom")]
mod loom_impl;
#[cfg(feature = "shuttle")]
mod shuttle_impl;
mod std_impl;

use std::sync::atomic::Ordering;

#[cfg(feature = "loom")]
pub use loom_impl::LoomPrimitives;
#[cfg(feature = "shuttle")]
pub use shuttle_impl::ShuttlePrimitives;
pub use std_impl::StdPrimitives;

/// A family of primitives: std's, loom's or shuttle's.
pub trait Primitives: Send + Sync + 'static {
    type Mutex<T: Send>: Lock<T>;
    type AtomicU64: Atomic64;

    /// A memory fence. loom treats `SeqCst` loads and stores as acquire and release only, but
    /// models a `SeqCst` fence in full, so a store-then-load handshake between two threads (each
    /// stores, then reads what the other stored) needs one to be checked.
    fn fence(order: Ordering) {
        std::sync::atomic::fence(order);
    }
}

/// A mutex, used only through a closure.
pub trait Lock<T>: Send + Sync {
    fn new(value: T) -> Self;

    /// Runs `f` with the lock held. A lock poisoned by a panic elsewhere is still entered: the
    /// designs keep their state consistent at every panic point, and a poisoned timer must still
    /// be stoppable.
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R;
}

/// A 64-bit atomic integer.
pub trait Atomic64: Send + Sync {
    fn new(value: u64) -> Self;
    fn load(&self, order: Ordering) -> u64;
    fn store(&self, value: u64, order: Ordering);
    fn fetch_add(&self, value: u64, order: Ordering) -> u64;
    fn swap(&self, value: u64, order: Ordering) -> u64;
    fn compare_exchange(
        &self,
        current: u64,
        new: u64,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u64, u64>;
}

/// Implements [`Lock`] and [`Atomic64`] for one backend's types.
macro_rules! backend {
    ($mutex:ident, $atomic:ty, $poisoned:expr) => {
        impl<T: Send> $crate::sync::Lock<T> for $mutex<T> {
            fn new(value: T) -> Self {
                $mutex::new(value)
            }

            fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
                let mut guard = self.lock().unwrap_or_else($poisoned);
                f(&mut guard)
            }
        }

        impl $crate::sync::Atomic64 for $atomic {
            fn new(value: u64) -> Self {
                <$atomic>::new(value)
            }

            fn load(&self, order: std::sync::atomic::Ordering) -> u64 {
                <$atomic>::load(self, order)
            }

            fn store(&self, value: u64, order: std::sync::atomic::Ordering) {
                <$atomic>::store(self, value, order)
            }

            fn fetch_add(&self, value: u64, order: std::sync::atomic::Ordering) -> u64 {
                <$atomic>::fetch_add(self, value, order)
            }

            fn swap(&self, value: u64, order: std::sync::atomic::Ordering) -> u64 {
                <$atomic>::swap(self, value, order)
            }

            fn compare_exchange(
                &self,
                current: u64,
                new: u64,
                success: std::sync::atomic::Ordering,
                failure: std::sync::atomic::Ordering,
            ) -> Result<u64, u64> {
                <$atomic>::compare_exchange(self, current, new, success, failure)
            }
        }
    };
}

pub(crate) use backend;
