//! Times std's clock reads in a binary without ticklab, and prints the figures on one line for
//! benches/os_clock_cost.rs, which runs this binary in turn with one that links ticklab.

mod measure;

fn main() {
    println!("{}", measure::Figures::measure().line());
}
