//! What linking ticklab costs a clock read outside any harness run: std's `Instant::now()` and
//! `SystemTime::now()` in a binary that links ticklab with its default features (and so defines
//! libc's `clock_gettime`, handing every call outside a run on to libc), against the same reads
//! in a binary that does not link ticklab at all (examples/clock-baseline).
//!
//! Within one process the two cannot be compared: a binary has one `clock_gettime`. So this bench
//! runs two processes in turn over several pairs, each timing the same code
//! (examples/clock-baseline/src/measure.rs), and prints the medians: this binary, with
//! `TICKLAB_OS_CLOCK_COST_CHILD` set, and the baseline, which it builds first with the same
//! cargo and profile. The order within a pair alternates, so neither binary always runs first.
//!
//! Run with `cargo bench --bench os_clock_cost`.

#[path = "../examples/clock-baseline/src/measure.rs"]
mod measure;

use std::path::{Path, PathBuf};
use std::process::Command;

use measure::{Figures, median};

/// Pairs of processes, as the issue that asked for this measured.
const PAIRS: usize = 8;
/// Set in the environment of this binary's own measuring runs.
const CHILD: &str = "TICKLAB_OS_CLOCK_COST_CHILD";

fn main() {
    if std::env::var_os(CHILD).is_some() {
        // What a program that uses only the simulator's types links: enough for the linker to
        // take ticklab's definitions of libc's clock functions, as the check below confirms.
        std::hint::black_box(ticklab::sim::Platform::Linux);
        println!("{}", Figures::measure().line());
        return;
    }
    // `cargo test --benches` runs this without `--bench`: one pair shows it works.
    let pairs = if std::env::args().any(|arg| arg == "--bench") {
        PAIRS
    } else {
        1
    };
    let baseline = build_baseline();
    let this = std::env::current_exe().expect("the bench knows its own path");
    let mut linked = Vec::with_capacity(pairs);
    let mut plain = Vec::with_capacity(pairs);
    for pair in 0..pairs {
        let ticklab_first = pair % 2 == 0;
        for ticklab in [ticklab_first, !ticklab_first] {
            if ticklab {
                linked.push(run(Command::new(&this).env(CHILD, "1"), true));
            } else {
                plain.push(run(&mut Command::new(&baseline), false));
            }
        }
        let (with, without) = (linked[pair], plain[pair]);
        println!(
            "pair {}: Instant::now() {:.1} ns with ticklab, {:.1} ns without; SystemTime::now() \
             {:.1} ns with, {:.1} ns without",
            pair + 1,
            with.instant_ns,
            without.instant_ns,
            with.system_time_ns,
            without.system_time_ns
        );
    }
    report(&linked, &plain);
}

/// Builds examples/clock-baseline with the cargo and the profile this bench was built with, in
/// the same target folder, and returns the binary's path.
fn build_baseline() -> PathBuf {
    let this = std::env::current_exe().expect("the bench knows its own path");
    // This binary is <target>/<profile folder>/deps/os_clock_cost-<hash>.
    let profile_dir = this
        .parent()
        .and_then(Path::parent)
        .expect("the bench runs from cargo's target folder");
    let target_dir = profile_dir.parent().expect("a profile folder has a parent");
    let release = profile_dir
        .file_name()
        .is_some_and(|name| name == "release");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--package", "clock-baseline"])
        .args(if release {
            &["--profile", "bench"][..]
        } else {
            &[]
        })
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "examples/clock-baseline builds");
    profile_dir.join("clock-baseline")
}

/// Runs one measuring process and reads its figures, checking which `clock_gettime` it had.
fn run(command: &mut Command, ticklab: bool) -> Figures {
    let output = command.output().expect("the measuring process starts");
    assert!(output.status.success(), "the measuring process succeeds");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let figures = stdout
        .lines()
        .find_map(Figures::parse)
        .unwrap_or_else(|| panic!("the measuring process prints its figures: {stdout}"));
    // Without this, a binary whose link dropped ticklab's definitions would compare two plain
    // binaries and report no cost.
    assert_eq!(
        figures.overridden, ticklab,
        "clock_gettime is ticklab's in the binary that links it, and libc's in the other"
    );
    figures
}

fn report(linked: &[Figures], plain: &[Figures]) {
    let medians = |figures: &[Figures], read: fn(&Figures) -> f64| {
        median(&mut figures.iter().map(read).collect::<Vec<_>>())
    };
    for (name, read) in [
        (
            "Instant::now()",
            (|f: &Figures| f.instant_ns) as fn(&Figures) -> f64,
        ),
        ("SystemTime::now()", |f: &Figures| f.system_time_ns),
    ] {
        let (with, without) = (medians(linked, read), medians(plain, read));
        let slower = linked
            .iter()
            .zip(plain)
            .filter(|(with, without)| read(with) > read(without))
            .count();
        println!(
            "\n{name} outside a run, median of {} pairs: {with:.1} ns with ticklab, {without:.1} \
             ns without ({:+.1} ns, {:.2}x); slower with ticklab in {slower} of {}",
            linked.len(),
            with - without,
            with / without,
            linked.len()
        );
    }
}
