//! `ticklab report` writes its page piece by piece: neither the page nor a copy of any drawing
//! is held whole, so a report of big drawings holds each drawing once. Checked against an
//! allocator that counts every byte.
//!
//! One test in its own binary: the allocator counts every thread of the process.

use ticklab::measure::{CountingAllocator, live_bytes, peak_bytes, reset_peak};
use ticklab::report::{Entry, write_html};

#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator;

const DRAWING_BYTES: usize = 16 << 20;
const DRAWINGS: usize = 4;

#[test]
fn a_page_of_big_drawings_is_written_without_holding_it_or_copying_them() {
    let svg = format!("<svg>{}</svg>", " ".repeat(DRAWING_BYTES));
    let entries: Vec<Entry> = (0..DRAWINGS)
        .map(|index| Entry {
            source: format!("big-{index}.toml"),
            model: "interval".to_string(),
            result: "ok".to_string(),
            detail: "no expectations".to_string(),
            svg: Some(svg.clone()),
        })
        .collect();
    let before = live_bytes();
    reset_peak();
    let written = write_html(&mut std::io::sink(), &entries, None).unwrap();
    let allocated = peak_bytes() - before;
    assert!(written as usize > DRAWINGS * DRAWING_BYTES);
    // The table and the figures' captions are small; one drawing's copy would be 16 MiB.
    assert!(
        allocated < 1 << 20,
        "writing a page of {DRAWINGS} drawings of {DRAWING_BYTES} B allocated {allocated} B"
    );
}
