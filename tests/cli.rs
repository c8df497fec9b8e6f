//! The `ticklab` binary as a user drives it: exit codes, output, and files.

use std::path::PathBuf;

use assert_cmd::Command;
use predicates::prelude::*;
use ticklab::models::timer::BuildTimerDesign;

fn ticklab() -> Command {
    let mut command = Command::cargo_bin("ticklab").unwrap();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

fn scenario(name: &str) -> String {
    format!("scenarios/interval/{name}.toml")
}

/// A scenario file in a fresh temporary folder.
fn temp_scenario(text: &str) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    (folder, path)
}

const SHORT_SLEEP: &str = r#"
about = "A short Windows sleep under a naive interval"
platform = "windows"
run_for = "20s"
[model]
kind = "interval"
missed_tick = "naive"
period = "1s"
phase = "0s"
[[fault]]
kind = "system-suspend"
at = "5.5s"
duration = "10s"
"#;

#[test]
fn run_prints_a_text_trace_and_meets_its_expectations() {
    ticklab()
        .args(["run", &scenario("windows-sleep-naive")])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "# Windows sleeps 392 s under a naive 1 s interval\n",
        ))
        .stdout(predicate::str::contains(format!(
            "\n{:<28}392\n",
            "ticks_after_resume"
        )))
        .stderr(predicate::str::contains(
            "expect ok: ticks_after_resume >= 390 (got 392)",
        ));
}

#[test]
fn jsonl_trace_has_the_documented_fields_and_ends_in_a_summary() {
    let output = ticklab()
        .args(["run", &scenario("windows-sleep-naive"), "--format", "jsonl"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    for line in &lines {
        assert!(line["event"].is_string() && line["t_ns"].is_u64(), "{line}");
    }
    let ticks: Vec<_> = lines
        .iter()
        .filter(|line| line["event"] == "tick")
        .collect();
    assert_eq!(ticks.len(), 479);
    for key in ["seq", "instant_ns", "deadline_ns", "wall"] {
        assert!(!ticks[15][key].is_null(), "tick lacks {key}");
    }
    assert_eq!(ticks[15]["deadline_ns"], 16_000_000_000u64);
    assert_eq!(ticks[15]["wall"], "2020-03-12T14:15:05.000000000Z");
    let kinds: Vec<_> = lines
        .iter()
        .map(|line| line["event"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"fault-begin") && kinds.contains(&"fault-end") && kinds.contains(&"resume")
    );
    let summary = lines.last().unwrap();
    assert_eq!(summary["event"], "summary");
    assert_eq!(summary["ticks"], 479);
    assert_eq!(summary["max_ticks_after_resume"], 392);
    assert_eq!(summary["max_ticks_per_wall_second"], 392);
    assert_eq!(summary["cpu_busy_ns_worst_second"], 0);
}

#[test]
fn summary_only_writes_the_header_and_the_summary() {
    let output = ticklab()
        .args([
            "run",
            &scenario("load-1000-intervals"),
            "--format",
            "jsonl",
            "--summary-only",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let events: Vec<_> = text
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .collect();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["event"], "start");
    assert_eq!(events[1]["event"], "summary");
}

#[test]
fn a_failed_expectation_exits_1_and_prints_the_replay_command() {
    let (_folder, path) = temp_scenario(&format!(
        "{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"
    ));
    ticklab()
        .args(["run", path.to_str().unwrap(), "--seed", "42"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "expect FAILED: ticks_after_resume <= 3 (got 11)",
        ))
        .stderr(predicate::str::contains(format!(
            "replay: ticklab run {} --seed 42",
            path.display()
        )));
}

#[test]
fn a_seed_on_the_command_line_replaces_the_scenarios() {
    ticklab()
        .args([
            "run",
            &scenario("load-1000-intervals"),
            "--seed",
            "99",
            "--summary-only",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("seed 99;"));
}

#[test]
fn an_invalid_scenario_exits_2_with_its_position() {
    ticklab()
        .args(["run", "tests/bad_scenarios/unknown-model-key.toml"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::starts_with(
            "error: tests/bad_scenarios/unknown-model-key.toml:10:1: unknown key `perod` in [model]",
        ));
    ticklab()
        .args(["run", "no/such/file.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read the scenario"));
}

#[test]
fn a_harness_conditions_file_says_what_it_is_and_what_to_do() {
    let (_folder, path) = temp_scenario(
        "about = \"a laptop sleeps\"\nplatform = \"windows\"\nrun_for = \"600s\"\n\
         [[fault]]\nkind = \"system-suspend\"\nat = \"15s\"\nduration = \"392s\"\n",
    );
    let path = path.to_str().unwrap();
    for command in ["run", "plot"] {
        ticklab()
            .args([command, path])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::starts_with(format!(
                "error: {path}:1:1: this is a harness conditions file for `ticklab::tokio::Harness`"
            )))
            .stderr(predicate::str::contains(format!(
                "from a Rust test with `ticklab::tokio::Harness::load({path:?})`, or add a [model]"
            )))
            .stderr(predicate::str::contains("missing key").not());
    }
    // A file that is no harness's either (an [expect] with nothing to bound) still misses its
    // [model].
    let (_folder, path) = temp_scenario(
        "about = \"x\"\nplatform = \"linux\"\nrun_for = \"60s\"\n[expect]\nticks = 3\n",
    );
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing key `model`"));
}

#[test]
fn unbounded_work_is_refused_before_it_starts() {
    let (_folder, path) = temp_scenario(
        r#"
about = "A 1 ns interval across a year of sleep"
platform = "windows"
run_for = "400d"
[model]
kind = "interval"
missed_tick = "naive"
period = "1ns"
[[fault]]
kind = "system-suspend"
at = "1s"
duration = "365d"
"#,
    );
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "this run could handle up to 34560000000000003 events",
        ))
        .stderr(predicate::str::contains("--max-events"))
        .stderr(predicate::str::contains(
            "hint: lengthen the period or lower `count`",
        ))
        // The refusal points at the keys its hint names, where the file sets them.
        .stderr(predicate::str::contains(format!(
            "--> {}:4: run_for = \"400d\"",
            path.display()
        )));
}

#[test]
fn an_rpc_load_too_large_to_simulate_is_refused_with_the_keys_to_change() {
    let (_folder, path) = temp_scenario(
        r#"
about = "A hundred thousand clients calling every nanosecond for 100 days"
platform = "linux"
run_for = "100d"
[model]
kind = "timer"
design = "bucketed"
clock = "wall"
clients = 100000
call_interval = "1ns"
timeout = "100ms"
latency = "1ms"
"#,
    );
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("calls from 100000 clients"))
        .stderr(predicate::str::contains(
            "hint: lengthen `call_interval` or lower `clients`",
        ));
}

/// `hosts` hosts on the events network, each sending heartbeats to `peers` others every
/// second for `run_for`.
fn heartbeat_cluster(hosts: u32, peers: u32, run_for: &str) -> String {
    format!(
        r#"
about = "{hosts} hosts heartbeating to {peers} peers each"
platform = "linux"
run_for = "{run_for}"
[model]
kind = "hosts"
network = "events"
[[model.host]]
name = "node"
count = {hosts}
[model.heartbeat]
every = "1s"
suspect_after = "5s"
peers = {peers}
"#
    )
}

#[test]
fn a_hosts_cluster_whose_steps_cost_too_much_is_refused_with_the_keys_to_change() {
    // 233,530,000 steps, under the default limit counted one event each; a step with millions
    // of wakes and messages queued costs what some 70 timer events do: minutes of CPU.
    let (_folder, path) = temp_scenario(&heartbeat_cluster(10_000, 64, "2m"));
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "77440000 heartbeats; 233530000 steps",
        ))
        .stderr(predicate::str::contains("more than the limit of 250000000"))
        .stderr(predicate::str::contains("lower `peers`, shorten `run_for`"))
        // How soon a peer is suspected plays no part in the work: it is not offered.
        .stderr(predicate::str::contains("suspect_after").not());
    // A small cluster still runs: 100 hosts send to 8 peers each at 0 s, 1 s, ... 9 s.
    let (_folder, path) = temp_scenario(&heartbeat_cluster(100, 8, "10s"));
    ticklab()
        .args(["run", "--summary-only", path.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("heartbeats_sent             8000"));
}

#[test]
fn an_executor_load_too_large_to_simulate_is_refused_with_the_keys_to_change() {
    let (_folder, path) = temp_scenario(
        r#"
about = "Ten million tasks, each spawning two more"
platform = "linux"
run_for = "10s"
[model]
kind = "executor"
cores = 4
[[model.runtime]]
name = "rt"
workers = 2
[[model.task]]
name = "work"
runtime = "rt"
count = 10000000
every = "1ns"
steps = [{ cpu = "1s" }, { spawn = "child" }, { spawn = "child" }]
[[model.task]]
name = "child"
runtime = "rt"
steps = [{ yield = true }]
"#,
    );
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "(30000000 tasks, spawned ones included)",
        ))
        .stderr(predicate::str::contains(
            "hint: lower the task groups' `count` or their `cpu` times, or lengthen `time_slice`",
        ));
}

#[test]
fn max_events_sets_the_limit_both_ways() {
    let (_folder, path) = temp_scenario(SHORT_SLEEP);
    let path = path.to_str().unwrap();
    ticklab()
        .args(["run", path, "--max-events", "10"])
        .assert()
        .code(2);
    // 21 ticks, and two wakes re-timed when the process resumes.
    ticklab()
        .args(["run", path, "--max-events", "23"])
        .assert()
        .success();
}

/// An RPC load whose calls stay in flight for `latency`: 100 clients calling every millisecond.
fn rpc_in_flight(latency: &str, run_for: &str, extra: &str) -> String {
    format!(
        r#"
about = "100 clients calling every millisecond, answered in {latency}"
platform = "linux"
run_for = "{run_for}"
{extra}
[model]
kind = "timer"
design = "global-heap"
clock = "monotonic"
clients = 100
call_interval = "1ms"
timeout = "300s"
latency = "{latency}"
"#
    )
}

#[test]
fn a_run_that_could_pass_the_memory_bound_is_refused_before_it_starts() {
    // 15 M calls in flight at once, with their timers and wakes: 3.7 GiB.
    let (_folder, path) = temp_scenario(&rpc_in_flight("150s", "400s", ""));
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "this run could hold up to 3.7 GiB of live state (15000203 wakes waiting",
        ))
        .stderr(predicate::str::contains(
            "15000100 calls in flight of 96 B each",
        ))
        .stderr(predicate::str::contains(
            "more than the memory limit of 1.0 GiB",
        ))
        .stderr(predicate::str::contains(
            "hint: shorten `latency` or `timeout`, lengthen `call_interval` or lower `clients`, \
             or raise the limit with --max-memory, or with `max_memory = \"4GiB\"`",
        ));
}

#[test]
fn more_wakes_than_the_event_queue_holds_are_refused_not_a_panic() {
    // Every one of 40 M calls is still in flight when the run ends.
    let (_folder, path) = temp_scenario(&rpc_in_flight("3601s", "400s", ""));
    ticklab()
        .args(["run", path.to_str().unwrap(), "--max-memory", "64GiB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "could have up to 80000303 wakes waiting at once",
        ))
        .stderr(predicate::str::contains(
            "more than the 16777216 the event queue holds",
        ));
}

#[test]
fn max_memory_sets_the_bound_and_a_scenario_may_raise_it_for_itself() {
    // 10,000 calls in flight: a few MiB.
    let (_folder, path) = temp_scenario(&rpc_in_flight("100ms", "2s", ""));
    let path = path.to_str().unwrap();
    ticklab()
        .args(["run", path, "--summary-only", "--max-memory", "1MiB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "more than the memory limit of 1.0 MiB",
        ));
    ticklab()
        .args(["run", path, "--summary-only"])
        .assert()
        .success();
    let (_folder, raised) = temp_scenario(&rpc_in_flight("100ms", "2s", "max_memory = \"2GiB\""));
    ticklab()
        .args([
            "run",
            raised.to_str().unwrap(),
            "--summary-only",
            "--max-memory",
            "1MiB",
        ])
        .assert()
        .success();
    ticklab()
        .args(["run", path, "--max-memory", "lots"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "\"lots\" is not an amount of memory",
        ));
}

#[test]
fn a_design_that_keeps_cancelled_timers_is_stopped_when_it_passes_the_bound() {
    // Every call is answered in a millisecond, but the bucketed design keeps each cancelled
    // timer until its deadline, 300 s away: 100,000 more a second, which no estimate made
    // before the run can know.
    let text = rpc_in_flight("1ms", "60s", "").replace("global-heap", "bucketed");
    let (_folder, path) = temp_scenario(&text);
    ticklab()
        .args([
            "run",
            path.to_str().unwrap(),
            "--summary-only",
            "--max-memory",
            "32MiB",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("summary").not())
        .stderr(predicate::str::contains("the bucketed timer held 32."))
        .stderr(predicate::str::contains(
            "more than the memory limit of 32.0 MiB",
        ))
        .stderr(predicate::str::contains(format!(
            "timers the design holds of {} B each",
            <ticklab::models::timer::builtin::BucketedDesign as BuildTimerDesign>::BYTES_PER_TIMER
        )))
        .stderr(predicate::str::contains("so the run was stopped"));
}

#[test]
fn out_is_written_whole_and_never_over_an_existing_file_without_force() {
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("trace.jsonl");
    let out_arg = out.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut command = ticklab();
        command.args([
            "run",
            &scenario("windows-sleep-fixed"),
            "--format",
            "jsonl",
            "--out",
            out_arg,
        ]);
        command.args(extra);
        command.assert()
    };
    run(&[]).success().stdout(predicate::str::is_empty());
    let first = std::fs::read_to_string(&out).unwrap();
    assert!(first.ends_with("}\n") && first.lines().last().unwrap().contains("\"summary\""));
    std::fs::write(&out, "my notes").unwrap();
    run(&[])
        .code(2)
        .stderr(predicate::str::contains("already exists; pass --force"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "my notes");
    run(&["--force"]).success();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), first);
    let leftovers = std::fs::read_dir(folder.path()).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary files are left behind");
}

#[test]
fn elide_is_for_text_only() {
    ticklab()
        .args([
            "run",
            &scenario("windows-sleep-naive"),
            "--format",
            "jsonl",
            "--elide",
            "3",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--elide applies to the text format only",
        ));
}

/// The events `--elide N` holds back wait in memory, uncounted by the memory bound: N is capped
/// where they stay a few megabytes.
#[test]
fn elide_keeps_at_most_ten_thousand_at_each_end() {
    ticklab()
        .args([
            "run",
            &scenario("windows-sleep-naive"),
            "--elide",
            "20000000",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("20000000 is not in 0..=10000"));
    ticklab()
        .args([
            "run",
            &scenario("windows-sleep-naive"),
            "--elide",
            "10000",
            "--summary-only",
        ])
        .assert()
        .success();
}

/// A project's own `scenarios/` folder is what `check` checks when given no path.
#[test]
fn check_in_a_project_checks_its_scenarios_folder() {
    let project = tempfile::tempdir().unwrap();
    let folder = project.path().join("scenarios/interval");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("short-sleep.toml"),
        format!("{SHORT_SLEEP}[expect]\nticks_after_resume = 11\n"),
    )
    .unwrap();
    let mut command = Command::cargo_bin("ticklab").unwrap();
    command
        .current_dir(project.path())
        .arg("check")
        .assert()
        .success()
        .stderr(predicate::str::contains("built-in").not())
        .stdout(predicate::str::contains(
            "| scenarios/interval/short-sleep.toml",
        ))
        .stdout(predicate::str::contains(
            "1 scenarios: 1 passed, 0 failed, 0 invalid",
        ));
}

#[test]
fn check_exits_1_on_a_failure_and_2_on_an_invalid_file() {
    let (folder, path) = temp_scenario(&format!(
        "{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"
    ));
    ticklab()
        .args([
            "check",
            path.to_str().unwrap(),
            &scenario("windows-sleep-fixed"),
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "| FAILED | ticks_after_resume 11 (want <= 3) FAILED",
        ))
        // A passing row shows its headline figures, not a count of what was met.
        .stdout(predicate::str::contains(
            "| ok     | invariant_violations 0 (want == 0); ticks_after_resume 1 (want <= 3); ticks 88",
        ))
        .stdout(predicate::str::contains(
            "2 scenarios: 1 passed, 1 failed, 0 invalid",
        ))
        .stderr(predicate::str::contains("replay: ticklab run"));
    std::fs::write(folder.path().join("broken.toml"), "about = ").unwrap();
    ticklab()
        .args(["check", folder.path().to_str().unwrap()])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("| invalid"))
        .stderr(predicate::str::contains("broken.toml:1:"));
}

/// Outside a project `check` runs the scenarios built into the binary, and they pass. The
/// full-scale ones take minutes in a debug build: `.ci/run` checks them in release.
#[test]
fn check_outside_a_project_passes_on_the_built_in_scenarios() {
    let folder = tempfile::tempdir().unwrap();
    let mut command = Command::cargo_bin("ticklab").unwrap();
    command
        .current_dir(folder.path())
        .args(["check", "--skip", "full-scale"])
        .assert()
        .success()
        .stderr(predicate::str::contains("checking the built-in scenarios"))
        .stdout(predicate::str::contains(
            "| scenarios/interval/windows-sleep-naive.toml",
        ))
        .stdout(predicate::str::contains(
            "scenarios/interval/matrix/windows-system-suspend-naive.toml",
        ))
        .stdout(predicate::str::contains("full-scale").not())
        .stdout(
            predicate::str::is_match(r"\d+ scenarios: \d+ passed, 0 failed, 0 invalid").unwrap(),
        );
}

#[test]
fn check_skip_leaves_out_the_paths_that_contain_its_text() {
    let (naive, fixed) = (
        scenario("windows-sleep-naive"),
        scenario("windows-sleep-fixed"),
    );
    ticklab()
        .args(["check", &naive, &fixed, "--skip", "fixed"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("| {naive}")))
        .stdout(predicate::str::contains(&fixed).not())
        .stdout(predicate::str::contains(
            "1 scenarios: 1 passed, 0 failed, 0 invalid",
        ));
    ticklab()
        .args(["check", &naive, "--skip", "nowhere", "--skip", "naive"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: --skip nowhere --skip naive left no scenario to check",
        ));
}

/// `--progress always` draws on a pipe too, one plain line per update; by default a pipe gets
/// none. Either way stdout is the same bytes: elapsed time is for the progress line alone.
#[test]
fn check_progress_counts_done_and_failed_and_names_the_slowest_running() {
    let (_folder, failing) = temp_scenario(&format!(
        "{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"
    ));
    let failing = failing.to_str().unwrap();
    let passing = scenario("windows-sleep-fixed");
    let check = |progress: &str| {
        ticklab()
            .args(["check", failing, &passing, "--progress", progress])
            .output()
            .unwrap()
    };
    let always = check("always");
    assert_eq!(always.status.code(), Some(1));
    let stderr = String::from_utf8(always.stderr.clone()).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.contains(&"2/2 scenarios done, 1 failed"),
        "no final progress line in:\n{stderr}"
    );
    assert!(
        lines.iter().any(|line| {
            [failing, passing.as_str()]
                .iter()
                .any(|name| line.contains(&format!(" failed; slowest running: {name} (")))
                && line.ends_with("s)")
        }),
        "no line names a running scenario and its time in:\n{stderr}"
    );
    for quiet in ["never", "auto"] {
        let output = check(quiet);
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(output.stdout, always.stdout, "--progress {quiet}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            !stderr.contains("scenarios done"),
            "--progress {quiet}:\n{stderr}"
        );
    }
}

/// One row of `ticklab table`, by platform and suspend kind: its `Instant` clock and numbers.
fn table_row(table: &str, platform: &str, suspend: &str) -> (String, Vec<u64>) {
    let row = table
        .lines()
        .map(|line| line.split('|').map(str::trim).collect::<Vec<_>>())
        .find(|cells| cells.get(1) == Some(&platform) && cells.get(3) == Some(&suspend))
        .unwrap_or_else(|| panic!("no row for {platform} {suspend} in\n{table}"));
    let ticks = row[4..9].iter().map(|cell| cell.parse().unwrap()).collect();
    (row[2].to_string(), ticks)
}

#[test]
fn table_shows_the_burst_where_instant_counts_the_stop() {
    let output = ticklab().arg("table").output().unwrap();
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        table.contains(
            "| platform     | Instant   | suspend         | naive | burst | delay | skip | fixed |"
        ),
        "{table}"
    );
    // Columns: naive, burst, delay, skip, fixed. An Android app built with upstream Rust reads
    // CLOCK_MONOTONIC, as on Linux; only AOSP's toolchain patches it to CLOCK_BOOTTIME.
    let expected = [
        ("windows", "system-suspend", "boottime", [392, 392, 1, 1, 1]),
        ("android", "system-suspend", "monotonic", [1, 1, 1, 1, 1]),
        (
            "android",
            "process-suspend",
            "monotonic",
            [392, 392, 1, 1, 1],
        ),
        (
            "android-aosp",
            "system-suspend",
            "boottime",
            [392, 392, 1, 1, 1],
        ),
        (
            "android-aosp",
            "process-suspend",
            "boottime",
            [392, 392, 1, 1, 1],
        ),
        ("linux", "system-suspend", "monotonic", [1, 1, 1, 1, 1]),
        ("macos", "system-suspend", "monotonic", [1, 1, 1, 1, 1]),
        ("ios", "process-suspend", "monotonic", [392, 392, 1, 1, 1]),
    ];
    for (platform, suspend, instant, ticks) in expected {
        assert_eq!(
            table_row(&table, platform, suspend),
            (instant.to_string(), ticks.to_vec()),
            "{platform} {suspend}"
        );
    }
}

#[test]
fn readme_shows_the_table_as_ticklab_table_prints_it() {
    let output = ticklab().arg("table").output().unwrap();
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains(&format!("```text\n{table}```\n")),
        "README.md's table is not what `cargo run --release -- table` prints now:\n{table}"
    );
}

#[test]
fn help_is_available_everywhere() {
    for args in [
        &["--help"][..],
        &["run", "--help"],
        &["check", "--help"],
        &["table", "--help"],
    ] {
        ticklab()
            .args(args)
            .assert()
            .success()
            .stdout(predicate::str::contains("Usage: ticklab"));
    }
    ticklab().arg("frobnicate").assert().code(2);
}

/// Runs ticklab with its stdout closed before it writes anything, as `ticklab … | head -0` would.
fn run_with_closed_stdout(args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ticklab"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_pipe_ends_a_run_quietly_and_keeps_its_verdict() {
    let output = run_with_closed_stdout(&["run", &scenario("load-1000-intervals")]);
    assert!(output.status.success(), "{output:?}");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    let (_folder, path) = temp_scenario(&format!(
        "{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"
    ));
    let output = run_with_closed_stdout(&["run", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("expect FAILED"));
}

#[test]
fn check_and_table_survive_a_closed_pipe() {
    for args in [
        &["check", "scenarios/interval/windows-sleep-naive.toml"][..],
        &["table"],
    ] {
        let output = run_with_closed_stdout(args);
        assert!(output.status.success(), "{args:?}: {output:?}");
        assert!(
            !String::from_utf8_lossy(&output.stderr).contains("panicked"),
            "{args:?}"
        );
    }
}

/// Runs ticklab with both streams closed before it writes anything, as
/// `ticklab … 2>&1 | head -0` would.
fn run_with_both_streams_closed(args: &[&str]) -> std::process::ExitStatus {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ticklab"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    child.wait().unwrap()
}

#[test]
fn every_command_keeps_its_exit_code_with_both_streams_closed() {
    let folder = tempfile::tempdir().unwrap();
    let failing = folder.path().join("failing.toml");
    std::fs::write(
        &failing,
        format!("{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"),
    )
    .unwrap();
    let invalid = folder.path().join("invalid.toml");
    std::fs::write(&invalid, "platform = \"linux\"\nrun_for = \"-1s\"\n").unwrap();
    let svg = folder.path().join("plot.svg");
    let html = folder.path().join("report.html");
    let regressions = folder.path().join("regressions");
    let (failing, invalid) = (failing.to_str().unwrap(), invalid.to_str().unwrap());
    let passing = scenario("windows-sleep-naive");
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["run", &passing], 0),
        (vec!["run", failing], 1),
        (vec!["run", failing, "--summary-only"], 1),
        (vec!["run", invalid], 2),
        (vec!["check", &passing], 0),
        (vec!["check", failing], 1),
        (vec!["check", invalid], 2),
        (vec!["plot", failing], 1),
        (vec!["plot", failing, "-o", svg.to_str().unwrap()], 1),
        (vec!["plot", invalid], 2),
        (
            vec![
                "report",
                failing,
                "--no-matrix",
                "-o",
                html.to_str().unwrap(),
            ],
            1,
        ),
        (vec!["table"], 0),
        (
            vec![
                "sweep",
                "tests/planted/fixed-without-reanchor.toml",
                "--cases",
                "3",
                "--regressions",
                regressions.to_str().unwrap(),
            ],
            1,
        ),
        (vec!["frobnicate"], 2),
    ];
    for (args, code) in cases {
        let status = run_with_both_streams_closed(&args);
        assert_eq!(status.code(), Some(code), "ticklab {}", args.join(" "));
    }
}

#[test]
fn plot_exits_1_like_run_when_an_expectation_fails() {
    let (_folder, path) = temp_scenario(&format!(
        "{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"
    ));
    ticklab()
        .args(["plot", path.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with("<svg"))
        .stderr(predicate::str::contains(
            "expect FAILED: ticks_after_resume <= 3 (got 11)",
        ))
        .stderr(predicate::str::contains(format!(
            "replay: ticklab run {} --seed 0",
            path.display()
        )));
}

#[test]
fn the_replay_command_carries_a_raised_event_limit() {
    let (_folder, path) = temp_scenario(&format!(
        "{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"
    ));
    ticklab()
        .args(["run", path.to_str().unwrap(), "--max-events", "500"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "replay: ticklab run {} --seed 0 --max-events 500",
            path.display()
        )));
}

#[test]
fn two_processes_write_the_same_bytes() {
    for args in [
        &[
            "run",
            "scenarios/interval/load-1000-intervals.toml",
            "--format",
            "jsonl",
            "--seed",
            "3",
        ][..],
        &[
            "run",
            "scenarios/interval/linux-freezer-around-suspend-naive.toml",
        ],
    ] {
        let first = ticklab().args(args).output().unwrap();
        let second = ticklab().args(args).output().unwrap();
        assert!(first.status.success());
        assert!(first.stdout.len() > 10_000, "{args:?} wrote a real trace");
        assert!(
            first.stdout == second.stdout && first.stderr == second.stderr,
            "{args:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn check_follows_symlinked_scenarios() {
    let folder = tempfile::tempdir().unwrap();
    let failing = folder.path().join("failing.toml");
    std::fs::write(
        &failing,
        format!("{SHORT_SLEEP}[expect]\nmax_ticks_after_resume = 3\n"),
    )
    .unwrap();
    let scenarios = folder.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::os::unix::fs::symlink(&failing, scenarios.join("linked.toml")).unwrap();
    ticklab()
        .args(["check", scenarios.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "1 scenarios: 0 passed, 1 failed, 0 invalid",
        ));
}

#[cfg(unix)]
#[test]
fn out_refuses_special_files_even_with_force() {
    let folder = tempfile::tempdir().unwrap();
    let fifo = folder.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    ticklab()
        .args([
            "run",
            &scenario("windows-sleep-fixed"),
            "--out",
            fifo.to_str().unwrap(),
            "--force",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a regular file"));
    ticklab()
        .args([
            "run",
            &scenario("windows-sleep-fixed"),
            "--out",
            folder.path().to_str().unwrap(),
            "--force",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a regular file"));
}

#[test]
fn a_folder_is_not_a_scenario_file() {
    ticklab()
        .args(["run", "scenarios"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: scenarios: cannot read the scenario",
        ))
        .stderr(predicate::str::contains(
            "hint: pass a scenario file; `ticklab check FOLDER`",
        ));
}

#[test]
fn a_cost_profile_replaces_the_one_a_lock_scenario_names() {
    let (folder, _) = temp_scenario(SHORT_SLEEP);
    // The same figures, but every spawn a thousand times dearer: waits must grow.
    let dear = ticklab::profile::REFERENCE.replace(
        "vfork = { p50 = \"30us\", p99 = \"50us\" }",
        "vfork = { p50 = \"30ms\", p99 = \"50ms\" }",
    );
    let profile = folder.path().join("dear.toml");
    std::fs::write(&profile, dear).unwrap();
    let summary = |extra: &[&str]| {
        let output = ticklab()
            .args([
                "run",
                "scenarios/lock/vfork-memory-sweep.toml",
                "--summary-only",
            ])
            .args(extra)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let reference = summary(&[]);
    let dearer = summary(&["--profile", profile.to_str().unwrap()]);
    let spawn_cost = |summary: &str| {
        summary
            .lines()
            .find_map(|line| line.strip_prefix("p50_spawn_cost "))
            .map(|value| value.trim().to_string())
            .unwrap_or_else(|| panic!("no p50_spawn_cost in {summary}"))
    };
    // The same draws, a thousand times dearer (the histogram keeps three digits).
    assert_eq!(spawn_cost(&reference), "29.935us");
    assert_eq!(spawn_cost(&dearer), "29.934ms");
}

#[test]
fn a_cost_profile_is_refused_for_a_model_that_charges_nothing_from_one() {
    let (_folder, path) = temp_scenario(SHORT_SLEEP);
    ticklab()
        .args([
            "run",
            path.to_str().unwrap(),
            "--profile",
            "profiles/reference.toml",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--profile applies to lock and idle scenarios",
        ));
}

#[test]
fn a_broken_cost_profile_is_refused_with_its_position() {
    let (folder, _) = temp_scenario(SHORT_SLEEP);
    let broken = folder.path().join("broken.toml");
    std::fs::write(&broken, "about = \"x\"\n[costs]\nsched_yield = 3\n").unwrap();
    ticklab()
        .args([
            "run",
            "scenarios/idle/sleep0-vs-yield-100k-calls.toml",
            "--profile",
            broken.to_str().unwrap(),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("broken.toml:3:"));
}

#[test]
fn a_scenario_that_requires_its_invariants_fails_when_the_model_breaks_them() {
    let text =
        std::fs::read_to_string("scenarios/timer/bucketed-wall-clock-wall-step-forward.toml")
            .unwrap()
            .replace("[expect]\n", "[expect]\ninvariants = true\n");
    let (_folder, path) = temp_scenario(&text);
    ticklab()
        .args(["run", path.to_str().unwrap(), "--summary-only"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "expect FAILED: invariant_violations == 0 (got 219)",
        ));
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BROKEN    timer of call #"));
    // `check` says what broke first, under the failing row's counts.
    let output = ticklab()
        .args(["check", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let table = String::from_utf8(output.stdout).unwrap();
    let rows: Vec<&str> = table.lines().collect();
    let failed = rows
        .iter()
        .position(|row| row.contains("invariant_violations 219 (want == 0) FAILED"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        rows[failed + 1].contains("first BROKEN at 10.050241871s: timer of call #2213 fired")
            && rows[failed + 1].contains("before its timeout"),
        "{table}"
    );
}

/// The cells of `ticklab compare`'s row for `workload` on `design`.
fn compare_row(table: &str, workload: &str, design: &str) -> Vec<String> {
    table
        .lines()
        .map(|line| {
            line.split('|')
                .map(|cell| cell.trim().to_string())
                .filter(|cell| !cell.is_empty())
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.len() > 2 && cells[0] == workload && cells[1] == design)
        .unwrap_or_else(|| panic!("no row for {workload} on {design} in\n{table}"))
}

#[test]
fn compare_runs_every_workload_on_every_design() {
    let output = ticklab().arg("compare").output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        table.starts_with("7 workloads on 10 timer designs"),
        "{table}"
    );
    let wakeups = |workload: &str, design: &str| -> f64 {
        compare_row(&table, workload, design)[2].parse().unwrap()
    };
    // brpc's fix sweeps the cancelled timers whose deadlines woke the thread.
    assert!(wakeups("rpc-100k", "bucketed-reclaim") * 5.0 < wakeups("rpc-100k", "bucketed"));
    // A wheel whose clock went back fires every new timer at once: its ticks never go back.
    let early: u64 = compare_row(&table, "wall-step-back", "tokio-wheel")[7]
        .parse()
        .unwrap();
    assert!(early > 1_000, "{table}");
    let (main, own) = table
        .split_once("\nWhat each design reports of its own:\n")
        .expect("the hashed wheel reports a metric of its own");
    for line in main.lines().skip(3) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(cells[10], "0", "a timer fired twice: {line}");
    }
    // Each design's own metrics follow, one row per workload, as the wall step makes each of
    // them count something somewhere.
    for (design, metric) in [
        ("hashed-wheel", "turns_counted_down"),
        ("linux-wheel", "filed_behind"),
    ] {
        let own_rows: Vec<&str> = own
            .lines()
            .filter(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                cells.len() > 3 && cells[2] == design && cells[3] == metric
            })
            .collect();
        assert_eq!(own_rows.len(), 7, "{own}");
    }
    // The fixed alternative timer leaks nothing anywhere: its one metric is left out, and said so.
    assert!(
        own.trim_end()
            .ends_with("Left out, zero on every workload: leaked_entries (tokio-alt)"),
        "{own}"
    );
}

#[test]
fn compare_leaves_out_a_metric_that_is_zero_on_every_workload_and_says_so() {
    let output = ticklab()
        .args([
            "compare",
            "--designs",
            "hashed-wheel,linux-wheel",
            "scenarios/timer/compare/rpc-10k.toml",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        !table.contains("What each design reports of its own"),
        "{table}"
    );
    assert!(
        table.contains(
            "Left out, zero on every workload: turns_counted_down (hashed-wheel), filed_behind \
             (linux-wheel)"
        ),
        "{table}"
    );
}

#[test]
fn compare_shows_a_wake_up_a_minute_as_a_fraction_of_one_a_second() {
    let folder = tempfile::tempdir().unwrap();
    let workload = folder.path().join("minute.toml");
    std::fs::write(
        &workload,
        "about = \"One call a minute with a 60 s timeout, never answered in time\"\n\
         platform = \"linux\"\nrun_for = \"1h\"\n\
         [model]\nkind = \"timer\"\ndesign = \"global-heap\"\nclock = \"monotonic\"\n\
         clients = 1\ncall_interval = \"60s\"\ntimeout = \"60s\"\nlatency = \"2m\"\n",
    )
    .unwrap();
    let output = ticklab()
        .arg("compare")
        .arg(&workload)
        .args(["--designs", "global-heap"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let table = String::from_utf8(output.stdout).unwrap();
    // 61 rounds in an hour: three significant digits, not a whole 0.
    assert_eq!(compare_row(&table, "minute", "global-heap")[2], "0.0169");
}

#[test]
fn compare_takes_chosen_designs_and_workloads_and_refuses_what_it_cannot_compare() {
    let output = ticklab()
        .args([
            "compare",
            "scenarios/timer/compare/rpc-10k.toml",
            "--designs",
            "tokio-wheel,global-heap",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        table.starts_with("1 workload on 2 timer designs"),
        "{table}"
    );
    assert_eq!(
        compare_row(&table, "rpc-10k", "tokio-wheel")[1],
        "tokio-wheel"
    );
    ticklab()
        .args(["compare", "--designs", "bucketd"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown timer design `bucketd`; this binary knows global-heap, bucketed",
        ));
    ticklab()
        .args(["compare", "scenarios/interval/windows-sleep-naive.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a workload is a timer scenario"));
}

/// A machine whose two busy threads keep its one core contended ends a slice every microsecond
/// for the whole of `run_for`, whatever model runs on it.
fn contended_machine(run_for: &str, time_slice: &str, model: &str) -> String {
    format!(
        r#"
about = "a model on a machine whose load keeps its one core contended all run"
platform = "linux"
run_for = "{run_for}"
[machine]
cores = 1
busy_threads = 2
time_slice = "{time_slice}"
[model]
{model}
"#
    )
}

#[test]
fn a_machine_whose_load_keeps_its_cores_contended_is_refused_up_front_whatever_the_kind() {
    let profile = concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/reference.toml");
    let models = [
        "kind = \"interval\"\nmissed_tick = \"burst\"\nperiod = \"1s\"".to_string(),
        "kind = \"timer\"\ndesign = \"bucketed\"\nclock = \"monotonic\"\nclients = 5\n\
         call_interval = \"50ms\"\ntimeout = \"100ms\"\nlatency = [\"1ms\", \"150ms\"]"
            .to_string(),
        format!(
            "kind = \"idle\"\nprofile = \"{profile}\"\nstrategies = [\"condvar\"]\n\
             arrival = \"bursts\"\nevery = \"100ms\"\nburst = 16\nburst_spacing = \"5us\"\n\
             handle = \"20us\"\ntimeout = \"1ms\""
        ),
        "kind = \"executor\"\n[[model.runtime]]\nname = \"main\"\nworkers = 1\n\
         [[model.task]]\nname = \"poller\"\nruntime = \"main\"\ncount = 1\nrepeat = 1000\n\
         steps = [{ sleep = \"1ms\" }]"
            .to_string(),
    ];
    for model in &models {
        // 8.64 million million slice ends over 100 days: refused before the run, not stopped
        // as a runaway after millions of steps.
        let (_folder, path) = temp_scenario(&contended_machine("100d", "1us", model));
        ticklab()
            .args(["run", "--summary-only", path.to_str().unwrap()])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(
                "slice ends and load bursts on the machine's cores",
            ))
            .stderr(predicate::str::contains("hint: lengthen `time_slice`"))
            .stderr(predicate::str::contains("ran away").not());
        // A minute of the same machine, sliced every millisecond, runs.
        let (_folder, path) = temp_scenario(&contended_machine("1m", "1ms", model));
        ticklab()
            .args(["run", "--summary-only", path.to_str().unwrap()])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .success();
    }
}

#[test]
fn a_cpu_load_with_a_share_takes_that_share_of_the_cores_and_stops_when_it_ends() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/hosts/heartbeat-compaction-starts-mid-run.toml"
    ))
    .unwrap();
    assert!(base.contains("\nthreads = 6\n"));
    // Half of the one core, in random bursts, leaves the gossip thread the 315 ms a second it
    // needs: nobody suspects the compacting peer, and the trace names the load.
    let (_folder, path) = temp_scenario(&base.replace("\nthreads = 6\n", "\nshare = 0.5\n"));
    ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "compacting: cpu-load of a thread per core at 50% for 20s (fault 0)",
        ))
        .stdout(predicate::str::contains("false_suspicions            0"));
    // Six threads busy 95% of their time starve it as six busy ones do, and only while the
    // load lasts (20 s to 40 s): every suspicion falls within it and the second it takes to
    // be noticed.
    let (_folder, path) =
        temp_scenario(&base.replace("\nthreads = 6\n", "\nthreads = 6\nshare = 0.95\n"));
    let output = ticklab()
        .args(["run", path.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "compacting: cpu-load of 6 threads at 95% for 20s (fault 0)",
        ))
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(output).unwrap();
    let suspicions: Vec<f64> = text
        .lines()
        .filter(|line| line.contains(" suspects compacting"))
        .map(|line| line.trim().split('s').next().unwrap().parse().unwrap())
        .collect();
    assert!(suspicions.len() >= 2, "{text}");
    assert!(
        suspicions.iter().all(|&at_s| (20.0..42.0).contains(&at_s)),
        "{suspicions:?}"
    );
}
