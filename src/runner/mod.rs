//! What every model's runner shares, below the machine and the kinds: the bounds a run is given
//! ([`options`]), how it fails ([`error`]), how it starts ([`start`]), the checks that stop a
//! run that would not end or would not fit ([`memory_check`], [`watchdog`]), and the tracing of
//! fault edges ([`faults`]). The top level that loads a scenario and runs it is [`crate::run`].

pub mod error;
pub(crate) mod faults;
pub(crate) mod memory_check;
pub mod options;
pub(crate) mod start;
pub(crate) mod watchdog;
