//! The build settings CI's time depends on, which nothing else would notice were lost: a slower
//! build passes every test, and a user's view built without tokio's task hooks passes its own
//! tests too, only checking less.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The packages Cargo.toml names under `[profile.dev.package]` with `opt-level = 0`.
fn unoptimised_in_debug(manifest: &toml::Table) -> BTreeSet<String> {
    manifest["profile"]["dev"]["package"]
        .as_table()
        .expect("[profile.dev.package] is a table")
        .iter()
        .filter(|(_, settings)| settings.get("opt-level") == Some(&toml::Value::Integer(0)))
        .map(|(name, _)| name.clone())
        .collect()
}

/// The triple of the machine that builds, which `rustc -vV` names.
fn host_triple() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let output = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let text = String::from_utf8(output.stdout).unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// Every proc macro this machine builds for the workspace, from `cargo metadata` (a platform's
/// own dependencies, such as wasm's, left out).
fn proc_macros() -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host_triple()])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|package| {
            package["targets"].as_array().unwrap().iter().any(|target| {
                target["kind"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|kind| kind == "proc-macro")
            })
        })
        .map(|package| package["name"].as_str().unwrap().to_string())
        .collect()
}

/// The proc macros that `[profile.dev.package]` leaves out of its `opt-level = 0` entries.
fn optimised_proc_macros(manifest: &toml::Table) -> Vec<String> {
    let unoptimised = unoptimised_in_debug(manifest);
    proc_macros()
        .into_iter()
        .filter(|name| !unoptimised.contains(name))
        .collect()
}

fn manifest() -> toml::Table {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

/// `[profile.dev.package."*"]` outranks `build-override`, so a proc macro without an entry of
/// its own is built at opt-level 2, for nothing: the graph's proc macros were a quarter of a
/// fresh debug build's CPU time.
#[test]
fn every_proc_macro_is_built_without_optimisation_in_debug() {
    let missing = optimised_proc_macros(&manifest());
    assert!(
        missing.is_empty(),
        "give each of {missing:?} `[profile.dev.package.<name>] opt-level = 0` in Cargo.toml, \
         with the other proc macros"
    );
}

#[test]
fn a_proc_macro_whose_entry_is_gone_is_named() {
    let mut manifest = manifest();
    let packages = manifest["profile"]["dev"]["package"]
        .as_table_mut()
        .unwrap();
    packages.remove("serde_derive");
    assert_eq!(optimised_proc_macros(&manifest), ["serde_derive"]);
}

/// `.ci/crate-user.sh` builds the packages with tokio's task hooks, so that the fresh crate's
/// tests/blocked.rs checks the warning that names a task; built without them, that test checks
/// the plain warning and passes, and the named one goes unchecked.
#[test]
fn the_user_s_view_is_built_with_tokio_s_task_hooks_on_the_msrv() {
    let script = std::fs::read_to_string(root().join(".ci/crate-user.sh")).unwrap();
    for line in [
        "export RUSTFLAGS=\"--cfg tokio_unstable\"",
        "cargo \"+$msrv\" install ticklab --locked",
        "cargo \"+$msrv\" test --release",
    ] {
        assert!(
            script.lines().any(|each| each.contains(line)),
            ".ci/crate-user.sh no longer runs `{line}`"
        );
    }
    let blocked = std::fs::read_to_string(root().join(".ci/fresh-crate/tests/blocked.rs")).unwrap();
    assert!(blocked.contains("cfg!(tokio_unstable)"));
}
