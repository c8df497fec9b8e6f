//! `ticklab plot`: a run is drawn to the same SVG bytes every time, the drawings carry the run's
//! own numbers, a few small ones are reviewed snapshots, README's picture is what its command
//! draws, and files are never overwritten by surprise.

use assert_cmd::Command;
use predicates::prelude::*;

fn ticklab() -> Command {
    let mut command = Command::cargo_bin("ticklab").unwrap();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Draws `files` to stdout and returns the SVG.
fn plot(files: &[&str]) -> String {
    let output = ticklab().arg("plot").args(files).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// Whether the SVG draws exactly `text` as one label (plotters writes each on a line of its own).
fn has_label(svg: &str, text: &str) -> bool {
    svg.contains(&format!("\n{text}\n"))
}

const NAIVE: &str = "scenarios/interval/windows-sleep-naive-cpu.toml";
const FIXED: &str = "scenarios/interval/windows-sleep-fixed-cpu.toml";
const LIFO_SLOT: &str = "scenarios/executor/tokio-4730-lifo-slot.toml";

#[test]
fn the_same_run_draws_the_same_bytes() {
    for file in [NAIVE, LIFO_SLOT, "scenarios/lock/vfork-memory-sweep.toml"] {
        let first = plot(&[file]);
        assert!(first.starts_with("<svg"), "{file}: {}", &first[..80]);
        assert_eq!(plot(&[file]), first, "{file}");
    }
}

#[test]
fn the_drawings_carry_the_runs_numbers() {
    // 392 ticks in the wall second after waking, at 2 ms of CPU each: 78.4% of that second.
    let naive = plot(&[NAIVE]);
    assert!(naive.contains("ticks per wall-clock second (most: 392)"));
    assert!(naive.contains("busiest such second 78.4%"));
    assert!(
        has_label(&naive, "system-suspend"),
        "the suspend's band is labelled"
    );
    let fixed = plot(&[FIXED]);
    assert!(fixed.contains("ticks per wall-clock second (most: 1)"));
    // The task left in the LIFO slot is reported once, and marked on the Gantt chart.
    // Blocking sections: `block_in_place` on the worker's row, `spawn_blocking` on the pool's.
    let blocking = plot(&["scenarios/executor/tokio-4730-block-in-place.toml"]);
    assert!(has_label(&blocking, "rt blocking pool") && has_label(&blocking, "blocking section"));
    assert!(
        blocking.contains("fill=\"#282828\""),
        "a blocking bar is drawn"
    );
    let lifo = plot(&[LIFO_SLOT]);
    assert!(has_label(&lifo, "starved (1)"));
    assert!(
        has_label(&lifo, "rt-0") && has_label(&lifo, "rt-1"),
        "one row per worker"
    );
    // A wall step shows as a jump of the wall clock: its label, and the step in the line.
    let step = plot(&["scenarios/timer/bucketed-wall-clock-wall-step-forward.toml"]);
    assert!(step.contains("wall-step by +1h"));
    let idle = plot(&["scenarios/idle/event-loop-poisson.toml"]);
    assert!(idle.contains("p50 (solid), p99, max (palest)"));
    for strategy in ["spin", "yield", "sleep0", "condvar", "sleep", "epoll"] {
        assert!(has_label(&idle, strategy), "{strategy}");
    }
    let lock = plot(&["scenarios/lock/forklock-growing-heap-fork.toml"]);
    assert!(has_label(&lock, "p99 per window") && has_label(&lock, "busy-0"));
    // One stretch of two leaders, a row per host, and the laptop's two false suspicions with
    // its peers' two right ones.
    let lease = plot(&["scenarios/hosts/lease-wall-step-forward-coordinator.toml"]);
    assert!(has_label(&lease, "two leaders (1)"));
    assert!(has_label(&lease, "node-a") && has_label(&lease, "node-b"));
    let detector = plot(&["scenarios/hosts/detector-boottime-after-suspend.toml"]);
    assert!(has_label(&detector, "suspects a peer (4)"));
    assert!(!detector.contains("two leaders"));
}

#[test]
fn several_runs_stack_in_one_drawing() {
    let both = plot(&[NAIVE, FIXED]);
    let height = |svg: &str| -> u32 {
        let start = svg.find("height=\"").unwrap() + 8;
        svg[start..].split('"').next().unwrap().parse().unwrap()
    };
    assert_eq!(
        height(&both),
        height(&plot(&[NAIVE])) + height(&plot(&[FIXED]))
    );
    assert!(
        both.contains("windows-sleep-naive-cpu.toml")
            && both.contains("windows-sleep-fixed-cpu.toml")
    );
}

#[test]
fn small_plots_match_their_reviewed_snapshots() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/plots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        insta::assert_snapshot!("tokio-4730-lifo-slot", plot(&[LIFO_SLOT]));
        insta::assert_snapshot!(
            "vfork-memory-sweep",
            plot(&["scenarios/lock/vfork-memory-sweep.toml"])
        );
    });
}

/// README.md shows docs/windows-sleep.svg and the command that draws it.
#[test]
fn the_readme_picture_is_what_its_command_draws() {
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("windows-sleep.svg");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let command =
        format!("cargo run --release -- plot {NAIVE} {FIXED} -o docs/windows-sleep.svg --force");
    assert!(readme.contains(&command), "README.md gives `{command}`");
    assert!(readme.contains("docs/windows-sleep.svg"));
    ticklab()
        .args(["plot", NAIVE, FIXED, "-o"])
        .arg(&out)
        .assert()
        .success();
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/windows-sleep.svg"
    ))
    .unwrap();
    assert!(
        std::fs::read_to_string(&out).unwrap() == committed,
        "docs/windows-sleep.svg is stale: run `{command}`"
    );
}

#[test]
fn an_existing_file_is_kept_unless_forced() {
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("mine.svg");
    std::fs::write(&out, "my own drawing").unwrap();
    ticklab()
        .args(["plot", LIFO_SLOT, "-o"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "my own drawing");
    ticklab()
        .args(["plot", LIFO_SLOT, "--force", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("<svg"));
}

#[test]
fn a_bad_scenario_is_refused_before_anything_is_written() {
    let folder = tempfile::tempdir().unwrap();
    let bad = folder.path().join("bad.toml");
    std::fs::write(&bad, "platform = \"linux\"\nrun_for = \"-1s\"\n").unwrap();
    let out = folder.path().join("out.svg");
    ticklab()
        .arg("plot")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: "));
    assert!(!out.exists());
}
