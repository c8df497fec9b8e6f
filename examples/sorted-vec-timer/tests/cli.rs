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
    assert!(
        table.contains("| scenarios/sorted-vec-rpc.toml | timer | ok"),
        "{table}"
    );
    assert!(table.contains("1 scenarios: 1 passed"), "{table}");
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
                "global-heap, bucketed, bucketed-reclaim, hashed, tokio-wheel, go-timers, sorted-vec"
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
