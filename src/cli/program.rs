//! The command that runs this command line again, for the replay lines it prints: `ticklab` for
//! ticklab's own binary; for a user's binary (`main_with`), the command that ran it, so that a
//! pasted line finds the user's designs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What [`invoked_as`] reads of the process: its `argv[0]`, its folder, and the package `cargo
/// run` (or `cargo test`) says it runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Invocation {
    pub arg0: Option<OsString>,
    pub current_dir: Option<PathBuf>,
    pub cargo: Option<CargoPackage>,
}

/// The package cargo ran: `CARGO_PKG_NAME`, and the workspace `CARGO_MANIFEST_DIR` lies in.
#[derive(Clone, Debug)]
pub(crate) struct CargoPackage {
    pub name: String,
    pub workspace: PathBuf,
}

impl Invocation {
    fn of_this_process() -> Invocation {
        let cargo = std::env::var_os("CARGO").and_then(|_| {
            let name = std::env::var("CARGO_PKG_NAME").ok()?;
            let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
            Some(CargoPackage {
                name,
                workspace: workspace_of(&manifest_dir),
            })
        });
        Invocation {
            arg0: std::env::args_os().next(),
            current_dir: std::env::current_dir().ok(),
            cargo,
        }
    }
}

/// The nearest folder at or above `package` whose `Cargo.toml` declares a `[workspace]`, else
/// the package's own.
fn workspace_of(package: &Path) -> PathBuf {
    package
        .ancestors()
        .find(|folder| {
            std::fs::read_to_string(folder.join("Cargo.toml"))
                .is_ok_and(|manifest| manifest.lines().any(|line| line.trim() == "[workspace]"))
        })
        .unwrap_or(package)
        .to_path_buf()
}

/// The command that runs this binary again from the folder it runs in, to begin a replay line
/// with:
/// - `cargo run -p <package> [--release] [--bin <name>] --` when cargo ran it from its `debug` or
///   `release` folder, and the folder it runs in lies in the package's workspace;
/// - else its name when it was found on the `PATH` (`argv[0]` has no folder);
/// - else its path as it was started (relative paths hold from the same folder).
pub fn invoked_as() -> String {
    command_for(&Invocation::of_this_process())
}

pub(crate) fn command_for(invocation: &Invocation) -> String {
    let Some(arg0) = invocation.arg0.as_deref().map(Path::new) else {
        return "ticklab".to_string();
    };
    if let Some(cargo) = cargo_run(invocation, arg0) {
        return cargo;
    }
    let text = arg0.to_string_lossy();
    shlex::try_quote(&text).map_or_else(|_| text.to_string(), |quoted| quoted.into_owned())
}

/// `cargo run -p … --` for a binary cargo built and ran, from a folder in its workspace.
fn cargo_run(invocation: &Invocation, arg0: &Path) -> Option<String> {
    let package = invocation.cargo.as_ref()?;
    let current_dir = invocation.current_dir.as_deref()?;
    if !current_dir.starts_with(&package.workspace) {
        return None;
    }
    let binary = current_dir.join(arg0);
    let profile = match binary.parent()?.file_name()?.to_str()? {
        "debug" => "",
        "release" => " --release",
        _ => return None,
    };
    let name = binary.file_stem()?.to_str()?;
    let bin = match name == package.name {
        true => String::new(),
        false => format!(" --bin {name}"),
    };
    Some(format!("cargo run -p {}{profile}{bin} --", package.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn under_cargo(arg0: &str, current_dir: &str) -> Invocation {
        Invocation {
            arg0: Some(arg0.into()),
            current_dir: Some(current_dir.into()),
            cargo: Some(CargoPackage {
                name: "my-timers".to_string(),
                workspace: "/work/project".into(),
            }),
        }
    }

    #[test]
    fn the_workspace_is_the_nearest_folder_that_declares_one() {
        let folder = tempfile::tempdir().unwrap();
        let package = folder.path().join("crates/my-timers");
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(
            package.join("Cargo.toml"),
            "[package]\nname = \"my-timers\"\n",
        )
        .unwrap();
        assert_eq!(workspace_of(&package), package);
        std::fs::write(
            folder.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\n",
        )
        .unwrap();
        assert_eq!(workspace_of(&package), folder.path());
    }

    #[test]
    fn a_binary_cargo_ran_in_its_workspace_is_replayed_with_cargo_run() {
        let debug = under_cargo("target/debug/my-timers", "/work/project");
        assert_eq!(command_for(&debug), "cargo run -p my-timers --");
        // From a folder deeper in the workspace cargo passes the full path.
        let release = under_cargo(
            "/work/project/target/release/my-timers",
            "/work/project/docs",
        );
        assert_eq!(command_for(&release), "cargo run -p my-timers --release --");
        let other_bin = under_cargo("target/debug/lab", "/work/project");
        assert_eq!(
            command_for(&other_bin),
            "cargo run -p my-timers --bin lab --"
        );
    }

    #[test]
    fn a_binary_run_from_outside_cargo_is_named_as_it_was_started() {
        let outside = Invocation {
            cargo: None,
            ..under_cargo("target/debug/my-timers", "/work/project")
        };
        assert_eq!(command_for(&outside), "target/debug/my-timers");
        let on_path = Invocation {
            arg0: Some("my-timers".into()),
            ..Invocation::default()
        };
        assert_eq!(command_for(&on_path), "my-timers");
        let spaced = Invocation {
            arg0: Some("/opt/my tools/my-timers".into()),
            ..Invocation::default()
        };
        assert_eq!(command_for(&spaced), "'/opt/my tools/my-timers'");
        // A folder outside the workspace, where cargo would not find the package, or a binary
        // cargo did not build.
        let elsewhere = under_cargo("/work/project/target/debug/my-timers", "/tmp");
        assert_eq!(
            command_for(&elsewhere),
            "/work/project/target/debug/my-timers"
        );
        let installed = under_cargo("/usr/local/bin/my-timers", "/work/project");
        assert_eq!(command_for(&installed), "/usr/local/bin/my-timers");
    }
}
