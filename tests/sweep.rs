//! `ticklab sweep`: random fault schedules pass on sound designs, find and shrink a real flaw in
//! a wall-clock timer design and a planted bug in an interval to one fault, write each as a
//! scenario that reproduces it, and split deterministically into shards.

use assert_cmd::Command;
use predicates::prelude::*;
use ticklab::sweep::{Case, Shard};

fn ticklab() -> Command {
    let mut command = Command::cargo_bin("ticklab").unwrap();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Timeouts on wall-clock deadlines: a forward wall step makes pending timers fire early.
const WALL_CLOCK_TIMERS: &str = "scenarios/timer/bucketed-wall-clock-sweep-base.toml";

/// Sweeps `file` for `cases` cases and requires every one to pass.
fn sweep_passes(file: impl AsRef<std::ffi::OsStr>, cases: u32) {
    ticklab()
        .arg("sweep")
        .arg(file)
        .args(["--cases", &cases.to_string()])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{cases} cases of shard 1/1: {cases} passed"
        )));
}

#[test]
fn sound_designs_pass_every_case() {
    sweep_passes("scenarios/interval/windows-sleep-fixed.toml", 40);
    // `delay` keeps its grid for a tick up to 5 ms late: the handling invariant allows that.
    sweep_passes(
        "scenarios/interval/matrix/linux-process-suspend-delay.toml",
        40,
    );
}

#[test]
fn a_wall_clock_timer_firing_early_is_found_shrunk_to_one_step_and_replays() {
    let folder = tempfile::tempdir().unwrap();
    let regressions = folder.path().join("regressions");
    let sweep = || {
        ticklab()
            .args(["sweep", WALL_CLOCK_TIMERS, "--cases", "50", "--regressions"])
            .arg(&regressions)
            .assert()
    };
    sweep()
        .code(1)
        .stderr(predicate::str::contains("shrunk to 1 fault(s)"))
        .stderr(predicate::str::contains(format!(
            "created the folder {}",
            regressions.display()
        )))
        .stderr(predicate::str::contains("replay: ticklab run "));
    let (written, text) = the_one_regression(&regressions);
    assert_eq!(text.matches("[[fault]]").count(), 1, "{text}");
    assert!(text.contains("kind = \"wall-step\""), "{text}");
    // The file says what broke, not what its base was about.
    let about = text
        .lines()
        .find_map(|line| line.strip_prefix("about = "))
        .unwrap();
    assert!(
        about.contains("Found by sweeping bucketed-wall-clock-sweep-base.toml")
            && about.contains("before its timeout")
            && about.contains("after a wall-step of +"),
        "{about}"
    );
    // The file reproduces the failure on its own.
    ticklab()
        .arg("run")
        .arg(&written)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BROKEN    timer of call #"));
    // Sweeping again finds the same case and leaves the recorded file alone, and says so only.
    sweep()
        .code(1)
        .stderr(predicate::str::contains("recorded before in"))
        .stderr(predicate::str::contains("written to").not())
        .stderr(predicate::str::contains("created the folder").not());
    assert_eq!(std::fs::read_to_string(&written).unwrap(), text);
}

/// The only file a sweep wrote into `folder`, and its text.
fn the_one_regression(folder: &std::path::Path) -> (std::path::PathBuf, String) {
    let written: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let text = std::fs::read_to_string(&written[0]).unwrap();
    (written[0].clone(), text)
}

/// A `fixed` interval with a planted bug, known only to test builds (the models' `planted-bugs`
/// feature): it steps from the missed deadline instead of from now, so it replays missed periods.
const PLANTED_FIXED: &str = "tests/planted/fixed-without-reanchor.toml";

#[test]
fn a_planted_replaying_fixed_interval_is_found_shrunk_and_replays() {
    let folder = tempfile::tempdir().unwrap();
    ticklab()
        .args(["sweep", PLANTED_FIXED, "--cases", "100", "--regressions"])
        .arg(folder.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("case 0 failed"))
        .stderr(predicate::str::contains("shrunk to 1 fault(s)"));
    let (written, text) = the_one_regression(folder.path());
    // The smallest schedule that shows the bug: one gap of just over a period in which Linux's
    // `Instant` keeps counting, so a missed tick is due on waking.
    assert_eq!(text.matches("[[fault]]").count(), 1, "{text}");
    assert!(text.contains("kind = \"process-suspend\""), "{text}");
    let suspend_ms: u64 = text
        .lines()
        .find_map(|line| {
            line.strip_prefix("duration = \"")?
                .strip_suffix("ms\"")?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no duration in ms: {text}"));
    assert_eq!(suspend_ms, 1_001, "{text}");
    ticklab()
        .arg("run")
        .arg(&written)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BROKEN    interval 0 burst"));
}

#[test]
fn the_same_sweep_passes_when_the_interval_re_anchors() {
    let folder = tempfile::tempdir().unwrap();
    let sound = folder.path().join("fixed.toml");
    let planted = std::fs::read_to_string(PLANTED_FIXED).unwrap();
    let fixed = planted.replace("\"fixed-without-reanchor\"", "\"fixed\"");
    assert_ne!(planted, fixed);
    std::fs::write(&sound, fixed).unwrap();
    sweep_passes(&sound, 100);
}

/// The cases a sweep of `cases` runs for `seed` on `shard`: number, and what each added.
fn cases_run(seed: u64, cases: u64, shard: Shard) -> Vec<(u64, Case)> {
    let source = "scenarios/interval/windows-sleep-naive.toml";
    let base = std::fs::read_to_string(source).unwrap();
    let mut run = Vec::new();
    let registry = ticklab::Registry::builtin();
    let outcome = ticklab::sweep::sweep(
        &registry,
        source,
        &base,
        cases,
        seed,
        shard,
        |case, drawn, _| run.push((case, drawn.clone())),
    )
    .unwrap();
    assert!(outcome.failure.is_none(), "{:?}", outcome.failure);
    assert_eq!(outcome.run, run.len() as u64);
    run
}

#[test]
fn shards_split_the_cases_and_the_same_seed_gives_the_same_sweep() {
    let whole = cases_run(7, 25, Shard::WHOLE);
    assert_eq!(
        whole.iter().map(|(case, _)| *case).collect::<Vec<_>>(),
        (0..25).collect::<Vec<_>>()
    );
    let first = cases_run(7, 25, Shard { index: 1, count: 2 });
    let second = cases_run(7, 25, Shard { index: 2, count: 2 });
    assert_eq!((first.len(), second.len()), (13, 12));
    // Disjoint, and together the whole sweep, each case drawn exactly as the whole sweep drew it.
    let mut together: Vec<(u64, Case)> = first.into_iter().chain(second).collect();
    together.sort_by_key(|(case, _)| *case);
    assert_eq!(together, whole);
    assert_eq!(
        cases_run(7, 25, Shard::WHOLE),
        whole,
        "the same seed, the same sweep"
    );
    // Another seed draws other fault schedules for the same case numbers.
    let other = cases_run(8, 25, Shard::WHOLE);
    let same = whole.iter().zip(&other).filter(|(a, b)| a.1 == b.1).count();
    assert!(
        same < 3,
        "{same} of 25 cases are the same under another seed"
    );
    // The command line agrees on the split.
    let run = |shard: &str| {
        let output = ticklab()
            .args([
                "sweep",
                "scenarios/interval/windows-sleep-naive.toml",
                "--cases",
                "25",
                "--seed",
                "7",
                "--shard",
                shard,
            ])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    assert!(run("1/2").starts_with("13 cases of shard 1/2"));
    assert!(run("2/2").starts_with("12 cases of shard 2/2"));
}

#[test]
fn a_bad_shard_or_case_count_is_refused() {
    ticklab()
        .args([
            "sweep",
            "scenarios/interval/windows-sleep-fixed.toml",
            "--cases",
            "5",
            "--shard",
            "3/2",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a shard"));
    ticklab()
        .args([
            "sweep",
            "scenarios/interval/windows-sleep-fixed.toml",
            "--cases",
            "0",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--cases must be at least 1"));
}
