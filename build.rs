//! The built-in scenarios are compiled into the binary (`src/builtin.rs`); a scenario added to or
//! removed from `scenarios/` must rebuild it, not only an edited one.
fn main() {
    println!("cargo:rerun-if-changed=scenarios");
}
