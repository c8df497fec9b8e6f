//! The reference pages and the scenario files' JSON Schema under docs/book/src/reference/ are
//! what the code writes; the key tables they are written from name exactly the keys the parser
//! reads; every shipped scenario is valid under the schema, and files with a key the parser
//! refuses are not.

use std::path::{Path, PathBuf};

use ticklab::Registry;
use ticklab::reference::{self, FAULTS};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn folder() -> PathBuf {
    root().join("docs/book/src/reference")
}

#[test]
fn the_committed_pages_and_schema_are_what_the_code_writes() {
    let differences = reference::compare_pages(
        &folder(),
        &ticklab::cli::reference_pages(&Registry::builtin()),
    );
    assert!(
        differences.is_empty(),
        "the reference pages differ from the code; run `cargo run -- reference` and commit \
         docs/book/src/reference/:\n{}",
        differences.join("\n")
    );
}

#[test]
fn every_key_table_names_exactly_the_keys_serde_reads() {
    let tables = reference::tables();
    // The top level, [machine], [[fault]], six kinds' [model] and what those nest.
    assert!(tables.len() >= 18, "only {} tables", tables.len());
    let mismatches: Vec<String> = tables.into_iter().flat_map(reference::mismatches).collect();
    assert!(
        mismatches.is_empty(),
        "key tables against the parser's fields:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn every_kind_has_a_key_table_whose_kind_is_its_name() {
    for kind in ticklab::registry::kind_names() {
        let table = reference::model_table(kind)
            .unwrap_or_else(|| panic!("kind `{kind}` has no key table in ticklab::reference"));
        let selector = table.key("kind").expect("a [model] table takes `kind`");
        assert!(
            matches!(selector.value, reference::ValueType::Choice(names) if names == [kind]),
            "the `{kind}` table's `kind` key names another kind"
        );
    }
}

#[test]
fn every_fault_kind_is_documented_once_in_the_code_s_order() {
    let documented: Vec<&str> = FAULTS.iter().map(|fault| fault.kind).collect();
    assert_eq!(documented, ticklab::sim::FaultKind::NAMES);
    for fault in FAULTS {
        for key in fault.keys {
            assert!(
                reference::FAULT.key(key).is_some(),
                "{}: `{key}` is no [[fault]] key",
                fault.kind
            );
        }
    }
}

/// The committed schema, compiled.
fn committed_schema() -> (boon::Schemas, boon::SchemaIndex) {
    let path = folder().join("scenario.schema.json");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let index = compiler
        .compile(path.to_str().unwrap(), &mut schemas)
        .unwrap_or_else(|error| panic!("{} does not compile: {error}", path.display()));
    (schemas, index)
}

/// The scenario at `path` as JSON, as an editor hands it to the schema.
fn as_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    toml::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn toml_files(folder: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(folder)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect()
}

#[test]
fn every_shipped_scenario_is_valid_under_the_committed_schema() {
    let (schemas, index) = committed_schema();
    let scenarios = toml_files(&root().join("scenarios"));
    assert!(scenarios.len() > 50, "found {} scenarios", scenarios.len());
    let invalid: Vec<String> = scenarios
        .iter()
        .filter_map(|path| {
            schemas
                .validate(&as_json(path), index)
                .err()
                .map(|error| format!("{}: {error:#}", path.display()))
        })
        .collect();
    assert!(invalid.is_empty(), "{}", invalid.join("\n\n"));
}

#[test]
fn files_with_an_unknown_key_or_a_wrong_type_are_invalid_under_the_schema() {
    let (schemas, index) = committed_schema();
    for name in [
        "machine-unknown-key",
        "hosts-host-machine-unknown-key",
        "executor-unknown-step-key",
        "duration-as-number",
        "duration-in-years",
        "executor-step-duration-as-number",
        "expect-count-as-text",
        "expect-duration-as-number",
        "expect-metric-nobody-has",
        "idle-unknown-strategy",
        "lock-unknown-spawn",
        "lock-memory-without-unit",
        "machine-load-of-one",
        "hosts-top-level-fault",
        "missing-platform",
        "negative-seed",
    ] {
        let path = root()
            .join("tests/bad_scenarios")
            .join(format!("{name}.toml"));
        assert!(
            schemas.validate(&as_json(&path), index).is_err(),
            "{} is valid under the schema, yet the parser refuses it",
            path.display()
        );
        assert!(
            Registry::builtin().load(&path).is_err(),
            "{} is accepted by the parser",
            path.display()
        );
    }
}

/// The schema's duration pattern takes what the parser takes, and refuses what it refuses.
#[test]
fn the_schema_s_durations_are_the_parser_s() {
    let (schemas, index) = committed_schema();
    let scenario = |run_for: &str| {
        serde_json::json!({
            "about": "a duration", "platform": "linux", "run_for": run_for,
            "model": { "kind": "interval", "missed_tick": "burst", "period": "1s" },
        })
    };
    for text in [
        "250ms",
        "15.5s",
        "8m",
        "1h",
        "2h 30m",
        "2h30m",
        "365d",
        "PT1H",
        "pt1h30m",
        "1w",
        "3 mins 34s 123ms",
        "10 hours, 30 minutes",
        "10:30:00",
        "1 day 02:03:04",
        "1.5h",
        "2us",
        "2µs",
        "7ns",
        "+1s",
        "1y",
        "1mo",
        "P1Y",
        "soon",
        "",
        "1",
        "1 s",
        "-1s",
        "1h ago",
        "s1",
        "1sx",
        "10 secs",
        "1,5s",
    ] {
        let parsed = ticklab::scenario::values::parse_duration_ns(text).is_ok_and(|ns| ns >= 0);
        let valid = schemas.validate(&scenario(text), index).is_ok();
        assert_eq!(
            valid, parsed,
            "\"{text}\": the schema says {valid}, the parser {parsed}"
        );
    }
}

fn ticklab() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("ticklab").unwrap()
}

/// Adds `name`, with `text`, to the pages the folder's manifest says `ticklab reference` wrote.
fn list_as_written(folder: &Path, name: &str, text: &str) {
    use sha2::Digest;
    let digest: String = sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let manifest = folder.join(reference::MANIFEST);
    let mut listed = std::fs::read_to_string(&manifest).unwrap();
    listed += &format!("{digest}  {name}\n");
    std::fs::write(&manifest, listed).unwrap();
}

/// The stderr of `ticklab reference <folder>`, which must exit with `code`.
fn reference_into(folder: &Path, code: i32) -> String {
    let assert = ticklab().arg("reference").arg(folder).assert().code(code);
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

#[test]
fn a_file_of_a_page_s_name_that_is_not_text_is_refused_not_replaced() {
    let out = tempfile::tempdir().unwrap();
    let mine = out.path().join("cli.md");
    std::fs::write(&mine, b"caf\xe9\n").unwrap();
    let stderr = reference_into(out.path(), 2);
    assert!(
        stderr.contains("cli.md is not a page `ticklab reference` wrote"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&mine).unwrap(), b"caf\xe9\n");
    assert!(!out.path().join("machine.md").exists());
}

#[test]
fn a_saved_copy_of_a_page_is_kept_and_an_edited_old_page_is_left() {
    let out = tempfile::tempdir().unwrap();
    let folder = out.path();
    reference_into(folder, 0);
    // A copy the user saved under a name of their own, with the generated-by header.
    let copy = folder.join("cli-as-of-last-week.md");
    std::fs::copy(folder.join("cli.md"), &copy).unwrap();
    // A page an earlier ticklab wrote and no longer makes, which the user has since edited.
    let gone = format!("{}\n\n# gone\n", reference::GENERATED_HEADER);
    let edited = folder.join("kind-gone.md");
    std::fs::write(&edited, format!("{gone}my notes\n")).unwrap();
    list_as_written(folder, "kind-gone.md", &gone);
    let stderr = reference_into(folder, 0);
    assert!(copy.exists(), "the user's copy was removed");
    assert!(edited.exists(), "the edited page was removed");
    assert!(stderr.contains("kind-gone.md: left in place"), "{stderr}");
    ticklab()
        .args(["reference", "--check"])
        .arg(folder)
        .assert()
        .code(0);
}

#[cfg(unix)]
#[test]
fn a_page_s_name_that_is_a_link_is_refused_and_nothing_is_written_through_it() {
    let out = tempfile::tempdir().unwrap();
    let folder = out.path().join("reference");
    std::fs::create_dir(&folder).unwrap();
    let outside = out.path().join("outside.md");
    // Dangling: the page would create the file it points to.
    std::os::unix::fs::symlink(&outside, folder.join("cli.md")).unwrap();
    let stderr = reference_into(&folder, 2);
    assert!(stderr.contains("cli.md is a symbolic link"), "{stderr}");
    assert!(!outside.exists(), "written through a dangling link");
    // To a page of ours outside the folder: still not written through.
    reference_into(&out.path().join("elsewhere"), 0);
    let ours = out.path().join("elsewhere").join("cli.md");
    std::fs::write(&ours, format!("{}\n\nold\n", reference::GENERATED_HEADER)).unwrap();
    std::fs::remove_file(folder.join("cli.md")).unwrap();
    std::os::unix::fs::symlink(&ours, folder.join("cli.md")).unwrap();
    reference_into(&folder, 2);
    assert!(std::fs::read_to_string(&ours).unwrap().ends_with("old\n"));
    assert!(!folder.join("machine.md").exists());
}

#[test]
fn the_reference_command_writes_every_page_into_the_folder_it_is_named() {
    let out = tempfile::tempdir().unwrap();
    let folder = out.path().join("reference");
    ticklab().arg("reference").arg(&folder).assert().code(0);
    for page in ticklab::cli::reference_pages(&Registry::builtin()) {
        let written = std::fs::read_to_string(folder.join(&page.name)).unwrap();
        assert_eq!(written, page.text, "{}", page.name);
    }
    ticklab()
        .args(["reference", "--check"])
        .arg(&folder)
        .assert()
        .code(0);
}

#[test]
fn the_reference_command_never_replaces_a_file_it_did_not_write() {
    let out = tempfile::tempdir().unwrap();
    let mine = out.path().join("machine.md");
    std::fs::write(&mine, "# my own notes on machines\n").unwrap();
    let assert = ticklab().arg("reference").arg(out.path()).assert().code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("machine.md") && stderr.contains("is not a page `ticklab reference` wrote"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "# my own notes on machines\n"
    );
    assert!(
        !out.path().join("scenario-file.md").exists(),
        "a page was written beside a file the command refused to replace"
    );
}

#[test]
fn reference_check_names_each_page_that_differs_and_exits_1() {
    let out = tempfile::tempdir().unwrap();
    let folder = out.path();
    ticklab().arg("reference").arg(folder).assert().code(0);
    let lock = folder.join("kind-lock.md");
    let text = std::fs::read_to_string(&lock).unwrap();
    std::fs::write(&lock, text.replace("| `spawners` |", "| `spawnerz` |")).unwrap();
    // A page an earlier ticklab wrote, that this one no longer makes.
    let stale = folder.join("kind-gone.md");
    let gone = format!("{}\n\n# gone\n", reference::GENERATED_HEADER);
    std::fs::write(&stale, &gone).unwrap();
    list_as_written(folder, "kind-gone.md", &gone);
    std::fs::remove_file(folder.join("faults.md")).unwrap();
    let assert = ticklab()
        .args(["reference", "--check"])
        .arg(folder)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    for expected in [
        "kind-lock.md differs",
        "- | `spawnerz` |",
        "+ | `spawners` |",
        "faults.md is missing",
        "kind-gone.md is a generated page the code no longer makes",
        "run `ticklab reference",
    ] {
        assert!(stderr.contains(expected), "no `{expected}` in:\n{stderr}");
    }
    // Writing again mends all three.
    ticklab().arg("reference").arg(folder).assert().code(0);
    assert!(!stale.exists());
    ticklab()
        .args(["reference", "--check"])
        .arg(folder)
        .assert()
        .code(0);
}

/// `.taplo.toml` points every shipped scenario at the committed schema, so an editor running
/// Taplo checks them as they are typed; and the `#:schema` line the book gives resolves, from a
/// kind's folder, to the same file.
#[test]
fn editors_are_pointed_at_the_committed_schema() {
    let config: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join(".taplo.toml")).unwrap()).unwrap();
    let rules = config["rule"]
        .as_array()
        .expect(".taplo.toml has [[rule]]s");
    let scenario_rule = rules
        .iter()
        .find(|rule| {
            rule["include"].as_array().is_some_and(|include| {
                include
                    .iter()
                    .any(|p| p.as_str() == Some("scenarios/**/*.toml"))
            })
        })
        .expect("a .taplo.toml rule includes scenarios/**/*.toml");
    let path = scenario_rule["schema"]["path"].as_str().unwrap();
    assert_eq!(
        root().join(path).canonicalize().unwrap(),
        folder()
            .join("scenario.schema.json")
            .canonicalize()
            .unwrap(),
        ".taplo.toml's schema path"
    );

    let editor = std::fs::read_to_string(root().join("docs/book/src/editor.md")).unwrap();
    let line = editor
        .lines()
        .find(|line| line.starts_with("#:schema ../"))
        .expect("the book's editor chapter gives a relative #:schema line");
    let relative = line.trim_start_matches("#:schema ");
    assert!(
        root().join("scenarios/interval").join(relative).is_file(),
        "`{line}` does not resolve from scenarios/<kind>/"
    );
}
