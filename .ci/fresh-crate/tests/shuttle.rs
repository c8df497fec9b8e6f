//! ticklab's shuttle battery, in a test binary of its own: shuttle's panic hook stays installed
//! once it has run, and would report every panic loom catches in the binary beside it.

use my_timers::ScanVec;

#[test]
fn scan_vec_passes_the_shuttle_battery() {
    ticklab::battery::shuttle::<ScanVec>();
}
