//! `ticklab sweep`: random fault schedules pass on sound designs, find and shrink a real flaw in
//! a wall-clock timer design and a planted bug in an interval to one fault, write each as a
//! scenario that reproduces it under a name of its own, and split deterministically into shards.
//! In a hosts scenario they add partitions, latency spikes and drift; what a shrunk file holds,
//! what a case changed and why cases were rejected are all said.

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
        .stderr(predicate::str::contains(
            "shrunk to 1 fault (a wall-step of +",
        ))
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

#[test]
fn a_failure_whose_name_holds_another_file_goes_under_a_free_name_and_replays_from_there() {
    let folder = tempfile::tempdir().unwrap();
    let sweep = || {
        ticklab()
            .args(["sweep", WALL_CLOCK_TIMERS, "--cases", "50", "--regressions"])
            .arg(folder.path())
            .output()
            .unwrap()
    };
    assert_eq!(sweep().status.code(), Some(1));
    let (named, _) = the_one_regression(folder.path());
    // The user edits the file the sweep wrote: it is theirs now, and not the failure.
    let edited = "# my own notes\nabout = \"kept\"\n";
    std::fs::write(&named, edited).unwrap();
    let output = sweep();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    let free = named.with_file_name(format!(
        "{}-2.toml",
        named.file_stem().unwrap().to_string_lossy()
    ));
    assert!(
        stderr.contains(&format!(
            "{} holds another file, left as it is",
            named.display()
        )) && stderr.contains(&format!("written to {}", free.display()))
            && stderr.contains(&format!("replay: ticklab run {}", free.display()))
            && !stderr.contains("recorded before"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&named).unwrap(), edited);
    let text = std::fs::read_to_string(&free).unwrap();
    assert!(
        text.contains(&format!("# Replay: ticklab run {}", free.display())),
        "{text}"
    );
    ticklab()
        .arg("run")
        .arg(&free)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BROKEN    timer of call #"));
    // The same failure again is the file under the free name, byte for byte.
    let again = String::from_utf8(sweep().stderr).unwrap();
    assert!(
        again.contains(&format!("recorded before in {}", free.display())),
        "{again}"
    );
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
        .stderr(predicate::str::contains(
            "shrunk to 1 fault (a process-suspend for 1.001s",
        ));
    let (written, text) = the_one_regression(folder.path());
    // The smallest schedule that shows the bug: one gap of just over a period in which Linux's
    // `Instant` keeps counting, so a missed tick is due on waking.
    assert_eq!(text.matches("[[fault]]").count(), 1, "{text}");
    assert!(text.contains("kind = \"process-suspend\""), "{text}");
    // Written as a person writes it, and read back as the same nanoseconds.
    assert!(text.contains("duration = \"1.001s\""), "{text}");
    assert_eq!(
        ticklab::scenario::values::parse_duration_ns("1.001s"),
        Ok(1_001_000_000)
    );
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

/// A `skip` interval with a planted bug: after a late tick it skips one grid point too many.
const PLANTED_QUIET: &str = "tests/planted/skip-too-far.toml";

#[test]
fn a_planted_interval_that_goes_quiet_is_found_and_its_twin_passes() {
    let folder = tempfile::tempdir().unwrap();
    ticklab()
        .args(["sweep", PLANTED_QUIET, "--cases", "100", "--regressions"])
        .arg(folder.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("case 0 failed"))
        .stderr(predicate::str::contains("went quiet"));
    let (written, _) = the_one_regression(folder.path());
    ticklab()
        .arg("run")
        .arg(&written)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BROKEN    interval 0 went quiet"));
    let sound = folder.path().join("skip.toml");
    let planted = std::fs::read_to_string(PLANTED_QUIET).unwrap();
    std::fs::write(&sound, planted.replace("\"skip-too-far\"", "\"skip\"")).unwrap();
    sweep_passes(&sound, 100);
}

/// A heartbeat detector with a planted bug: it never suspects anyone.
const PLANTED_DETECTOR: &str = "tests/planted/detector-never-suspects.toml";

#[test]
fn a_detector_that_never_suspects_fails_the_first_case_and_the_real_one_passes_it() {
    let folder = tempfile::tempdir().unwrap();
    ticklab()
        .args(["sweep", PLANTED_DETECTOR, "--cases", "1", "--regressions"])
        .arg(folder.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("case 0 failed"))
        .stderr(predicate::str::contains("and no detector suspected it"));
    let sound = folder.path().join("timeout.toml");
    let planted = std::fs::read_to_string(PLANTED_DETECTOR).unwrap();
    std::fs::write(&sound, planted.replace("\"never-suspects\"", "\"timeout\"")).unwrap();
    sweep_passes(&sound, 1);
}

#[test]
fn a_heartbeat_sweep_finds_a_failure_a_wall_clock_detector_misses_and_shrinks_it() {
    let folder = tempfile::tempdir().unwrap();
    ticklab()
        .args([
            "sweep",
            "scenarios/hosts/detector-pair-wall-clock-sweep-base.toml",
            "--seed",
            "8",
            "--cases",
            "40",
            "--regressions",
        ])
        .arg(folder.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("and no detector suspected it"));
    let (written, text) = the_one_regression(folder.path());
    // The watcher's wall clock stepped back, and the failure it then did not see.
    assert_eq!(text.matches("[[model.host.fault]]").count(), 2, "{text}");
    assert!(text.contains("kind = \"wall-step\""), "{text}");
    ticklab()
        .arg("run")
        .arg(&written)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("and no detector suspected it"));
}

#[test]
fn a_heartbeat_sweep_of_a_correct_detector_passes_whatever_it_freezes() {
    // Watchers frozen or asleep through a peer's failure could not have seen it: no false flag.
    let folder = tempfile::tempdir().unwrap();
    ticklab()
        .args([
            "sweep",
            "scenarios/hosts/detector-pair-sweep-base.toml",
            "--cases",
            "30",
            "--regressions",
        ])
        .arg(folder.path())
        .assert()
        .code(0);
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

/// Sweeps `text`, written to `name` in a folder of its own, with `args`; the output, and the
/// regression folder.
fn sweep_text(name: &str, text: &str, args: &[&str]) -> (std::process::Output, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join(name);
    std::fs::write(&file, text).unwrap();
    let output = ticklab()
        .arg("sweep")
        .arg(&file)
        .args(args)
        .arg("--regressions")
        .arg(folder.path().join("regressions"))
        .output()
        .unwrap();
    (output, folder)
}

/// How many faults of every kind a scenario file holds: the machine's, the hosts', partitions and
/// spikes.
fn faults_in(text: &str) -> usize {
    [
        "[[fault]]",
        "[[model.host.fault]]",
        "[[model.partition]]",
        "[[model.spike]]",
    ]
    .iter()
    .map(|table| text.matches(table).count())
    .sum()
}

#[test]
fn a_shrunk_file_is_told_by_every_fault_it_holds_the_bases_own_included() {
    let folder = tempfile::tempdir().unwrap();
    let output = ticklab()
        .args([
            "sweep",
            "scenarios/hosts/lease-drift-within-bound.toml",
            "--cases",
            "100",
            "--regressions",
        ])
        .arg(folder.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let (_, text) = the_one_regression(folder.path());
    let told: usize = stderr
        .split_once("shrunk to ")
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no count: {stderr}"));
    assert_eq!(told, faults_in(&text), "{stderr}\n{text}");
    // Host faults and the base's partition, each by kind and where it is.
    assert!(
        stderr.contains(&format!("shrunk to {told} faults: "))
            && stderr.contains(" host fault")
            && stderr.contains("on node-")
            && stderr.contains("1 partition (between node-a and lock for 1m at 30s)")
            && stderr.contains("1 of them the base's own"),
        "{stderr}"
    );
    assert!(
        text.contains(&format!("# Shrunk to {told} faults: ")),
        "{text}"
    );
}

/// A holder 2000 ppm slow, beyond the 200 ppm its lease allows for: safe while it reaches the lock
/// service, and two leaders once it is cut off for a whole lease.
const SLOW_HOLDER: &str = r#"
about = "A holder 2000 ppm slow on boottime, no faults"
platform = "linux"
run_for = "2m"
seed = 1

[model]
kind = "hosts"
network = "events"
latency = ["2ms", "5ms"]

[[model.host]]
name = "lock"

[[model.host]]
name = "node-a"
drift_ppm = -2000

[[model.host]]
name = "node-b"

[model.lease]
length = "30s"
renew_every = "3s"
clock = "boottime"
drift_bound_ppm = 200
coordinator = "lock"

[expect]
invariants = true
"#;

#[test]
fn a_hosts_sweep_cuts_the_holder_off_with_a_partition_and_keeps_it_in_the_shrunk_file() {
    let (output, folder) = sweep_text(
        "slow-holder.toml",
        SLOW_HOLDER,
        &["--cases", "200", "--seed", "2"],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("hosts hold the lease at once")
            && stderr.contains("shrunk to 1 partition (between node-a and lock for "),
        "{stderr}"
    );
    let (written, text) = the_one_regression(&folder.path().join("regressions"));
    assert_eq!(text.matches("[[model.partition]]").count(), 1, "{text}");
    assert_eq!(faults_in(&text), 1, "{text}");
    assert!(
        text.contains("after a partition between node-a and lock"),
        "{text}"
    );
    ticklab()
        .arg("run")
        .arg(&written)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("partition between"));
    // The partition is what breaks it: the same file without it holds.
    let table: toml::Table = text.parse().unwrap();
    let mut uncut = table.clone();
    uncut["model"].as_table_mut().unwrap().remove("partition");
    let uncut_file = folder.path().join("uncut.toml");
    std::fs::write(&uncut_file, toml::to_string(&uncut).unwrap()).unwrap();
    ticklab().arg("run").arg(&uncut_file).assert().success();
}

#[test]
fn a_changed_parameter_is_written_as_people_write_durations_and_named_in_the_about() {
    // A partition too late in the run for the 30 s lease to lapse; seed 5 shortens the lease.
    let late_cut = SLOW_HOLDER.replace(
        "[[model.host]]\nname = \"lock\"",
        "[[model.partition]]\nbetween = [\"node-a\", \"lock\"]\nat = \"100s\"\nduration = \"20s\"\n\n\
         [[model.host]]\nname = \"lock\"",
    );
    assert_ne!(late_cut, SLOW_HOLDER);
    let (output, folder) = sweep_text(
        "late-cut.toml",
        &late_cut,
        &["--cases", "200", "--seed", "5"],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let change = "`lease.length` from 30s to 7.5s";
    assert!(
        stderr.contains(&format!(
            "shrunk to 1 partition (between node-a and lock for 20s at 100s), the base's own; \
             1 change: {change}"
        )),
        "{stderr}"
    );
    let (_, text) = the_one_regression(&folder.path().join("regressions"));
    assert!(text.contains("length = \"7.5s\""), "{text}");
    let about = text
        .lines()
        .find_map(|line| line.strip_prefix("about = "))
        .unwrap();
    assert!(about.contains(&format!("changed: {change}")), "{about}");
}

#[test]
fn rejected_cases_are_counted_by_kind_with_the_first_reason() {
    // A tick that takes most of the run: scaled up past the run, it is refused.
    let costly = "about = \"x\"\nplatform = \"linux\"\nrun_for = \"10s\"\n\
                  [model]\nkind = \"interval\"\nmissed_tick = \"skip\"\nperiod = \"1s\"\n\
                  tick_cost = \"9s\"\n[expect]\ninvariants = true\n";
    let (output, _folder) = sweep_text("costly.toml", costly, &["--cases", "40"]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let rejected = stdout
        .split_once(" passed, ")
        .map(|(_, rejected)| rejected.trim_end())
        .unwrap_or_else(|| panic!("{stdout}"));
    let count: u64 = rejected.split(' ').next().unwrap().parse().unwrap();
    assert!(count > 0, "{stdout}");
    assert_eq!(
        rejected,
        format!(
            "{count} rejected: {count} invalid (first, case 0: `tick_cost` is longer than the \
             whole run: `tick_cost = \"29.43s\"`)"
        )
    );
    // Work past the event limit is a kind of its own, with the bound it would pass.
    let huge = costly
        .replace("\"10s\"", "\"100d\"")
        .replace("\"1s\"", "\"1ms\"")
        .replace("tick_cost = \"9s\"\n", "");
    let registry = ticklab::Registry::builtin();
    match ticklab::sweep::check(&registry, "huge.toml", &huge) {
        ticklab::sweep::Verdict::Rejected(rejection) => {
            assert_eq!(rejection.kind, ticklab::sweep::RejectionKind::TooMuchWork);
            assert!(
                rejection
                    .why
                    .starts_with("could handle up to 8640000001 events (")
                    && rejection.why.ends_with("more than the limit of 250000000"),
                "{}",
                rejection.why
            );
        }
        other => panic!("{other:?}"),
    }
}

#[path = "mutant_designs/mod.rs"]
mod mutant_designs;

/// The Linux kernel's wheel under RPC timeouts, its callers running before its timer thread
/// when a frozen process thaws: `{design}` names the wheel or a planted mutant of it.
fn kernel_wheel_base(design: &str) -> String {
    format!(
        r#"
        about = "RPC timeouts on {design}, callers first at a thaw"
        platform = "linux"
        seed = 1
        run_for = "10s"
        [model]
        kind = "timer"
        design = "{design}"
        clock = "monotonic"
        clients = 20
        call_interval = "10ms"
        timeout = "100ms"
        latency = ["1ms", "20ms"]
        slow_responses = 0.05
        slow_latency = "300ms"
        callback_cost = "2us"
        sleep_overshoot = "60us"
        thaw_order = "callers-first"
        [expect]
        invariants = true
        "#
    )
}

/// A kernel wheel that forwards its base past expiries it has not run keeps its promise under
/// a steady load, and fires timers early once its callers file timers while it lags: the sweep
/// finds that in a freeze, shrinks it to the freeze alone, and the real wheel passes the same
/// cases.
#[test]
fn a_kernel_wheel_that_forwards_past_unrun_expiries_is_found_in_a_freeze_and_the_real_one_passes() {
    use mutant_designs::{ForwardsPastUnrunExpiries, LinuxWheelWith};
    let registry = ticklab::Registry::builtin()
        .with_unlisted_timer_design::<LinuxWheelWith<ForwardsPastUnrunExpiries>>();
    let sweep = |design: &str, cases| {
        ticklab::sweep::sweep(
            &registry,
            "kernel-wheel.toml",
            &kernel_wheel_base(design),
            cases,
            0,
            Shard::WHOLE,
            |_, _, _| {},
        )
        .unwrap()
    };
    let planted = sweep("linux-wheel-mutant", 100);
    let failure = planted.failure.expect("the sweep finds the planted bug");
    assert!(
        failure.reason.contains("before its timeout"),
        "{}",
        failure.reason
    );
    assert_eq!(failure.added_faults, 1, "{}", failure.text);
    assert!(
        failure.text.contains("kind = \"process-suspend\"")
            || failure.text.contains("kind = \"system-suspend\""),
        "{}",
        failure.text
    );
    let real = sweep("linux-wheel", failure.case + 1);
    assert!(real.failure.is_none(), "{:?}", real.failure);
    assert_eq!(real.passed + real.rejected, failure.case + 1);
}
