//! The memory check every runner makes before it starts: a run whose largest footprint could pass
//! its bound is refused, and one that fits waits for its share of the process's budget.

use super::error::RunError;
use super::options::RunOptions;
use crate::memory::Footprint;
use crate::memory::budget::{self, Admission};
use crate::scenario::setting::Setting;

/// What a footprint calls the wakes waiting in the event queue.
pub const WAKES: &str = "wakes waiting";

/// Refuses a run whose largest possible footprint could pass its memory bound, or that could
/// have more wakes waiting at once than the event queue holds; else waits until the run fits
/// the process's memory budget beside the runs going in parallel ([`budget`]). The run holds the
/// admission it returns until it ends.
pub(crate) fn check_memory(
    peak: &Footprint,
    options: &RunOptions,
    scenario: &Setting,
    design: &str,
    fewer_by: &'static str,
) -> Result<Admission<'static>, RunError> {
    let max_bytes = options.max_memory_for(scenario);
    let wakes = peak.count_of(WAKES);
    if wakes > ticklab_sim::MAX_PENDING_WAKES as u128 {
        return Err(RunError::TooManyWakes {
            design: design.to_string(),
            at_ns: None,
            wakes,
        });
    }
    let bytes_bound = peak.bytes();
    if bytes_bound > u128::from(max_bytes) {
        return Err(RunError::TooMuchMemory {
            bytes_bound,
            max_bytes,
            footprint: peak.to_string(),
            fewer_by,
        });
    }
    let claim_bytes = budget::claim_bytes(bytes_bound, max_bytes, options.max_memory_bytes);
    Ok(budget::PROCESS.admit(claim_bytes, options.max_memory_bytes))
}
