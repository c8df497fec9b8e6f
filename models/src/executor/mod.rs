//! Executors' schedulers as designs ([`SchedulerDesign`]): tokio's multi-thread scheduler, its
//! three concurrent structures (a lock-free local queue per worker, the global inject queue, a
//! LIFO slot per worker) generic over the sync facade, and the other designs built from them.

pub mod design;
pub mod designs;
pub mod driver;
mod idle_workers;
pub mod inject;
pub mod lifo_slot;
pub mod local_queue;
#[cfg(test)]
mod queue_tests;
pub mod scheduler;
#[cfg(test)]
mod scheduler_tests;
mod task_id;

pub use design::{BuildScheduler, Park, Placement, SchedulerDesign, SchedulerPromise, Source};
pub use driver::{Driver, DriverKind, TIMER_RESOLUTION_NS};
pub use idle_workers::IdleWorkers;
pub use inject::Inject;
pub use lifo_slot::LifoSlot;
pub use local_queue::{LOCAL_QUEUE_CAPACITY, LocalQueue, QueueProtocol, TokioQueues};
pub use scheduler::{Scheduler, SchedulerConfig, TokioMultiThread};
pub use task_id::TaskId;
