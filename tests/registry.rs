//! Every model kind in `registry::KINDS` is shipped whole: it has scenarios, and each scenario has
//! its snapshot. (Its keys and metrics are documented in the generated reference, which
//! tests/reference.rs checks.)

use std::path::{Path, PathBuf};

use ticklab::registry::KINDS;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn contributing() -> String {
    std::fs::read_to_string(root().join("CONTRIBUTING.md")).unwrap()
}

/// The text of the `## <heading>` section, up to the next `## ` heading.
fn section(doc: &str, heading: &str) -> String {
    let start = doc
        .lines()
        .position(|line| line.strip_prefix("## ") == Some(heading))
        .unwrap_or_else(|| panic!("CONTRIBUTING.md has no `## {heading}` section"));
    doc.lines()
        .skip(start + 1)
        .take_while(|line| !line.starts_with("## "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every scenario file, as (its kind's folder, its snapshot's name).
fn scenarios() -> Vec<(String, String, PathBuf)> {
    let folder = root().join("scenarios");
    walkdir::WalkDir::new(&folder)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .map(|path| {
            let relative = path.strip_prefix(&folder).unwrap().with_extension("");
            let parts: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            (parts[0].clone(), parts.join("__"), path)
        })
        .collect()
}

#[test]
fn every_kind_ships_scenarios_and_every_scenario_its_snapshot() {
    let scenarios = scenarios();
    for kind in KINDS {
        let count = scenarios
            .iter()
            .filter(|(folder, ..)| folder == kind.name())
            .count();
        assert!(
            count > 0,
            "model kind `{}` has no scenario: add one under scenarios/{}/ with its [expect]",
            kind.name(),
            kind.name()
        );
    }
    for (folder, name, path) in &scenarios {
        // `ticklab sweep` writes its shrunk failures to scenarios/regressions/ by default, of
        // whatever kind; committed there, they are scenarios like any other.
        assert!(
            folder == "regressions" || KINDS.iter().any(|kind| kind.name() == folder),
            "{} is in a folder named after no model kind, nor in scenarios/regressions/",
            path.display()
        );
        let snapshot = root().join("snapshots").join(format!("{name}.snap"));
        assert!(
            snapshot.exists(),
            "{} has no snapshot: run `INSTA_UPDATE=always cargo test --test scenarios` and review \
             {}",
            path.display(),
            snapshot.display()
        );
    }
}

/// Outside its folder, a new kind needs a line in `KINDS` (or nothing can name it) and its
/// reference page listed in the book's table of contents (or the book never shows it), and a new
/// timer design its module line in `models/src/timer/mod.rs` (or it is never compiled):
/// CONTRIBUTING.md's guides to adding one must say so.
#[test]
fn the_guides_to_adding_a_kind_or_a_timer_design_name_every_line_outside_its_folder() {
    let doc = contributing();
    let model = section(&doc, "Adding a kind");
    let kinds_file = "src/registry/kinds.rs";
    let kinds_source = std::fs::read_to_string(root().join(kinds_file)).unwrap();
    assert!(
        kinds_source.contains("pub static KINDS"),
        "{kinds_file} no longer holds KINDS: point this test and the guide at where it is"
    );
    assert!(
        model.contains("`KINDS`") && model.contains(&format!("`{kinds_file}`")),
        "\"Adding a kind\" does not say to list the kind in `KINDS` of {kinds_file}"
    );
    assert!(
        model.contains("`docs/book/src/SUMMARY.md`"),
        "\"Adding a kind\" does not say to list its reference page in docs/book/src/SUMMARY.md"
    );
    let design = section(&doc, "Adding a timer design");
    assert!(
        design.contains("`pub mod <design>;`") && design.contains("`models/src/timer/mod.rs`"),
        "\"Adding a timer design\" does not say to declare it in models/src/timer/mod.rs"
    );
}
