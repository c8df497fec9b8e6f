//! `ticklab calibrate` as a user runs it: the profile it writes loads, its figures are
//! physically plausible, files are replaced only with --force, and lock and idle scenarios run on
//! what it measured.
//!
//! The figures come from this host, which in CI is a 2-core VM that other tests may load, and
//! these tests run three calibrations at once. So the bounds on them are ones no working
//! measurement can break however busy the host is, often by orders of magnitude: a system call
//! costs more than 50 ns, nothing waits 10 ms at the median, and costs keep the order the calls'
//! work imposes (`posix_spawn` is a `vfork` plus an `exec`). They catch a figure measured in the
//! wrong unit, per batch instead of per call, or of the wrong call.

use assert_cmd::Command;

fn ticklab() -> Command {
    let mut command = Command::cargo_bin("ticklab").unwrap();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

#[cfg(target_os = "linux")]
mod linux {
    use std::fs;
    use std::path::{Path, PathBuf};

    use predicates::prelude::*;
    use ticklab::profile::{Cost, CostProfile, Costs, load, parse};
    use ticklab::scenario::values::parse_duration_ns;

    use super::ticklab;

    const HEADER: &str = "# Measured on this host by `ticklab calibrate` (quick mode)";

    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;

    /// Asserts that `p50` of `name` lies in `range`, and that its p99 is no smaller.
    fn assert_p50_within(name: &str, cost: Cost, range: std::ops::Range<u64>) {
        assert!(
            range.contains(&cost.p50_ns) && cost.p50_ns <= cost.p99_ns,
            "{name}: {cost:?}, expected a p50 in {range:?} ns"
        );
    }

    /// Checks every figure of a calibrated profile, and `text`, the profile as written, for the
    /// fork points behind `fork_per_gib`.
    fn assert_every_figure_is_plausible(profile: &CostProfile, text: &str) {
        let costs = &profile.costs;
        // Entering the kernel takes more than 50 ns, waking a sleeping thread more than 500 ns,
        // and a timer's wake-up at least a microsecond; nothing waits 10 ms at the median.
        assert_p50_within("sched_yield", costs.sched_yield, 50..MS);
        assert_p50_within("nanosleep_zero", costs.nanosleep_zero, US..10 * MS);
        assert_p50_within("spin_iteration", costs.spin_iteration, 1..US);
        assert_p50_within(
            "condvar_timeout_overshoot",
            costs.condvar_timeout_overshoot,
            US..10 * MS,
        );
        assert_p50_within(
            "condvar_signal_to_wake",
            costs.condvar_signal_to_wake,
            500..10 * MS,
        );
        assert_p50_within(
            "epoll_timeout_overshoot",
            costs.epoll_timeout_overshoot,
            US..10 * MS,
        );
        // A thread's CPU time never exceeds the wall time it took.
        let sleep_wall_ns = costs.nanosleep_zero.p50_ns;
        assert_p50_within(
            "nanosleep_zero_cpu",
            costs.nanosleep_zero_cpu,
            100..sleep_wall_ns + 1,
        );
        assert_eq!(
            costs.timer_slack_ns,
            own_timer_slack_ns(),
            "calibrate runs with the slack it inherits from this test"
        );
        assert_process_figures_are_plausible(costs, text);
    }

    /// fork copies the page tables of what is mapped, so it grows with memory; a vfork-style
    /// clone copies nothing, and `posix_spawn` adds an `exec` to one.
    fn assert_process_figures_are_plausible(costs: &Costs, text: &str) {
        let forks = fork_points_p50_ns(text);
        assert!(forks.len() >= 2, "{text}");
        assert!(
            forks.windows(2).all(|pair| pair[0] < pair[1]),
            "fork does not grow with memory: {forks:?}"
        );
        let largest_fork_ns = forks[forks.len() - 1];
        assert_p50_within("fork_base", costs.fork_base, 10 * US..100 * MS);
        // At least 4 ns per 4 KiB page to copy its table entry and count a reference to it.
        assert_p50_within("fork_per_gib", costs.fork_per_gib, MS..10_000 * MS);
        assert_p50_within("vfork", costs.vfork, US..largest_fork_ns);
        let spawn_from_ns = costs.vfork.p50_ns;
        assert_p50_within("posix_spawn", costs.posix_spawn, spawn_from_ns..100 * MS);
    }

    /// fork's p50 at each size, smallest first, from the profile's comments.
    fn fork_points_p50_ns(text: &str) -> Vec<u64> {
        text.lines()
            .filter_map(|line| line.strip_prefix("#   fork +"))
            .map(|point| {
                let p50 = point
                    .split(": p50 ")
                    .nth(1)
                    .and_then(|rest| rest.split(',').next());
                let p50 = p50.unwrap_or_else(|| panic!("no p50 in {point}"));
                let ns = parse_duration_ns(p50).unwrap_or_else(|error| panic!("{error:?}"));
                u64::try_from(ns).unwrap()
            })
            .collect()
    }

    /// This process's timer slack, which a child process inherits.
    fn own_timer_slack_ns() -> u64 {
        let text = fs::read_to_string("/proc/self/timerslack_ns").unwrap();
        text.trim().parse().unwrap()
    }

    /// Runs `ticklab calibrate --quick --out <path>` with `extra` arguments.
    fn calibrate_into(path: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
        ticklab()
            .args(["calibrate", "--quick", "--out"])
            .arg(path)
            .args(extra)
            .assert()
    }

    #[test]
    fn quick_calibration_writes_a_profile_and_replaces_it_only_with_force() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("host.toml");
        calibrate_into(&path, &[]).success();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(HEADER), "{text}");
        assert!(text.contains("\n# Host: Linux "), "{text}");
        let profile = load(&path).unwrap();
        assert!(
            profile
                .about
                .ends_with("measured by ticklab calibrate in quick mode"),
            "{}",
            profile.about
        );
        assert_every_figure_is_plausible(&profile, &text);

        calibrate_into(&path, &[])
            .code(2)
            .stderr(predicate::str::contains("already exists; pass --force"));
        assert_eq!(fs::read_to_string(&path).unwrap(), text);

        calibrate_into(&path, &["--force"]).success();
        let forced = fs::read_to_string(&path).unwrap();
        assert_every_figure_is_plausible(&load(&path).unwrap(), &forced);
        let left: Vec<_> = fs::read_dir(folder.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(left, ["host.toml"], "no temporary file stays behind");
    }

    #[test]
    fn without_out_the_profile_goes_to_stdout() {
        let output = ticklab().args(["calibrate", "--quick"]).output().unwrap();
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.starts_with(HEADER), "{text}");
        let profile = parse("stdout", &text).unwrap();
        assert_every_figure_is_plausible(&profile, &text);
    }

    #[test]
    fn force_needs_out() {
        ticklab()
            .args(["calibrate", "--quick", "--force"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--out"));
    }

    /// The scenario files of the models that charge a cost profile.
    fn lock_and_idle_scenarios() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for folder in ["scenarios/lock", "scenarios/idle"] {
            let folder = root.join(folder);
            if !folder.is_dir() {
                continue;
            }
            for entry in walkdir::WalkDir::new(folder).sort_by_file_name() {
                let entry = entry.unwrap();
                if entry.file_type().is_file()
                    && entry.path().extension().is_some_and(|ext| ext == "toml")
                {
                    files.push(entry.into_path());
                }
            }
        }
        files
    }

    #[test]
    fn lock_and_idle_scenarios_run_on_a_calibrated_profile() {
        let folder = tempfile::tempdir().unwrap();
        let profile = folder.path().join("host.toml");
        calibrate_into(&profile, &[]).success();
        let scenarios = lock_and_idle_scenarios();
        assert!(scenarios.len() >= 7, "{scenarios:?}");
        for scenario in scenarios {
            // The scenarios' expectations are written for the reference figures, so on this
            // host's they may pass (0) or fail (1); a refused profile or run would exit 2.
            let output = ticklab()
                .arg("run")
                .arg(&scenario)
                .arg("--profile")
                .arg(&profile)
                .arg("--summary-only")
                .output()
                .unwrap();
            let code = output.status.code();
            assert!(matches!(code, Some(0 | 1)), "{scenario:?}: {output:?}");
            let stdout = String::from_utf8(output.stdout).unwrap();
            assert!(stdout.contains("--- summary"), "{scenario:?}: {stdout}");
            assert!(stdout.contains("thread "), "{scenario:?}: {stdout}");
        }
    }
}

#[cfg(not(target_os = "linux"))]
#[test]
fn calibrate_is_refused_off_linux() {
    use predicates::prelude::*;
    ticklab()
        .args(["calibrate", "--quick"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("runs on Linux only"));
}
