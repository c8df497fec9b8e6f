//! Where the keys a whole-run refusal names are written: a refusal of the run as a whole (its
//! work, its memory, turmoil's limits) comes from no one key's value, but its hint names the keys
//! that drive it, and a user goes to the lines that hold them.

use std::path::Path;

/// Most lines shown: the first keys the hint names are those that drive the figure most.
const MAX_LINES: usize = 4;

/// `message`'s hint, followed by a `--> file:line: key = value` line for each key it names that
/// `file` writes; `message` alone if it names none or the file cannot be read again.
pub(super) fn with_key_lines(file: &Path, message: String) -> String {
    let Ok(text) = std::fs::read_to_string(file) else {
        return message;
    };
    let lines = key_lines(&file.display().to_string(), &text, &message);
    if lines.is_empty() {
        return message;
    }
    format!("{message}\n{}", lines.join("\n"))
}

/// The lines of `text` that set a key the hint of `message` names, in the hint's order.
fn key_lines(source: &str, text: &str, message: &str) -> Vec<String> {
    let Some((_, hint)) = message.split_once("hint:") else {
        return Vec::new();
    };
    let mut keys: Vec<&str> = hint
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|word| !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    // "the latencies" names every `latency` key without quoting one.
    if hint.contains("latenc") && !keys.contains(&"latency") {
        keys.insert(0, "latency");
    }
    let mut shown = Vec::new();
    for key in keys {
        for (number, line) in text.lines().enumerate() {
            let written = line.trim_start();
            let sets_key = written
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='));
            if sets_key && shown.len() < MAX_LINES {
                shown.push(format!(
                    "  --> {source}:{}: {}",
                    number + 1,
                    written.trim_end()
                ));
            }
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_a_hint_names_are_shown_where_the_file_sets_them() {
        let text = "run_for = \"1h\"\n[model]\nkind = \"hosts\"\nlatency = \"59m\"\n\
                    [model.heartbeat]\n  suspect_after = \"5s\"\nsuspect_after_note = 1\n";
        let message = "this run could hold up to 3 GiB\n  hint: lower the latencies, \
                       `suspect_after` or `timeout`, shorten `run_for`";
        assert_eq!(
            key_lines("a.toml", text, message),
            [
                "  --> a.toml:4: latency = \"59m\"",
                "  --> a.toml:6: suspect_after = \"5s\"",
                "  --> a.toml:1: run_for = \"1h\"",
            ]
        );
        assert!(key_lines("a.toml", text, "no hint at all").is_empty());
    }
}
