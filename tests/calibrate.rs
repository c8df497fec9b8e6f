//! `ticklab calibrate` as a user runs it: the profile it writes loads, files are replaced only
//! with --force, and lock and idle scenarios run on what it measured.
//!
//! The figures come from this host, so these tests assert the profile's structure (every figure
//! present, 0 < p50 <= p99), never how fast the host is.

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
    use ticklab::profile::{CostProfile, load, parse};

    use super::ticklab;

    const HEADER: &str = "# Measured on this host by `ticklab calibrate` (quick mode)";

    fn assert_every_figure_is_valid(profile: &CostProfile) {
        let costs = &profile.costs;
        let figures = [
            ("sched_yield", costs.sched_yield),
            ("nanosleep_zero", costs.nanosleep_zero),
            ("nanosleep_zero_cpu", costs.nanosleep_zero_cpu),
            ("spin_iteration", costs.spin_iteration),
            ("condvar_timeout_overshoot", costs.condvar_timeout_overshoot),
            ("condvar_signal_to_wake", costs.condvar_signal_to_wake),
            ("epoll_timeout_overshoot", costs.epoll_timeout_overshoot),
            ("fork_base", costs.fork_base),
            ("fork_per_gib", costs.fork_per_gib),
            ("vfork", costs.vfork),
            ("posix_spawn", costs.posix_spawn),
        ];
        for (name, cost) in figures {
            assert!(
                0 < cost.p50_ns && cost.p50_ns <= cost.p99_ns,
                "{name} in {}: {cost:?}",
                profile.source
            );
        }
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
        assert_every_figure_is_valid(&profile);

        calibrate_into(&path, &[])
            .code(2)
            .stderr(predicate::str::contains("already exists; pass --force"));
        assert_eq!(fs::read_to_string(&path).unwrap(), text);

        calibrate_into(&path, &["--force"]).success();
        assert_every_figure_is_valid(&load(&path).unwrap());
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
        assert_every_figure_is_valid(&profile);
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
