//! This crate's binary is ticklab's command line with the design added: every command takes
//! scenario files that name `sorted-vec`.

use assert_cmd::Command;

const SCENARIO: &str = "scenarios/sorted-vec-rpc.toml";

fn binary() -> Command {
    let mut command = Command::cargo_bin("sorted-vec-timer").unwrap();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn check_runs_the_scenarios_that_name_the_design() {
    let table = stdout_of(binary().arg("check"));
    for scenario in [SCENARIO, LINEAR_SEARCH] {
        let row = table.lines().find(|line| line.contains(scenario));
        assert!(
            row.is_some_and(|row| row.contains("| timer | ok ")),
            "{table}"
        );
    }
    assert!(table.contains("2 scenarios: 2 passed"), "{table}");
}

/// A scenario file in a temporary folder, for the tests that change one line of it.
fn edited(from: &str, to: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(LINEAR_SEARCH),
    )
    .unwrap();
    assert!(text.contains(from), "{from} is in {LINEAR_SEARCH}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edited.toml");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    (dir, path)
}

const LINEAR_SEARCH: &str = "scenarios/sorted-vec-linear-search.toml";

#[test]
fn the_designs_own_key_and_metrics_reach_the_summary_expect_and_compare() {
    let linear = stdout_of(binary().args(["run", LINEAR_SEARCH, "--summary-only"]));
    let binary_search = stdout_of(binary().args(["run", SCENARIO, "--summary-only"]));
    let metric = |summary: &str, name: &str| -> u64 {
        let line = summary
            .lines()
            .find(|line| line.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in {summary}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    // The key changes what the design does, and the metrics show it.
    assert!(metric(&linear, "comparisons") <= 150_000, "{linear}");
    assert!(
        metric(&binary_search, "comparisons") > 5 * metric(&linear, "comparisons"),
        "{binary_search}"
    );
    assert_eq!(
        metric(&linear, "entries_moved"),
        metric(&binary_search, "entries_moved")
    );
    // [expect] bounds them like any metric.
    let (_dir, path) = edited("max_comparisons = 150000", "max_comparisons = 10");
    let output = binary()
        .arg("run")
        .arg(&path)
        .arg("--summary-only")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("expect FAILED: comparisons <= 10 (got 149999)"),
        "{stderr}"
    );
    // compare lists them under its table.
    let table = stdout_of(binary().args([
        "compare",
        "--designs",
        "global-heap,sorted-vec",
        "../../scenarios/timer/compare/rpc-10k.toml",
    ]));
    assert!(
        table.contains("What each design reports of its own:"),
        "{table}"
    );
    assert!(
        table.contains("| rpc-10k  | sorted-vec | comparisons"),
        "{table}"
    );
    assert!(!table.contains("| global-heap | comparisons"), "{table}");
}

#[test]
fn a_designs_own_key_misspelt_or_mistyped_is_refused_with_what_it_takes() {
    for (from, to, error, hint) in [
        (
            "search = \"linear\"",
            "serch = \"linear\"",
            "unknown key `serch` in [model]",
            "did you mean `search`?",
        ),
        (
            "search = \"linear\"",
            "search = \"lineal\"",
            "unknown value \"lineal\" for `search`",
            "did you mean \"linear\"? `search` takes one of \"binary\", \"linear\"",
        ),
        (
            "design = \"sorted-vec\"",
            "design = \"global-heap\"",
            "the global-heap design does not read `search`",
            "pick a design that reads it: sorted-vec",
        ),
    ] {
        let (_dir, path) = edited(from, to);
        let output = binary().arg("check").arg(&path).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(error), "{to}: {stderr}");
        assert!(stderr.contains(hint), "{to}: {stderr}");
    }
}

#[test]
fn run_traces_the_design_and_reports_its_figures() {
    let summary = stdout_of(binary().args(["run", SCENARIO, "--summary-only"]));
    assert!(
        summary.contains("calls                       150000"),
        "{summary}"
    );
    assert!(
        summary.contains("invariant_violations        0"),
        "{summary}"
    );
}

#[test]
fn sweep_plot_and_report_take_the_design_too() {
    let swept = stdout_of(binary().args(["sweep", SCENARIO, "--cases", "8"]));
    assert!(swept.contains("8 cases of shard 1/1: 8 passed"), "{swept}");
    let svg = stdout_of(binary().args(["plot", SCENARIO]));
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    let folder = tempfile::tempdir().unwrap();
    let page = folder.path().join("report.html");
    binary()
        .args(["report", SCENARIO, "--no-matrix", "-o"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("sorted-vec-rpc.toml"),
        "the report lists the scenario"
    );
}

#[test]
fn a_misspelt_design_is_refused_with_the_designs_this_binary_knows() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("typo.toml");
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO))
            .unwrap()
            .replace("\"sorted-vec\"", "\"sorted-vecs\"");
    std::fs::write(&file, text).unwrap();
    let output = binary().arg("run").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(
        error.contains("unknown timer design `sorted-vecs`")
            && error.contains("did you mean `sorted-vec`?")
            && error.contains(
                "global-heap, bucketed, bucketed-reclaim, hashed, tokio-wheel, go-timers, hashed-wheel, linux-wheel, tokio-alt, tokio-alt-before-8252, sorted-vec"
            ),
        "{error}"
    );
    assert!(
        !error.contains("forgets-to-signal"),
        "the planted variant is not listed: {error}"
    );
}

#[test]
fn a_design_that_wakes_forever_at_one_instant_is_stopped_and_named() {
    let output = binary()
        .args([
            "run",
            "planted/fires-only-past-deadlines.toml",
            "--summary-only",
        ])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let error = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{error}");
    assert!(
        error.contains("the sorted-vec-fires-only-past-deadlines timer design kept waking at")
            && error.contains("without time moving"),
        "{error}"
    );
}

/// The scenario with an expectation it cannot meet, in a folder of its own.
fn failing_scenario() -> (tempfile::TempDir, std::path::PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("too-many-timeouts.toml");
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO))
            .unwrap()
            .replace("min_timeouts = 1000", "min_timeouts = 1000000");
    std::fs::write(&file, text).unwrap();
    (folder, file)
}

/// The command after `replay: ` in `stderr`.
fn replay_line(stderr: &str) -> &str {
    stderr
        .lines()
        .find_map(|line| line.strip_prefix("replay: "))
        .unwrap_or_else(|| panic!("no replay line in {stderr}"))
}

/// This crate's binary as a user runs it outside cargo: none of what `cargo run` sets.
fn binary_outside_cargo() -> Command {
    let mut command = binary();
    for key in ["CARGO", "CARGO_PKG_NAME", "CARGO_MANIFEST_DIR"] {
        command.env_remove(key);
    }
    command
}

/// Runs a pasted `line` in a shell, from where the binary ran.
#[cfg(unix)]
fn paste(line: &str) -> std::process::Output {
    std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CARGO")
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn the_replay_line_names_this_binary_and_pasted_it_fails_the_same_way() {
    let (_folder, file) = failing_scenario();
    let output = binary_outside_cargo()
        .arg("run")
        .arg(&file)
        .arg("--summary-only")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let line = replay_line(&stderr);
    let binary = assert_cmd::cargo::cargo_bin("sorted-vec-timer");
    assert_eq!(
        line,
        format!("{} run {} --seed 1", binary.display(), file.display())
    );
    let pasted = paste(&format!("{line} --summary-only"));
    assert_eq!(pasted.status.code(), Some(1), "{pasted:?}");
    let again = String::from_utf8(pasted.stderr).unwrap();
    assert!(
        again.contains("expect FAILED: timeouts >= 1000000"),
        "{again}"
    );
}

#[test]
fn under_cargo_the_replay_line_is_cargo_run_of_this_package() {
    let (_folder, file) = failing_scenario();
    // As `cargo run -p sorted-vec-timer -- run …` (and this test) start it.
    let output = binary()
        .env("CARGO", env!("CARGO"))
        .env("CARGO_PKG_NAME", "sorted-vec-timer")
        .env("CARGO_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"))
        .arg("run")
        .arg(&file)
        .arg("--summary-only")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let line = replay_line(&stderr);
    let args = line
        .strip_prefix("cargo run -p sorted-vec-timer -- ")
        .unwrap_or_else(|| panic!("{line}"));
    // What cargo would pass on makes this binary fail the same way.
    let replayed = binary()
        .args(args.split_whitespace())
        .arg("--summary-only")
        .output()
        .unwrap();
    assert_eq!(replayed.status.code(), Some(1), "{replayed:?}");
}

#[cfg(unix)]
#[test]
fn a_sweep_names_this_binary_in_its_replay_and_the_regression_replays() {
    let folder = tempfile::tempdir().unwrap();
    let base = folder.path().join("sorted-vec-wall-clock.toml");
    std::fs::write(
        &base,
        "about = \"sorted-vec on wall-clock deadlines: a forward step fires them early\"\n\
         platform = \"linux\"\nrun_for = \"20s\"\n\
         [model]\nkind = \"timer\"\ndesign = \"sorted-vec\"\nclock = \"wall\"\nclients = 5\n\
         call_interval = \"50ms\"\ntimeout = \"100ms\"\nlatency = [\"1ms\", \"150ms\"]\n\
         [expect]\ninvariants = true\n",
    )
    .unwrap();
    let regressions = folder.path().join("regressions");
    let output = binary_outside_cargo()
        .arg("sweep")
        .arg(&base)
        .args(["--cases", "50", "--regressions"])
        .arg(&regressions)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let line = replay_line(&stderr);
    let binary = assert_cmd::cargo::cargo_bin("sorted-vec-timer");
    assert!(
        line.starts_with(&format!(
            "{} run {}",
            binary.display(),
            regressions.display()
        )),
        "{line}"
    );
    let written = std::fs::read_dir(&regressions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains(&format!("# Replay: {line}\n")), "{text}");
    let pasted = paste(line);
    assert_eq!(pasted.status.code(), Some(1), "{pasted:?}");
    assert!(
        String::from_utf8(pasted.stdout)
            .unwrap()
            .contains("BROKEN    timer of call #"),
        "the regression breaks the same invariant"
    );
}

const NEVER_WAKES: &str = "planted/forgets-to-signal.toml";

#[test]
fn a_design_that_never_wakes_its_thread_fails_check_naming_the_timers_it_missed() {
    let output = binary().args(["check", NEVER_WAKES]).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        table.contains("FAILED") && table.contains("missed 660 (want == 0) FAILED"),
        "{table}"
    );
    let trace = binary().args(["run", NEVER_WAKES]).output().unwrap();
    let trace = String::from_utf8(trace.stdout).unwrap();
    assert!(
        trace.contains(
            "BROKEN    timer of call #1 is 50us past its deadline and has not fired: its design \
             promises to fire at its deadline, and the machine adds up to 50us; thread 0 is \
             asleep with no deadline"
        ),
        "{}",
        &trace[..trace.len().min(4000)]
    );
    assert!(
        trace.contains("cancels                     1990"),
        "the responses cancel them all"
    );
}

#[test]
fn a_sweep_finds_the_never_waking_design_in_its_first_case() {
    let folder = tempfile::tempdir().unwrap();
    let base = folder.path().join("never-wakes.toml");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(NEVER_WAKES),
        &base,
    )
    .unwrap();
    let output = binary()
        .arg("sweep")
        .arg(&base)
        .args(["--cases", "3", "--regressions"])
        .arg(folder.path().join("regressions"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text =
        String::from_utf8(output.stdout).unwrap() + &String::from_utf8(output.stderr).unwrap();
    assert!(
        text.contains("case 0 failed") && text.contains("has not fired"),
        "{text}"
    );
}

#[test]
fn compare_counts_what_the_never_waking_design_misses() {
    let table = stdout_of(binary().args([
        "compare",
        "--designs",
        "global-heap,sorted-vec-forgets-to-signal",
        "../../scenarios/timer/compare/rpc-10k.toml",
    ]));
    let missing = |design: &str| {
        let row = table
            .lines()
            .find(|line| line.contains(&format!("| {design} ")))
            .unwrap_or_else(|| panic!("no row for {design}: {table}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        (cells[5].to_string(), cells[9].to_string())
    };
    assert!(table.contains("| missing |"), "{table}");
    assert_eq!(
        missing("global-heap"),
        ("1952".to_string(), "0".to_string())
    );
    assert_eq!(
        missing("sorted-vec-forgets-to-signal"),
        ("0".to_string(), "1952".to_string())
    );
}
