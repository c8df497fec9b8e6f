//! The scheduler designs ticklab ships besides tokio's multi-thread one, each from its source.

pub mod async_executor;
pub mod current_thread;
pub mod go_runtime;
pub mod thread_per_core;

pub use async_executor::{AsyncExecutor, AsyncExecutorDesign};
pub use current_thread::{CurrentThread, TokioCurrentThread};
pub use go_runtime::{GoRuntime, GoScheduler};
pub use thread_per_core::{ThreadPerCore, ThreadPerCoreDesign};

#[cfg(test)]
mod tests;
