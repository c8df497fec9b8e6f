//! ticklab's rivals on the interval workload: tokio set up several ways, and bare queues.

pub mod floors;
mod quad_heap;
pub mod tokio_setups;
