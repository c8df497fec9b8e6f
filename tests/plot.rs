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
    // One stretch of two leaders, and a row per host.
    let lease = plot(&["scenarios/hosts/lease-wall-step-forward-coordinator.toml"]);
    assert!(has_label(&lease, "two leaders (1)"));
    assert!(has_label(&lease, "node-a") && has_label(&lease, "node-b"));
    let detector = plot(&["scenarios/hosts/detector-boottime-after-suspend.toml"]);
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

/// A `<text>` element: where it is anchored, how, and what it says.
#[derive(Debug)]
struct Label {
    x: f64,
    y: f64,
    anchor: String,
    text: String,
}

fn attribute(element: &str, name: &str) -> Option<String> {
    let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = start + element[start..].find('"')?;
    Some(element[start..end].to_string())
}

fn labels(svg: &str) -> Vec<Label> {
    svg.split("<text ")
        .skip(1)
        .map(|element| {
            let element = &format!(" {element}");
            let number = |name| attribute(element, name).unwrap().parse().unwrap();
            let body = &element[element.find('>').unwrap() + 1..element.find("</text>").unwrap()];
            Label {
                x: number("x"),
                y: number("y"),
                anchor: attribute(element, "text-anchor").unwrap(),
                text: body.trim().to_string(),
            }
        })
        .collect()
}

/// The horizontal lines across a panel's plotting area, as (left x, top-down y), longest first.
fn panel_lines(svg: &str) -> Vec<(f64, f64)> {
    let mut lines: Vec<(f64, f64, f64)> = svg
        .split("<line ")
        .skip(1)
        .filter_map(|element| {
            let element = &format!(" {element}");
            let number = |name| attribute(element, name)?.parse::<f64>().ok();
            let (x1, x2, y1, y2) = (number("x1")?, number("x2")?, number("y1")?, number("y2")?);
            (y1 == y2 && x2 - x1 > 500.0).then_some((x1, y1, x2 - x1))
        })
        .collect();
    lines.sort_by(|a, b| a.1.total_cmp(&b.1));
    lines.into_iter().map(|(x, y, _)| (x, y)).collect()
}

#[test]
fn a_hosts_plot_has_a_row_per_host_its_name_beside_it_and_no_empty_rows() {
    let svg = plot(&["scenarios/hosts/detector-boottime-after-suspend.toml"]);
    let lines = panel_lines(&svg);
    let left = lines[0].0;
    let names = ["laptop", "node-1", "node-2", "node-3", "node-4"];
    // A line above each row and one below the last: no row without a host.
    assert_eq!(lines.len(), names.len() + 1, "{lines:?}");
    for (row, name) in names.iter().enumerate() {
        let label = labels(&svg)
            .into_iter()
            .find(|label| label.text == *name)
            .unwrap_or_else(|| panic!("no label {name}"));
        // Right-aligned left of the panel, where no bar or mark is drawn, and inside its row.
        assert_eq!(label.anchor, "end", "{label:?}");
        assert!(label.x < left, "{label:?} reaches into the panel at {left}");
        let (top, bottom) = (lines[row].1, lines[row + 1].1);
        assert!(
            top < label.y && label.y < bottom,
            "{label:?} outside {top}..{bottom}"
        );
    }
}

#[test]
fn false_and_rightful_suspicions_have_marks_and_legend_entries_of_their_own() {
    let svg = plot(&["scenarios/hosts/detector-boottime-after-suspend.toml"]);
    // The laptop wakes and suspects both peers it watches; they rightly suspected it asleep.
    assert!(has_label(&svg, "false suspicion (2)"), "{svg}");
    assert!(has_label(&svg, "rightful suspicion (2)"));
    // The false ones carry a dot, on the panel and in the legend: two marks and one sample.
    let dots = svg.matches("<circle").count();
    assert_eq!(dots, 3, "{svg}");
    let false_color = svg
        .split("<circle")
        .nth(1)
        .and_then(|circle| attribute(circle, "fill"))
        .unwrap();
    let rightful_strokes = svg.matches("stroke=\"#148C96\"").count();
    assert!(
        rightful_strokes >= 3,
        "two marks and a sample: {rightful_strokes}"
    );
    assert_ne!(false_color, "#148C96");
    assert_eq!(svg.matches(&format!("stroke=\"{false_color}\"")).count(), 3);
}

/// A two-hour run of hosts whose description takes three lines.
const LONG_ABOUT: &str = "Fifty hosts heartbeat for two hours on the event network while a laptop \
    sleeps for twenty minutes and two partitions of one pair overlap; the detector counts on \
    boottime, so the laptop suspects its peers the moment it wakes, and they rightly suspect it \
    while it sleeps. Every word of this is drawn, on as many lines as it takes, none cut off.";

fn two_hours() -> String {
    format!(
        r#"
about = "{LONG_ABOUT}"
platform = "linux"
run_for = "2h"

[model]
kind = "hosts"
network = "events"

[[model.host]]
name = "laptop"
[[model.host.fault]]
kind = "system-suspend"
at = "30m"
duration = "20m"

[[model.host]]
name = "node"
count = 49

[[model.partition]]
between = ["node-1", "node-2"]
at = "10m"
duration = "20m"

[[model.partition]]
between = ["node-1", "node-2"]
at = "20m"
duration = "20m"

[model.heartbeat]
every = "10s"
suspect_after = "30s"
clock = "boottime"
peers = 2
"#
    )
}

#[test]
fn a_long_description_is_drawn_whole_over_as_many_lines_as_it_takes() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("two-hours.toml");
    std::fs::write(&file, two_hours()).unwrap();
    let svg = plot(&[file.to_str().unwrap()]);
    let title: Vec<String> = labels(&svg)
        .into_iter()
        .filter(|label| label.y < 80.0 && label.anchor == "start" && label.x == 10.0)
        .skip(1)
        .map(|label| label.text)
        .collect();
    assert_eq!(title.len(), 3, "{title:?}");
    assert_eq!(title.join(" "), LONG_ABOUT);
    assert!(!svg.contains('…'));
    // The panel starts below the whole title and the legend: nothing is drawn over them.
    let lines = panel_lines(&svg);
    assert!(lines[0].1 > 100.0, "{:?}", lines[0]);
}

#[test]
fn a_long_run_reads_its_time_axis_in_minutes() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("two-hours.toml");
    std::fs::write(&file, two_hours()).unwrap();
    let svg = plot(&[file.to_str().unwrap()]);
    assert!(has_label(&svg, "physical time (min)"), "{svg}");
    for minute in ["0", "20", "60", "120"] {
        assert!(has_label(&svg, minute), "{minute}");
    }
    assert!(!has_label(&svg, "7000") && !has_label(&svg, "physical time (s)"));
    // A run of minutes still reads in seconds.
    let short = plot(&["scenarios/hosts/zombie-leader.toml"]);
    assert!(has_label(&short, "physical time (s)"));
}

/// A 1 s interval for three days, frozen for 391.5 s on the second: 259,200 wall seconds with a
/// tick, and one with 392.
const THREE_DAYS: &str = include_str!("data/three-days-frozen-once.toml");

#[test]
fn a_long_run_draws_a_bounded_number_of_bars_and_keeps_its_burst() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("three-days.toml");
    std::fs::write(&file, THREE_DAYS).unwrap();
    let svg = plot(&[file.to_str().unwrap()]);
    // A bar a wall second would be 259,200 rectangles, and 60 MB of SVG.
    let bars = svg.matches("<rect").count();
    assert!(bars < 2_000, "{bars} rectangles");
    assert!(svg.len() < 1 << 20, "{} bytes of SVG", svg.len());
    assert!(
        svg.contains("ticks per wall-clock second: the busiest second of every 256s (most: 392)"),
        "the burst after the freeze is drawn at full height"
    );
}

/// A hosts run whose hosts have machines shows their threads' CPU per second under the hosts'
/// rows, with the busiest second of the compaction: a run without machines has no such panel.
#[test]
fn a_hosts_plot_shows_the_cpu_of_the_threads_on_its_machines() {
    let busy = plot(&["scenarios/hosts/heartbeat-compaction-starts-mid-run.toml"]);
    assert!(
        has_label(
            &busy,
            "CPU utilisation per second from 0 s, per thread (busiest such second 62.0%)"
        ),
        "no CPU panel"
    );
    assert!(has_label(&busy, "compacting/heartbeat"));
    let plain = plot(&["scenarios/hosts/zombie-leader.toml"]);
    assert!(!plain.contains("CPU utilisation"));
}
