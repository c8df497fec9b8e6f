//! The `cargo test` command that runs the current test again, as a sweep's failure prints it.

/// How the current test was started: what the command is made of.
#[derive(Clone, Debug, Default)]
pub(super) struct Invocation {
    /// `CARGO_PKG_NAME`, which `cargo test` sets.
    pub package: Option<String>,
    /// The test binary's file name without its extension: its target, a dash and a hash.
    pub binary: Option<String>,
    /// The name of the thread the test runs on: libtest names it after the test, unless it runs
    /// tests on the main thread.
    pub thread: Option<String>,
    /// The test binary's arguments.
    pub args: Vec<String>,
}

impl Invocation {
    pub(super) fn current() -> Invocation {
        Invocation {
            package: std::env::var("CARGO_PKG_NAME").ok(),
            binary: std::env::current_exe().ok().and_then(|exe| {
                exe.file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
            }),
            thread: std::thread::current().name().map(str::to_string),
            args: std::env::args().skip(1).collect(),
        }
    }

    /// The command that runs this test again: every run of it replays the base's regression
    /// files first. With `seed`, the one that repeats the search itself, leaving them out.
    pub(super) fn command(&self, seed: Option<u64>) -> String {
        let mut command = String::new();
        if let Some(seed) = seed {
            command.push_str(&format!(
                "TICKLAB_SWEEP_SEED={seed} {}=0 ",
                super::sweep::REPLAY_VARIABLE
            ));
        }
        command.push_str("cargo test");
        if let Some(package) = &self.package {
            command.push_str(&format!(" -p {package}"));
        }
        if let Some((target, _hash)) = self.binary.as_deref().and_then(|b| b.rsplit_once('-')) {
            command.push_str(&format!(" --test {target}"));
        }
        if let Some(test) = self.thread.as_deref().filter(|&name| name != "main") {
            command.push_str(&format!(" -- {test} --exact"));
            command.push_str(self.ignored_flag());
        }
        command
    }

    /// An `#[ignore]`d test runs only under `--ignored` or `--include-ignored`, and must be named
    /// with one of them to run again. Under `--ignored` every test that runs is ignored; under
    /// `--include-ignored` this one may or may not be, and that flag runs it either way.
    fn ignored_flag(&self) -> &'static str {
        let given = |flag: &str| self.args.iter().any(|arg| arg == flag);
        if given("--ignored") {
            " --ignored"
        } else if given("--include-ignored") {
            " --include-ignored"
        } else {
            ""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn under(args: &[&str]) -> Invocation {
        Invocation {
            package: Some("app".into()),
            binary: Some("faults-0123abcd".into()),
            thread: Some("lease_sweep".into()),
            args: args.iter().map(|arg| arg.to_string()).collect(),
        }
    }

    #[test]
    fn an_ignored_test_s_command_carries_the_flag_that_ran_it() {
        assert_eq!(
            under(&["--ignored", "lease_sweep"]).command(None),
            "cargo test -p app --test faults -- lease_sweep --exact --ignored"
        );
        assert_eq!(
            under(&["--include-ignored"]).command(None),
            "cargo test -p app --test faults -- lease_sweep --exact --include-ignored"
        );
        assert_eq!(
            under(&["lease"]).command(None),
            "cargo test -p app --test faults -- lease_sweep --exact"
        );
    }

    #[test]
    fn searching_again_leaves_the_regression_files_out() {
        assert_eq!(
            under(&[]).command(Some(7)),
            "TICKLAB_SWEEP_SEED=7 TICKLAB_SWEEP_REPLAY=0 cargo test -p app --test faults -- \
             lease_sweep --exact"
        );
    }
}
