//! Scenario files as a fuzzer writes them: every shipped scenario with some of its values swapped
//! for extremes (a latency of an hour, a nanosecond period, a count of sixteen million, a
//! negative number). Whatever the file says, ticklab answers with a run or an error, never a
//! panic, within small bounds on work and memory.
//!
//! `MUTATED_SCENARIO_CASES` runs more cases than CI's, to search longer.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::NoTrace;

fn scenario_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    files
}

/// Values a fuzzer tries first: the edges of every range, and ones that found bugs before.
const DURATIONS: &[&str] = &[
    "0s", "1ns", "999ns", "1us", "1ms", "59m", "3601s", "100d", "36500d", "-1s",
];
const NUMBERS: &[i64] = &[0, 1, -1, 2, 255, 65_536, 16_777_217, i64::MAX, i64::MIN];

fn is_duration(text: &str) -> bool {
    let digits = text.trim_start_matches('-');
    digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.ends_with(|c: char| c.is_ascii_alphabetic())
}

/// Every leaf that holds a duration or a number, by its path of keys and indices.
fn leaves(value: &toml::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        toml::Value::Table(table) => {
            for (key, value) in table {
                path.push(key.clone());
                leaves(value, path, out);
                path.pop();
            }
        }
        toml::Value::Array(items) => {
            for (index, value) in items.iter().enumerate() {
                path.push(index.to_string());
                leaves(value, path, out);
                path.pop();
            }
        }
        toml::Value::String(text) if is_duration(text) => out.push(path.clone()),
        toml::Value::Integer(_) | toml::Value::Float(_) => out.push(path.clone()),
        _ => {}
    }
}

fn leaf_mut<'a>(value: &'a mut toml::Value, path: &[String]) -> &'a mut toml::Value {
    path.iter().fold(value, |value, step| match value {
        toml::Value::Table(table) => table.get_mut(step).unwrap(),
        toml::Value::Array(items) => &mut items[step.parse::<usize>().unwrap()],
        _ => unreachable!("leaves are found under tables and arrays"),
    })
}

/// The file at `file_index` with the leaves picked by `picks` swapped for extremes.
fn mutate(files: &[PathBuf], file_index: usize, picks: &[(usize, usize)]) -> (String, String) {
    let path = &files[file_index % files.len()];
    let text = std::fs::read_to_string(path).unwrap();
    let mut value: toml::Value = toml::from_str(&text).unwrap();
    let mut found = Vec::new();
    leaves(&value, &mut Vec::new(), &mut found);
    for &(leaf, extreme) in picks {
        if found.is_empty() {
            break;
        }
        let leaf = leaf_mut(&mut value, &found[leaf % found.len()]);
        *leaf = match leaf {
            toml::Value::String(_) => {
                toml::Value::String(DURATIONS[extreme % DURATIONS.len()].to_string())
            }
            _ => toml::Value::Integer(NUMBERS[extreme % NUMBERS.len()]),
        };
    }
    (path.display().to_string(), toml::to_string(&value).unwrap())
}

fn cases() -> u32 {
    std::env::var("MUTATED_SCENARIO_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/mutated_scenarios.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_mutated_scenario_runs_or_is_refused_but_never_panics(
        file_index in any::<usize>(),
        picks in prop::collection::vec((any::<usize>(), any::<usize>()), 1..4),
    ) {
        let files = scenario_files();
        let (source, text) = mutate(&files, file_index, &picks);
        // Profiles are found beside the scenario: parse it where it was.
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let Ok(scenario) = ticklab::loader::parse_with(
                &ticklab::Registry::builtin(),
                &source,
                &text,
            ) else {
                return;
            };
            let options = RunOptions {
                max_events: 2_000_000,
                max_memory_bytes: 64 << 20,
                ..RunOptions::default()
            };
            let _ = run_scenario(&scenario, &options, &mut NoTrace);
        }));
        prop_assert!(outcome.is_ok(), "{source} panicked, mutated to:\n{text}");
    }
}
