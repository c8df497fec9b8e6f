//! Invariants: what a model must never do, whatever the faults. Each model keeps its own checks
//! next to its runner (`src/interval/invariants.rs`, ...) and counts what they catch in the
//! `invariant_violations` metric; `[expect] invariants = true` requires it to be 0.

use std::io;

use crate::expect::Metric;
use crate::trace::{Event, InvariantEvent, TraceSink};

/// The metric every model with invariants reports.
pub const VIOLATIONS: Metric = Metric::count(
    "invariant_violations",
    "times the model broke one of its invariants (docs/book/src/invariants.md lists them)",
);

/// The first violations are traced one by one; after these, only the count grows.
pub const TRACED_VIOLATIONS: u64 = 20;

/// Traces violation number `count`, `what`, if it is among the first few.
pub(crate) fn report<S: TraceSink + ?Sized>(
    sink: &mut S,
    t_ns: u64,
    count: u64,
    what: String,
) -> io::Result<()> {
    if count > TRACED_VIOLATIONS || !sink.wants_invariants() {
        return Ok(());
    }
    sink.record(&Event::Invariant(&InvariantEvent { t_ns, what }))
}
