//! Turns TOML's and serde's messages into the words of scenario files (keys, values, tables), each
//! with a hint that says what to write instead.

use super::typed::Problem;

/// Custom deserialization errors carry their hint after this separator.
pub(crate) const HINT_SEPARATOR: &str = "\nhint: ";

/// A message and its hint for an error found in `table` (such as `[model]`, or "" at the top), at
/// the text `spanned`: from what serde reported as data when there is that, else from toml's
/// `message`.
pub(crate) fn explain(
    problem: Option<&Problem>,
    message: &str,
    table: &str,
    spanned: &str,
) -> (String, String) {
    match problem {
        Some(Problem::UnknownKey { key, keys }) => unknown_name(key, keys, "key", table),
        Some(Problem::UnknownValue { value, values }) => {
            unknown_name(value, values, "value", table)
        }
        Some(Problem::MissingKey { key }) => (
            format!("missing key `{key}` {}", place(table)),
            missing_key_hint(key, table),
        ),
        Some(Problem::WrongType { found, expected }) => wrong_type(found, expected, table),
        Some(Problem::BadValue { found, expected }) if too_large(found, expected) => {
            too_large_number()
        }
        Some(Problem::BadValue { .. }) | None => from_message(message, table, spanned),
    }
}

/// Where in the file the table is, for messages.
fn place(table: &str) -> String {
    if table.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in {table}")
    }
}

/// Errors that reach us as text alone. A custom error (ours, or a visitor's own wording) passes
/// through serde's `Error::custom`, which takes only something to display; a key written twice
/// and TOML that does not parse are toml's own errors, which say what they found only in words.
fn from_message(message: &str, table: &str, spanned: &str) -> (String, String) {
    let message = message.trim_end();
    if let Some((message, hint)) = message.split_once(HINT_SEPARATOR) {
        return (message.to_string(), hint.to_string());
    }
    if message.starts_with("duplicate key") {
        return duplicate_key(table, spanned);
    }
    let hint =
        "this line is not valid TOML: keys are written key = value, strings in double quotes";
    (message.to_string(), hint.to_string())
}

/// A key the table has no field for (`noun` "key"), or a name that is none of the enum's
/// ("value"), with the nearest one and the list.
fn unknown_name(name: &str, choices: &[&str], noun: &str, table: &str) -> (String, String) {
    let listed = listed(choices);
    let network_fault =
        matches!(name, "partition" | "latency-spike" | "spike") && choices.contains(&"wall-step");
    let hint = match nearest(name, choices) {
        // A fault that names its host: in a hosts scenario it goes under that host.
        _ if name == "host" && table == "[[fault]]" => format!(
            "a fault of one host of a hosts scenario goes under that host: write it as \
             [[model.host.fault]] right after the host's [[model.host]], without `host`. \
             Valid keys here: {listed}"
        ),
        _ if name == "host" && table == "[[model.host.fault]]" => format!(
            "a [[model.host.fault]] belongs to the [[model.host]] just before it: remove \
             `host`, and write the table after its host's. Valid keys here: {listed}"
        ),
        // A fault of the network, written as a host's: it belongs to a pair of hosts.
        _ if network_fault => format!(
            "a host's faults are {listed}; a {name} is between two hosts: write it as \
             [[model.{}]] with `between`, `at` and `duration`",
            if name == "partition" {
                "partition"
            } else {
                "spike"
            }
        ),
        Some(best) => format!("did you mean `{best}`? Valid {noun}s here: {listed}"),
        None if choices.is_empty() => format!("no {noun}s are allowed here"),
        None => format!("valid {noun}s here: {listed}"),
    };
    let message = match noun {
        "key" => format!("unknown key `{name}` {}", place(table)),
        _ => format!("unknown value `{name}`"),
    };
    (message, hint)
}

fn listed(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A whole number beyond 64 bits, as serde names it: an `i128`, or a `u64` above `i64`'s range.
fn too_large(found: &str, expected: &str) -> bool {
    found.starts_with("integer") && (found.ends_with(" as i128") || expected == "i64")
}

fn too_large_number() -> (String, String) {
    (
        "this number is too large".to_string(),
        "whole numbers here must fit in 64 bits".to_string(),
    )
}

/// A value of another type than expected, in the words of a scenario file.
fn wrong_type(found: &str, expected: &str, table: &str) -> (String, String) {
    if found == "map" && expected == "a sequence" {
        let hint = "this key holds a list of tables: write its header with double brackets, such as [[fault]]";
        return (
            "expected a list of tables, found a single table".to_string(),
            hint.to_string(),
        );
    }
    if too_large(found, expected) {
        return too_large_number();
    }
    let expected = plain_type(expected);
    // A table written with double brackets, such as [[model]], arrives as a list where one
    // table was expected.
    if found == "sequence" && expected.contains("table") {
        let single = table.trim_start_matches('[').trim_end_matches(']');
        return (
            format!("expected one [{single}] table, found a list of them"),
            format!(
                "{table} is a list of tables; a scenario has one: write its header with single brackets"
            ),
        );
    }
    (
        format!("expected {expected}, found {found}"),
        wrong_type_hint(found, expected),
    )
}

/// What to write instead of a value of the wrong type.
fn wrong_type_hint(found: &str, expected: &str) -> String {
    if expected.contains("duration") {
        "durations are quoted strings with a unit, such as \"8m\"".to_string()
    } else if expected == "a number" || expected == "a whole number" {
        format!(
            "write {expected} here, without quotes, such as {}",
            if expected == "a number" {
                "0.0005"
            } else {
                "3"
            }
        )
    } else if found == "map" && expected == "a string" {
        "quote the value: dates and times are strings here, such as \"2020-03-12T14:08:18Z\""
            .to_string()
    } else if let Some(names) = expected.strip_prefix("one of ") {
        // A named value written bare, such as go_version = 1.23: names are strings.
        // Quote what the user wrote when it is one of the names; else show the first name.
        let written = backticked(found).first().map(|value| value.to_string());
        let example = written
            .filter(|value| names.split(", ").any(|name| name == value))
            .unwrap_or_else(|| names.split(", ").next().unwrap_or(names).to_string());
        format!("write {expected} here, in quotes, such as \"{example}\"")
    } else {
        format!("write {expected} here")
    }
}

/// A key toml found twice in one table, or a table's header after a table inside it.
fn duplicate_key(table: &str, spanned: &str) -> (String, String) {
    // `[[model.host.fault]]` before any `[[model.host]]` makes `host` a table, and the host's
    // own header then reads as that key a second time.
    let header = table.trim_start_matches('[').trim_end_matches(']');
    let repeated_header = table.starts_with("[[")
        && !spanned.trim().is_empty()
        && (header == spanned.trim() || header.ends_with(&format!(".{}", spanned.trim())));
    if repeated_header {
        return (
            format!("{table} comes after a table that belongs inside one"),
            format!(
                "each [[{header}.…]] table belongs to the {table} just before it: write its \
                 {table} first, then the tables inside it"
            ),
        );
    }
    let key = match spanned.trim() {
        "" => "this key".to_string(),
        key => format!("`{key}`"),
    };
    (
        format!("{key} is set twice {}", place(table)),
        "each key appears once in its table: keep the value you mean and delete the other"
            .to_string(),
    )
}

/// Rust's type names, as serde reports them, in the words of a scenario file.
fn plain_type(expected: &str) -> &str {
    match expected {
        "i64" | "u64" | "u32" | "usize" => "a whole number",
        "f64" | "f32" => "a number",
        other => other,
    }
}

fn missing_key_hint(key: &str, table: &str) -> String {
    let example = match (key, table) {
        ("kind", "[[fault]]") => {
            "`kind = \"system-suspend\"`: one of system-suspend, process-suspend, wall-step, wall-slew"
        }
        ("kind", _) => "`kind = \"interval\"`: the model this scenario runs",
        ("about", _) => "`about = \"...\"`: one line saying what the scenario shows",
        ("platform", _) => {
            let names = ticklab_sim::Platform::NAMES.join(", ");
            return format!("add `platform = \"linux\"`: one of {names}");
        }
        ("run_for", _) => "`run_for = \"8m\"`: the physical length of the run",
        ("model", _) => "a [model] table with its kind, such as kind = \"interval\"",
        ("missed_tick", _) => "`missed_tick = \"skip\"`: one of naive, burst, delay, skip, fixed",
        ("period", _) => "`period = \"1s\"`, or a range such as [\"10ms\", \"1s\"]",
        ("at", _) => "`at = \"15.5s\"`: when the fault starts, in physical time since the start",
        ("cores", _) => "`cores = 4`: the CPU cores every simulated thread shares",
        _ => return format!("add `{key} = ...`"),
    };
    format!("add {example}")
}

/// The header of the table a byte offset sits in, such as `[model]`; empty at the top level.
pub(crate) fn table_around(text: &str, offset: usize) -> String {
    // The line the offset is on counts: an error at a header is about that table.
    let offset = offset.min(text.len());
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let before = &text[..line_end];
    let header = before
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| line.starts_with('['));
    header
        .map(|header| {
            header
                .split('#')
                .next()
                .unwrap_or(header)
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The choice closest to `unknown`, if it is close enough to be a likely typo. Case is ignored:
/// `"GO"` is a typo of `go`.
pub fn nearest<'a>(unknown: &str, choices: &[&'a str]) -> Option<&'a str> {
    let unknown = unknown.to_lowercase();
    let (best, similarity) = choices
        .iter()
        .map(|choice| {
            (
                *choice,
                strsim::jaro_winkler(&unknown, &choice.to_lowercase()),
            )
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    (similarity >= 0.8).then_some(best)
}

/// `unknown <what> `name``, pointing at the name, with the nearest of `names` as a likely typo
/// and every one of them listed (`what` is singular, such as "scheduler").
pub(crate) fn unknown_choice(
    file: &super::located::Located<'_>,
    name: &toml::Spanned<String>,
    what: &str,
    names: &[&str],
) -> super::error::ScenarioError {
    let listed = format!("{what}s: {}", names.join(", "));
    let hint = match nearest(name.get_ref(), names) {
        Some(best) => {
            let mut letters = listed.chars();
            let first = letters.next().map(|letter| letter.to_ascii_uppercase());
            format!(
                "did you mean `{best}`? {}{}",
                first.map(String::from).unwrap_or_default(),
                letters.as_str()
            )
        }
        None => listed,
    };
    file.error(name.span(), format!("unknown {what} `{}`", name.get_ref()))
        .with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_unknown_field_becomes_unknown_key_with_a_suggestion() {
        let problem = Problem::UnknownKey {
            key: "perod".to_string(),
            keys: &["kind", "period", "count"],
        };
        let (message, hint) = explain(Some(&problem), "", "[model]", "perod");
        assert_eq!(message, "unknown key `perod` in [model]");
        assert_eq!(
            hint,
            "did you mean `period`? Valid keys here: `kind`, `period`, `count`"
        );
    }

    #[test]
    fn serde_unknown_variant_becomes_unknown_value() {
        let problem = Problem::UnknownValue {
            value: "windoze".to_string(),
            values: &["windows", "linux"],
        };
        let (message, hint) = explain(Some(&problem), "", "", "windoze");
        assert_eq!(message, "unknown value `windoze`");
        assert!(hint.starts_with("did you mean `windows`?"));
    }

    #[test]
    fn far_off_names_get_the_list_but_no_guess() {
        let problem = Problem::UnknownKey {
            key: "zzzzzzzz".to_string(),
            keys: &["kind", "period"],
        };
        let (_, hint) = explain(Some(&problem), "", "", "zzzzzzzz");
        assert_eq!(hint, "valid keys here: `kind`, `period`");
    }

    #[test]
    fn custom_errors_carry_their_own_hint() {
        let (message, hint) = explain(None, &format!("too long{HINT_SEPARATOR}shorten it"), "", "");
        assert_eq!(
            (message.as_str(), hint.as_str()),
            ("too long", "shorten it")
        );
    }

    #[test]
    fn a_list_header_after_a_table_inside_it_says_which_comes_first() {
        let (message, hint) = explain(None, "duplicate key", "[[model.host]]", "host");
        assert_eq!(
            message,
            "[[model.host]] comes after a table that belongs inside one"
        );
        assert!(
            hint.starts_with("each [[model.host.…]] table belongs"),
            "{hint}"
        );
    }

    #[test]
    fn a_key_set_twice_is_named_with_its_table() {
        let (message, hint) = explain(None, "duplicate key", "[model]", "period");
        assert_eq!(message, "`period` is set twice in [model]");
        assert!(hint.starts_with("each key appears once"), "{hint}");
    }

    #[test]
    fn only_a_list_where_one_table_belongs_is_called_a_list_of_tables() {
        let problem = Problem::WrongType {
            found: "sequence".to_string(),
            expected: "a [model] table with a `kind`".to_string(),
        };
        let (message, _) = explain(Some(&problem), "", "[[model]]", "");
        assert_eq!(message, "expected one [model] table, found a list of them");
        let problem = Problem::WrongType {
            found: "integer".to_string(),
            expected: "a duration".to_string(),
        };
        let (message, hint) = explain(Some(&problem), "", "[[model.task]]", "10");
        assert_eq!(message, "expected a duration, found integer");
        assert!(hint.starts_with("durations are quoted strings"), "{hint}");
    }

    #[test]
    fn the_table_is_found_from_the_nearest_header() {
        let text = "a = 1\n[[fault]] # the sleep\nkind = 2\n";
        assert_eq!(table_around(text, text.len() - 3), "[[fault]]");
        assert_eq!(table_around(text, 2), "");
    }
}
