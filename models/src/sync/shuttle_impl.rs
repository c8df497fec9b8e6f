use shuttle::sync::Mutex;
use shuttle::sync::atomic::AtomicU64;

use super::{Primitives, backend};

/// shuttle's primitives: randomised (and PCT) schedules of larger models. Only usable inside a
/// shuttle test.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShuttlePrimitives;

impl Primitives for ShuttlePrimitives {
    type Mutex<T: Send> = Mutex<T>;
    type AtomicU64 = AtomicU64;
}

backend!(Mutex, AtomicU64, std::sync::PoisonError::into_inner);
