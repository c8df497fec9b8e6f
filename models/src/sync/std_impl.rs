use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use super::{Primitives, backend};

/// std's primitives: for the simulator, real threads and benchmarks.
#[derive(Clone, Copy, Debug, Default)]
pub struct StdPrimitives;

impl Primitives for StdPrimitives {
    type Mutex<T: Send> = Mutex<T>;
    type AtomicU64 = AtomicU64;
}

backend!(Mutex, AtomicU64, std::sync::PoisonError::into_inner);
