//! tokio's multi-thread scheduler: its three concurrent structures (a lock-free local queue per
//! worker, the global inject queue, a LIFO slot per worker), generic over the sync facade.

pub mod driver;
pub mod inject;
pub mod lifo_slot;
pub mod local_queue;
#[cfg(test)]
mod queue_tests;
pub mod scheduler;
#[cfg(test)]
mod scheduler_tests;
mod task_id;

pub use driver::{Driver, DriverKind, TIMER_RESOLUTION_NS};
pub use inject::Inject;
pub use lifo_slot::LifoSlot;
pub use local_queue::{LOCAL_QUEUE_CAPACITY, LocalQueue, QueueProtocol, TokioQueues};
pub use scheduler::{Park, Placement, Scheduler, SchedulerConfig, Source};
pub use task_id::TaskId;
