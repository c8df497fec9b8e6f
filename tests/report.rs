//! `ticklab report`: the page renders in headless Chromium with one figure per scenario, loads
//! nothing from anywhere, and a screenshot of it shows the drawings.
//!
//! The two browser tests need Chromium, which a bare machine lacks, so they are ignored by a plain
//! `cargo test` and run with `cargo test --test report -- --ignored` once it is installed (Debian's
//! `chromium` package, which `.ci/run` installs first; set `CHROMIUM` to use another binary).
//! Asked to run without a browser, they fail: a skipped check must never pass as a met one.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;

/// One scenario of each model.
const SCENARIOS: [&str; 5] = [
    "scenarios/interval/windows-sleep-naive.toml",
    "scenarios/timer/bucketed-wall-clock-wall-step-forward.toml",
    "scenarios/executor/tokio-4730-lifo-slot.toml",
    "scenarios/lock/vfork-memory-sweep.toml",
    "scenarios/idle/event-loop-bursts.toml",
];

const WINDOW: (u32, u32) = (1100, 2400);

/// Generous: a cold Chromium start on a loaded 2-core machine takes seconds, not minutes.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(120);

fn ticklab() -> Command {
    let mut command = Command::cargo_bin("ticklab").unwrap();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return PathBuf::from(path);
    }
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .map(move |folder| folder.join(name))
                .collect::<Vec<_>>()
        })
        .find(|path| path.is_file());
    found.unwrap_or_else(|| {
        panic!(
            "this test renders the report in headless Chromium: install it (Debian: \
             `apt-get install chromium`, as .ci/run does) or point CHROMIUM at a binary"
        )
    })
}

/// What Chromium printed.
struct Printed {
    stdout: String,
    stderr: String,
}

/// Runs headless Chromium on `page` with `extra` arguments and a profile of its own in `folder`,
/// killing it if it hangs. Its output goes to files: a DOM dump is larger than a pipe holds.
fn browse(page: &Path, folder: &Path, extra: &[String]) -> Printed {
    let profile = folder.join("profile");
    let stdout_path = folder.join("stdout.txt");
    let stderr_path = folder.join("stderr.txt");
    let mut child = Process::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            // Containers often give /dev/shm 64 MiB, too little for a tall screenshot.
            "--disable-dev-shm-usage",
            // The machine may have no network: nothing should try to reach it.
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
            "--hide-scrollbars",
            // Exact colours are counted in the screenshot: render them in sRGB at one device
            // pixel per CSS pixel, whatever the build's or the display's defaults.
            "--force-color-profile=srgb",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("Chromium starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            child.kill().unwrap();
            panic!("Chromium did not finish within {BROWSER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let printed = Printed {
        stdout: std::fs::read_to_string(&stdout_path).unwrap(),
        stderr: std::fs::read_to_string(&stderr_path).unwrap(),
    };
    assert!(
        status.success(),
        "Chromium failed ({status}): {}",
        printed.stderr
    );
    printed
}

fn write_report(folder: &Path) -> PathBuf {
    let page = folder.join("report.html");
    ticklab()
        .arg("report")
        .args(SCENARIOS)
        .arg("-o")
        .arg(&page)
        .assert()
        .success()
        .stdout(predicate::str::contains("5 scenarios: 5 passed"));
    page
}

#[test]
#[ignore = "needs Chromium: install it, then run `cargo test --test report -- --ignored`"]
fn the_report_renders_one_figure_per_scenario_and_loads_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let page = write_report(folder.path());

    let browsed = folder.path().join("dom");
    std::fs::create_dir(&browsed).unwrap();
    let dom = browse(&page, &browsed, &["--dump-dom".to_string()]).stdout;
    assert_eq!(
        dom.matches("<figure").count(),
        SCENARIOS.len(),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    assert_eq!(dom.matches("<svg").count(), SCENARIOS.len());
    for scenario in SCENARIOS {
        assert!(
            dom.contains(&format!("<figcaption>{scenario} (ok)</figcaption>")),
            "{scenario}"
        );
    }
    // Results, plus the matrix of `ticklab table`: 12 platform and suspend rows.
    assert!(dom.contains("<table id=\"results\">") && dom.contains("<table id=\"matrix\">"));
    // Self-contained, so nothing can fail to load: no scripts, stylesheets, images, frames or
    // fonts fetched by URL, and links only lead within the page.
    for fetch in [
        "<script", "<link", "<img", "<iframe", " src=", "url(", "@import",
    ] {
        assert!(!dom.contains(fetch), "the page fetches something: {fetch}");
    }
    for link in dom.split("href=\"").skip(1) {
        assert!(
            link.starts_with("#figure-"),
            "a link out of the page: {}",
            &link[..40.min(link.len())]
        );
    }
}

#[test]
#[ignore = "needs Chromium: install it, then run `cargo test --test report -- --ignored`"]
fn a_screenshot_of_the_report_shows_the_drawings() {
    let folder = tempfile::tempdir().unwrap();
    let page = write_report(folder.path());
    let shot = folder.path().join("report.png");
    let browsed = folder.path().join("screenshot");
    std::fs::create_dir(&browsed).unwrap();
    browse(
        &page,
        &browsed,
        &[
            format!("--window-size={},{}", WINDOW.0, WINDOW.1),
            format!("--screenshot={}", shot.display()),
        ],
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), WINDOW);
    let channels = frame.color_type.samples();
    let pixels = &pixels[..frame.buffer_size()];
    let white = pixels
        .chunks(channels)
        .filter(|pixel| pixel.iter().take(3).all(|&value| value > 245))
        .count();
    let total = pixels.len() / channels;
    // Pixels within 3 of `colour` on every channel.
    let count = |colour: [u8; 3]| {
        pixels
            .chunks(channels)
            .filter(|pixel| (0..3).all(|c| pixel[c].abs_diff(colour[c]) <= 3))
            .count()
    };
    // A blank or unstyled page would be almost all white; the tables and plots are not. The first
    // plot shades its system suspend (#466EC8 at 18% over white) and draws its tick bars in the
    // first series colour.
    assert!(
        white < total * 97 / 100,
        "{white} of {total} pixels are white"
    );
    let suspend_band = count([222, 229, 245]);
    let series = count([31, 119, 180]);
    assert!(
        suspend_band > 10_000,
        "only {suspend_band} pixels of the suspend's band"
    );
    assert!(series > 100, "only {series} pixels of the series colour");
}

#[test]
fn an_invalid_scenario_is_listed_in_the_page_and_ends_with_exit_2() {
    let folder = tempfile::tempdir().unwrap();
    let bad = folder.path().join("bad.toml");
    std::fs::write(&bad, "platform = \"linux\"\nrun_for = \"-1s\"\n").unwrap();
    let page = folder.path().join("report.html");
    ticklab()
        .arg("report")
        .arg(SCENARIOS[0])
        .arg(&bad)
        .args(["--no-matrix", "-o"])
        .arg(&page)
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "2 scenarios: 1 passed, 0 failed, 1 invalid",
        ));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<figure").count(), 1);
    assert!(html.contains("<td class=\"invalid\">invalid</td>"));
    assert!(html.contains("bad.toml"), "the invalid file is named");
    assert!(
        !html.contains("<table id=\"matrix\""),
        "--no-matrix leaves the matrix out"
    );
}

#[test]
fn an_existing_page_is_kept_unless_forced() {
    let folder = tempfile::tempdir().unwrap();
    let page = folder.path().join("report.html");
    std::fs::write(&page, "my notes").unwrap();
    ticklab()
        .args(["report", SCENARIOS[0], "-o"])
        .arg(&page)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "my notes");
}

#[test]
fn the_platform_matrix_comes_only_with_interval_scenarios() {
    let folder = tempfile::tempdir().unwrap();
    let page = folder.path().join("report.html");
    let hosts = "scenarios/hosts/zombie-leader.toml";
    ticklab()
        .args(["report", hosts, "-o"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<figure").count(), 1);
    assert!(
        !html.contains("<table id=\"matrix\""),
        "the matrix of interval behaviours says nothing about hosts"
    );
    ticklab()
        .args(["report", hosts, SCENARIOS[0], "--force", "-o"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<table id=\"matrix\""));
}
