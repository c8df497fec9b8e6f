//! What the design holds per timer, measured with an allocator that counts every byte: the run's
//! memory bound counts each timer at `BuildTimerDesign::BYTES_PER_TIMER`, so the figure must
//! cover it. One test in its own binary: the allocator counts the whole process.

use sorted_vec_timer::SortedVec;
use ticklab::measure::{CountingAllocator, bytes_per_timer};
use ticklab::models::timer::BuildTimerDesign;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn bytes_per_timer_covers_what_a_timer_holds() {
    // Just past a power of two, where the vector has doubled and held its old and new buffers
    // at once.
    let measured = bytes_per_timer::<SortedVec>((1 << 16) + 1);
    eprintln!("{measured}");
    assert!(
        measured.per_timer <= SortedVec::BYTES_PER_TIMER,
        "{measured}"
    );
    assert!(
        measured.per_timer * 2 > SortedVec::BYTES_PER_TIMER,
        "{measured}"
    );
}
