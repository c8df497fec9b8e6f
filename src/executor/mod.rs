//! A tokio-like work-stealing executor bound into the world: runtimes whose workers share the
//! machine's cores, tasks declared as steps, connection pools owned by a runtime's driver.

pub mod arrivals;
pub mod pool;
pub mod spec;
