//! A corpus of broken scenario files, each stating the exact error it must produce in its first
//! two lines: `# error: <file>:<line>:<col>: <message>` and `# hint: <hint>`. Every error has a
//! hint: it is the part that tells the user what to write instead.

use std::path::Path;

fn expected(text: &str, key: &str) -> String {
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix(&format!("# {key}: ")));
    line.unwrap_or_else(|| panic!("the file lacks a `# {key}:` line"))
        .to_string()
}

#[test]
fn every_bad_scenario_fails_with_its_exact_error_and_hint() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_scenarios");
    let mut checked = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let error = match ticklab::loader::parse(&name, &text) {
            Ok(_) => panic!("{name} parsed without error"),
            Err(error) => error,
        };
        assert_eq!(error.headline(), expected(&text, "error"), "{name}");
        assert_eq!(
            error.hint(),
            Some(expected(&text, "hint").as_str()),
            "{name}"
        );
        checked += 1;
    }
    assert!(checked >= 45, "only {checked} bad scenarios found");
}

#[test]
fn errors_show_the_offending_line_underlined() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_scenarios");
    let text = std::fs::read_to_string(folder.join("unknown-model-key.toml")).unwrap();
    let error = ticklab::loader::parse("unknown-model-key.toml", &text).unwrap_err();
    let rendered = error.to_string();
    assert!(
        rendered.contains("\n 10 | perod = \"1s\"\n    | ^^^^^\n"),
        "{rendered}"
    );
    assert!(rendered.ends_with("hint: did you mean `period`? Valid keys here: `kind`, `missed_tick`, `clock`, `period`, `count`, `tick_cost`, `phase`, `driver_resolution`, `timer_resolution`"), "{rendered}");
}
