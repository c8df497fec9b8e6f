//! A harness run drawn as `ticklab plot` draws a scenario: its faults shaded, its notes as marks
//! in a row per label, and what stands out among them kept in sight.

use std::time::Duration;

use ticklab::plot::collect::COLUMNS;
use ticklab::sim::{Approx, Platform};
use ticklab::tokio::{Harness, Run, busy, note};

fn secs(seconds: u64) -> Duration {
    Duration::from_secs(seconds)
}

const RUN_FOR_NS: u64 = 600_000_000_000;

/// A 1 s heartbeat on a Linux laptop that sleeps 392 s, is frozen for 30 s (the heartbeat
/// bursts after it) and has its wall clock stepped back an hour; one note of its own kind comes
/// late in the run, and a CPU-bound section is marked.
fn laptop_run() -> Run<()> {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_nanos(RUN_FOR_NS))
        .system_suspend(secs(100), secs(392))
        .process_suspend(secs(520), secs(30))
        .wall_step_back(Duration::from_millis(560_500), secs(3_600))
        .build()
        .unwrap();
    harness.run(|| async {
        tokio::spawn(async {
            tokio::time::sleep(secs(170)).await;
            note("config reloaded");
            busy(Duration::from_millis(1_500));
        });
        let mut interval = tokio::time::interval(secs(1));
        loop {
            interval.tick().await;
            note("beat");
        }
    })
}

/// Whether the SVG draws exactly `text` as one label (plotters writes each on a line of its own).
fn has_label(svg: &str, text: &str) -> bool {
    svg.contains(&format!("\n{text}\n"))
}

/// The vertical two-point lines drawn in `color`, as (x, height in px).
fn marks(svg: &str, color: &str) -> Vec<(i64, i64)> {
    let stroke = format!("stroke=\"{color}\" stroke-width=\"2\" points=\"");
    svg.lines()
        .filter(|line| line.starts_with("<polyline"))
        .filter_map(|line| {
            let points = line.split_once(&stroke)?.1.split_once('"')?.0;
            let xy: Vec<(i64, i64)> = points
                .split_whitespace()
                .map(|point| {
                    let (x, y) = point.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            match xy[..] {
                [(x1, y1), (x2, y2)] if x1 == x2 => Some((x1, (y1 - y2).abs())),
                _ => None,
            }
        })
        .collect()
}

const BEAT: &str = "#1F77B4";
const RELOAD: &str = "#D62728";

#[test]
fn a_harness_run_is_drawn_with_its_faults_shaded_and_a_row_of_marks_per_label() {
    let run = laptop_run();
    let svg = run.svg();
    assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
    assert_eq!(laptop_run().svg(), svg, "the same run draws the same bytes");
    // Each fault shades both panels, and is named once.
    for (kind, shade) in [
        ("system-suspend", "fill=\"#466EC8\""),
        ("process-suspend", "fill=\"#E68C1E\""),
    ] {
        let bands = svg
            .lines()
            .filter(|line| line.starts_with("<rect") && line.contains(shade))
            .count();
        assert_eq!(bands, 2, "{kind}");
        assert!(has_label(&svg, kind), "{kind}");
    }
    assert!(has_label(&svg, "wall-step by -1h"));
    // A row per label, named with its count; a mark in every column that holds a beat.
    let beats: Vec<u64> = run.notes_of("beat").map(|note| note.t_ns).collect();
    assert!(has_label(&svg, &format!("beat ({})", beats.len())));
    assert!(has_label(&svg, "config reloaded (1)"));
    let mut columns: Vec<u64> = beats
        .iter()
        .map(|t_ns| t_ns * COLUMNS as u64 / RUN_FOR_NS)
        .collect();
    columns.dedup();
    let beat_marks = marks(&svg, BEAT);
    assert_eq!(beat_marks.len(), columns.len());
    assert_eq!(marks(&svg, RELOAD).len(), 1);
    // The marked busy section has a row of its own.
    assert!(svg.contains("fill=\"#282828\""), "a busy bar is drawn");
    assert!(has_label(&svg, "busy or asleep (sections: 1)"));
    assert!(has_label(
        &svg,
        "clocks against physical time (Instant reads monotonic)"
    ));
}

#[test]
fn a_lone_note_a_burst_and_a_long_gap_stand_out() {
    let run = laptop_run();
    let svg = run.svg();
    // The one reload, far from any other note of its label, is ringed; no beat is.
    let rings = |color: &str| {
        svg.lines()
            .filter(|line| line.starts_with("<circle") && line.contains(color))
            .count()
    };
    assert_eq!((rings(RELOAD), rings(BEAT)), (1, 0));
    // The beats that burst after the freeze make the tallest mark, taller than a lone beat's.
    let beat_marks = marks(&svg, BEAT);
    let tallest = beat_marks.iter().max_by_key(|(_, height)| *height).unwrap();
    let lowest = beat_marks.iter().map(|(_, height)| *height).min().unwrap();
    assert!(tallest.1 > lowest + 5, "{beat_marks:?}");
    let burst_at_ns = run
        .notes_of("beat")
        .find(|note| note.t_ns >= 550_000_000_000)
        .unwrap()
        .t_ns;
    let first = beat_marks[0].0 as f64;
    let last = beat_marks.last().unwrap().0 as f64;
    let first_s = run.notes_of("beat").next().unwrap().t_ns as f64;
    let last_s = run.notes_of("beat").last().unwrap().t_ns as f64;
    let expected_x = first + (burst_at_ns as f64 - first_s) / (last_s - first_s) * (last - first);
    assert!(
        (tallest.0 as f64 - expected_x).abs() <= 3.0,
        "the tallest mark is at the burst: {tallest:?}, expected x {expected_x}"
    );
    // The beats' longest gap, across the sleep, is drawn and labelled.
    let beats: Vec<u64> = run.notes_of("beat").map(|note| note.t_ns).collect();
    let longest_ns = beats
        .windows(2)
        .map(|pair| pair[1] - pair[0])
        .max()
        .unwrap();
    assert!(longest_ns > 390_000_000_000);
    assert!(
        has_label(&svg, &format!("gap {}", Approx(longest_ns))),
        "{svg}"
    );
}

/// Labels to note, more than a plot has rows for.
const LABELS: [&str; 30] = [
    "l00", "l01", "l02", "l03", "l04", "l05", "l06", "l07", "l08", "l09", "l10", "l11", "l12",
    "l13", "l14", "l15", "l16", "l17", "l18", "l19", "l20", "l21", "l22", "l23", "l24", "l25",
    "l26", "l27", "l28", "l29",
];

#[test]
fn with_more_labels_than_rows_the_rare_ones_are_kept() {
    let harness = Harness::on(Platform::Linux).build().unwrap();
    let run = harness.run(|| async {
        for round in 0..5 {
            for label in &LABELS[..LABELS.len() - 1] {
                note(label);
            }
            tokio::time::sleep(secs(10)).await;
            if round == 2 {
                note("l29");
            }
        }
    });
    let svg = run.svg();
    assert!(has_label(&svg, "l29 (1)"), "the rarest label keeps its row");
    let rows = LABELS
        .iter()
        .filter(|label| svg.contains(&format!("\n{label} (")))
        .count();
    assert!(rows < LABELS.len(), "{rows} rows");
    assert!(svg.contains(&format!(
        "({} busier labels not shown)",
        LABELS.len() - rows
    )));
}

#[test]
fn write_svg_replaces_its_own_plot_and_never_a_users_file() {
    let folder = tempfile::tempdir().unwrap();
    let run = laptop_run();
    let path = folder.path().join("run.svg");
    run.write_svg(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), run.svg());
    run.write_svg(&path)
        .expect("an earlier run's plot is replaced");
    let mine = folder.path().join("mine.svg");
    std::fs::write(&mine, "<svg>my own drawing</svg>").unwrap();
    let error = run.write_svg(&mine).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
    assert!(error.to_string().contains("mine.svg"), "{error}");
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "<svg>my own drawing</svg>"
    );
    let names: Vec<_> = std::fs::read_dir(folder.path()).unwrap().collect();
    assert_eq!(names.len(), 2, "no temporary file is left behind");
}
