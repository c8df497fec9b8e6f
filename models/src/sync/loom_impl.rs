use loom::sync::Mutex;
use loom::sync::atomic::AtomicU64;

use super::{Primitives, backend};

/// loom's primitives: every interleaving of a small model, explored exhaustively. Only usable
/// inside `loom::model`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoomPrimitives;

impl Primitives for LoomPrimitives {
    type Mutex<T: Send> = Mutex<T>;
    type AtomicU64 = AtomicU64;

    fn fence(order: std::sync::atomic::Ordering) {
        loom::sync::atomic::fence(order);
    }
}

backend!(Mutex, AtomicU64, std::sync::PoisonError::into_inner);
