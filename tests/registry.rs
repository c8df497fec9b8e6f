//! Every model kind in `registry::KINDS` is shipped whole: it has scenarios, each scenario has its
//! snapshot, and CONTRIBUTING.md documents every `[model]` key and metric the code accepts, in the
//! kind's own section, and no key the code refuses. So does `[machine]`.

use std::path::{Path, PathBuf};

use ticklab::machine::MachineSpec;
use ticklab::registry::KINDS;

/// Where CONTRIBUTING.md documents each kind: the `## ` sections (with their `### ` subsections)
/// that hold its `[model]` keys and its metrics.
const SECTIONS: &[(&str, &[&str])] = &[
    ("interval", &["Scenario keys", "Metrics and `[expect]`"]),
    ("timer", &["Timer scenarios"]),
    ("executor", &["Executor scenarios"]),
    ("lock", &["Lock scenarios"]),
    ("idle", &["Idle scenarios"]),
    ("hosts", &["Hosts scenarios"]),
];

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

/// Where `kind` is documented: its sections, joined.
fn kind_docs(doc: &str, kind: &str) -> String {
    let (_, headings) = SECTIONS
        .iter()
        .find(|(name, _)| *name == kind)
        .unwrap_or_else(|| {
            panic!(
                "model kind `{kind}` has no section listed in tests/registry.rs: document its \
                 [model] keys and metrics in CONTRIBUTING.md and add the section to SECTIONS"
            )
        });
    headings
        .iter()
        .map(|heading| section(doc, heading))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `key` is documented in `docs`: the first cell of a table row, set in a TOML example
/// (`key = ...`), a `[[model.key]]` table, or an old spelling a row says is "still read".
fn documents_key(docs: &str, key: &str) -> bool {
    let named = format!("`{key}`");
    docs.lines().any(|line| {
        let line = line.trim_start();
        (line.starts_with('|') && first_cell_keys(line).iter().any(|cell| cell == key))
            || (line.starts_with('|') && line.contains(&named) && line.contains("still read"))
            || line.starts_with(&format!("{key} ="))
            || line.starts_with(&format!("[[model.{key}]]"))
    })
}

/// Whether `metric` is named in `docs`, in a table or in prose.
fn documents_metric(docs: &str, metric: &str) -> bool {
    docs.contains(&format!("`{metric}`"))
}

/// The keys `docs` offers for `[model]`: the first cells of the first key table after the line
/// that introduces the kind's `[model]`, and the keys set under `[model]` in its TOML examples.
fn documented_model_keys(docs: &str, kind: &str) -> Vec<String> {
    let intro = format!("`[model]` with `kind = \"{kind}\"`");
    let mut keys = Vec::new();
    let mut after_intro = false;
    let mut in_key_table = false;
    let mut table_done = false;
    let mut in_model_block = false;
    for line in docs.lines() {
        after_intro |= line.contains(&intro);
        let trimmed = line.trim();
        if after_intro && !table_done {
            if trimmed.starts_with("| key |") {
                in_key_table = true;
                continue;
            }
            if in_key_table && !trimmed.starts_with('|') {
                in_key_table = false;
                table_done = true;
            }
            if in_key_table {
                keys.extend(first_cell_keys(trimmed));
            }
        }
        if trimmed.starts_with('[') {
            in_model_block = trimmed == "[model]";
        } else if trimmed.starts_with("```") {
            in_model_block = false;
        } else if in_model_block && let Some((key, _)) = trimmed.split_once(" =") {
            keys.push(key.trim().to_string());
        }
    }
    keys
}

/// The keys in a table row's first cell: `` | `key` | ... `` or `` | `one`, `two` | ... ``.
fn first_cell_keys(row: &str) -> Vec<String> {
    let Some(cell) = row.trim_start_matches('|').split('|').next() else {
        return Vec::new();
    };
    cell.split(',')
        .filter_map(|key| key.trim().strip_prefix('`')?.strip_suffix('`'))
        .map(str::to_string)
        .collect()
}

/// The `[model]` keys a kind accepts: its own, and for timers, those the built-in designs
/// declare.
fn accepted_keys(kind: &dyn ticklab::registry::ModelKind) -> Vec<&'static str> {
    let mut keys = kind.keys().to_vec();
    if kind.name() == "timer" {
        let registry = ticklab::Registry::builtin();
        let designs: Vec<_> = registry.timer_designs().copied().collect();
        keys.extend(
            designs
                .iter()
                .flat_map(|design| design.keys.iter().map(|key| key.name)),
        );
    }
    keys
}

#[test]
fn every_model_key_is_documented_in_its_kind_s_section() {
    let doc = contributing();
    let mut missing = Vec::new();
    for kind in KINDS {
        let docs = kind_docs(&doc, kind.name());
        // `kind` itself is the selector, documented with the top-level keys.
        for key in accepted_keys(*kind).iter().filter(|key| **key != "kind") {
            if !documents_key(&docs, key) {
                missing.push(format!("{}: `{key}`", kind.name()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "[model] keys the code accepts but CONTRIBUTING.md does not document in the kind's \
         section (add a row to its key table, or a line to its TOML example): {missing:?}"
    );
}

#[test]
fn contributing_documents_no_model_key_the_code_refuses() {
    let doc = contributing();
    let mut unknown = Vec::new();
    for kind in KINDS {
        let docs = kind_docs(&doc, kind.name());
        let documented = documented_model_keys(&docs, kind.name());
        assert!(
            !documented.is_empty(),
            "found no [model] keys for `{}` in CONTRIBUTING.md: its section needs a key table or \
             a TOML example under `[model]`",
            kind.name()
        );
        for key in documented {
            if !accepted_keys(*kind).contains(&key.as_str()) {
                unknown.push(format!("{}: `{key}`", kind.name()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "CONTRIBUTING.md documents [model] keys the code refuses: {unknown:?}"
    );
}

#[test]
fn every_metric_is_documented_in_its_kind_s_section() {
    let doc = contributing();
    let mut missing = Vec::new();
    for kind in KINDS {
        let docs = kind_docs(&doc, kind.name());
        let (part_metrics, part) = kind.part_metrics();
        let metrics = kind.metrics().iter().map(|metric| (metric, "the run"));
        for (metric, of) in metrics.chain(part_metrics.iter().map(|metric| (metric, part))) {
            // Every kind reports it; the Invariants section documents it for all of them.
            if metric.name == INVARIANT_VIOLATIONS {
                continue;
            }
            if !documents_metric(&docs, metric.name) {
                missing.push(format!("{} ({of}): `{}`", kind.name(), metric.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "metrics the code reports but CONTRIBUTING.md does not name in the kind's section: \
         {missing:?}"
    );
}

const INVARIANT_VIOLATIONS: &str = "invariant_violations";

#[test]
fn the_metric_every_kind_reports_is_documented_once_for_all() {
    assert!(
        KINDS.iter().all(|kind| kind
            .metrics()
            .iter()
            .any(|m| m.name == INVARIANT_VIOLATIONS)),
        "every kind reports `{INVARIANT_VIOLATIONS}`"
    );
    assert!(
        documents_metric(
            &section(&contributing(), "Invariants"),
            INVARIANT_VIOLATIONS
        ),
        "the Invariants section of CONTRIBUTING.md names `{INVARIANT_VIOLATIONS}`"
    );
}

#[test]
fn the_machine_table_documents_exactly_the_keys_machine_takes() {
    let docs = section(&contributing(), "Scenario keys");
    let table: Vec<String> = docs
        .lines()
        .skip_while(|line| !line.starts_with("`[machine]`"))
        .skip_while(|line| !line.starts_with("| key |"))
        .skip(1)
        .take_while(|line| line.starts_with('|'))
        .flat_map(first_cell_keys)
        .collect();
    let mut code: Vec<&str> = MachineSpec::keys().to_vec();
    let mut documented: Vec<&str> = table.iter().map(String::as_str).collect();
    code.sort_unstable();
    documented.sort_unstable();
    assert_eq!(
        documented, code,
        "CONTRIBUTING.md's `[machine]` table (under \"Scenario keys\") against the keys \
         [machine] takes"
    );
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
        assert!(
            KINDS.iter().any(|kind| kind.name() == folder),
            "{} is in a folder named after no model kind",
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

/// Outside its folder, a new kind needs a line in `SECTIONS` here (or the tests above fail for
/// it), and a new timer design its module line in `models/src/timer/mod.rs` (or it is never
/// compiled): the guides to adding one must say so.
#[test]
fn the_guides_to_adding_a_kind_or_a_timer_design_name_every_line_outside_its_folder() {
    let doc = contributing();
    let model = section(&doc, "Adding a model");
    assert!(
        model.contains("`SECTIONS`") && model.contains(file!()),
        "\"Adding a model\" does not say to list the kind in `SECTIONS` of {}",
        file!()
    );
    let design = section(&doc, "Adding a timer design");
    assert!(
        design.contains("`pub mod <design>;`") && design.contains("`models/src/timer/mod.rs`"),
        "\"Adding a timer design\" does not say to declare it in models/src/timer/mod.rs"
    );
}
