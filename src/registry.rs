//! What scenario files can name, in one place: the model kinds ([`KINDS`]), and the timer
//! designs (built in, planted in test builds, or brought by a user's crate).
//!
//! A program that tests its own design builds on [`Registry::builtin`] and hands the result to
//! [`crate::cli::main_with`], so its scenario files, sweeps, plots and reports can name it:
//!
//! ```
//! use ticklab::Registry;
//! use ticklab::models::timer::builtin::GlobalHeapDesign;
//! use ticklab::models::timer::{BuildTimerDesign, GlobalHeap, TimerParams};
//! use ticklab::models::sync::Primitives;
//!
//! struct MyHeap;
//! impl BuildTimerDesign for MyHeap {
//!     const NAME: &'static str = "my-heap";
//!     const ABOUT: &'static str = "a global heap under another name";
//!     type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;
//!     fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
//!         GlobalHeapDesign::build(params)
//!     }
//! }
//!
//! let registry = Registry::builtin().with_timer_design::<MyHeap>();
//! let scenario = registry.parse("mine.toml", r#"
//!     about = "my heap under RPC timeouts"
//!     platform = "linux"
//!     run_for = "1s"
//!     [model]
//!     kind = "timer"
//!     design = "my-heap"
//!     clock = "monotonic"
//!     clients = 2
//!     call_interval = "10ms"
//!     timeout = "50ms"
//!     latency = "1ms"
//! "#).unwrap();
//! let report = ticklab::run::run_scenario(&scenario, &Default::default(), &mut ticklab::trace::NoTrace).unwrap();
//! assert_eq!(report.summary.get("calls"), Some(200));
//! ```

pub(crate) mod designs;
pub(crate) mod kinds;
mod register;
pub(crate) mod schedulers;

pub use crate::model::{Kind, ModelKind};
pub use designs::{Registry, TimerDesignEntry};
pub use kinds::{KINDS, KindEntry, kind, kind_names};
pub use schedulers::SchedulerEntry;
