//! # ticklab
//!
//! A deterministic testbed for timers and schedulers. Scenario files describe a machine, a design
//! under test and the faults to throw at it; runners bind each design (from `ticklab-models`) into
//! the simulated world (from `ticklab-sim`), and every run streams a trace and ends in a summary
//! checked against the scenario's `[expect]`.
//!
//! ```
//! use ticklab::run::{run_scenario, RunOptions};
//! use ticklab::trace::NoTrace;
//!
//! let scenario = ticklab::loader::parse("example", r#"
//!     about = "A Windows laptop sleeps under a naive 1 s interval"
//!     platform = "windows"
//!     run_for = "8m"
//!     [model]
//!     kind = "interval"
//!     missed_tick = "naive"
//!     period = "1s"
//!     phase = "0s"
//!     [[fault]]
//!     kind = "system-suspend"
//!     at = "15.5s"
//!     duration = "391.5s"
//! "#).unwrap();
//! let report = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace).unwrap();
//! assert_eq!(report.summary.get("ticks_after_resume"), Some(392));
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use registry::Registry;
/// The designs under test, re-exported so a crate that tests its own design needs only ticklab.
pub use ticklab_models as models;
/// The simulated world, re-exported for the same reason.
pub use ticklab_sim as sim;

/// turmoil's names, at turmoil's paths: code written against turmoil (`turmoil::net::TcpStream`,
/// `turmoil::lookup`, `turmoil::elapsed`) runs unchanged on [`service`] once the crate depends
/// on ticklab under turmoil's name (`turmoil = { package = "ticklab", ... }`): only the set-up
/// changes, from `turmoil::Builder` to `turmoil::service::Service`.
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use service::{
    Result, elapsed, in_simulation,
    net::{self, ToIpAddr, ToSocketAddrs, lookup, reverse_lookup},
    sim_elapsed, since_epoch,
};

/// The book's and README's Rust samples, as doc tests: `mdbook test` cannot link ticklab, so
/// `cargo test --doc` compiles and runs them here (tests/book.rs checks the scenario samples).
#[cfg(doctest)]
mod book {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/book/src/harness.md")]
    struct Harness;
    #[doc = include_str!("../docs/book/src/outside-designs.md")]
    struct OutsideDesigns;
    #[doc = include_str!("../docs/book/src/editor.md")]
    struct Editor;
}

#[cfg(feature = "battery")]
#[cfg_attr(docsrs, doc(cfg(feature = "battery")))]
pub mod battery;
mod builtin;
#[cfg(target_os = "linux")]
pub mod calibrate;
pub mod cli;
mod cpu_report;
pub mod executor;
pub mod expect;
pub mod hosts;
pub mod idle;
pub mod interval;
mod invariant;
mod latencies;
pub mod loader;
pub mod lock;
pub mod machine;
pub mod measure;
pub mod memory;
pub mod model;
pub mod output;
pub mod plot;
pub mod profile;
pub mod reference;
pub mod registry;
pub mod report;
pub mod run;
mod runner;
pub mod scenario;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod service;
pub mod sweep;
pub mod timer;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod tokio;
pub mod trace;
