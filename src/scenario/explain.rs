//! Turns TOML's and serde's messages into the words of scenario files (keys, values, tables), each
//! with a hint that says what to write instead.

/// Custom deserialization errors carry their hint after this separator.
pub(crate) const HINT_SEPARATOR: &str = "\nhint: ";

/// A message and its hint for an error found in `table` (such as `[model]`, or "" at the top), at
/// the text `spanned`.
pub(crate) fn explain(message: &str, table: &str, spanned: &str) -> (String, String) {
    let message = message.trim_end();
    if let Some((message, hint)) = message.split_once(HINT_SEPARATOR) {
        return (message.to_string(), hint.to_string());
    }
    let place = if table.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in {table}")
    };
    for (serde_prefix, noun) in [("unknown field", "key"), ("unknown variant", "value")] {
        if let Some(rest) = message.strip_prefix(serde_prefix)
            && let Some((unknown, choices)) = backticked(rest).split_first()
        {
            let listed = choices
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let network_fault = matches!(*unknown, "partition" | "latency-spike" | "spike")
                && choices.contains(&"wall-step");
            let hint = match nearest(unknown, choices) {
                // A fault that names its host: in a hosts scenario it goes under that host.
                _ if *unknown == "host" && table == "[[fault]]" => format!(
                    "a fault of one host of a hosts scenario goes under that host: write it as \
                     [[model.host.fault]] right after the host's [[model.host]], without `host`. \
                     Valid keys here: {listed}"
                ),
                _ if *unknown == "host" && table == "[[model.host.fault]]" => format!(
                    "a [[model.host.fault]] belongs to the [[model.host]] just before it: remove \
                     `host`, and write the table after its host's. Valid keys here: {listed}"
                ),
                // A fault of the network, written as a host's: it belongs to a pair of hosts.
                _ if network_fault => format!(
                    "a host's faults are {listed}; a {unknown} is between two hosts: write it as \
                     [[model.{}]] with `between`, `at` and `duration`",
                    if *unknown == "partition" {
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
                "key" => format!("unknown key `{unknown}` {place}"),
                _ => format!("unknown value `{unknown}`"),
            };
            return (message, hint);
        }
    }
    if message == "invalid type: map, expected a sequence" {
        let hint = "this key holds a list of tables: write its header with double brackets, such as [[fault]]";
        return (
            "expected a list of tables, found a single table".to_string(),
            hint.to_string(),
        );
    }
    let too_large = (message.starts_with("invalid type: integer") && message.contains(" as i128"))
        || (message.starts_with("invalid value: integer") && message.ends_with("expected i64"));
    if too_large {
        return (
            "this number is too large".to_string(),
            "whole numbers here must fit in 64 bits".to_string(),
        );
    }
    if message.starts_with("duplicate key") {
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
        return (
            format!("{key} is set twice {place}"),
            "each key appears once in its table: keep the value you mean and delete the other"
                .to_string(),
        );
    }
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        let expected = plain_type(expected);
        // A table written with double brackets, such as [[model]], arrives as a list where one
        // table was expected.
        let listed_table = found == "sequence" && expected.contains("table");
        let hint = if listed_table {
            format!(
                "{table} is a list of tables; a scenario has one: write its header with single brackets"
            )
        } else if expected.contains("duration") {
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
        };
        if listed_table {
            let single = table.trim_start_matches('[').trim_end_matches(']');
            return (
                format!("expected one [{single}] table, found a list of them"),
                hint,
            );
        }
        return (format!("expected {expected}, found {found}"), hint);
    }
    if let Some(rest) = message.strip_prefix("missing field")
        && let Some(key) = backticked(rest).first()
    {
        return (
            format!("missing key `{key}` {place}"),
            missing_key_hint(key, table),
        );
    }
    let hint =
        "this line is not valid TOML: keys are written key = value, strings in double quotes";
    (message.to_string(), hint.to_string())
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

/// The choice closest to `unknown`, if it is close enough to be a likely typo.
pub fn nearest<'a>(unknown: &str, choices: &[&'a str]) -> Option<&'a str> {
    let (best, similarity) = choices
        .iter()
        .map(|choice| (*choice, strsim::jaro_winkler(unknown, choice)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    (similarity >= 0.8).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_unknown_field_becomes_unknown_key_with_a_suggestion() {
        let (message, hint) = explain(
            "unknown field `perod`, expected one of `kind`, `period`, `count`",
            "[model]",
            "perod",
        );
        assert_eq!(message, "unknown key `perod` in [model]");
        assert_eq!(
            hint,
            "did you mean `period`? Valid keys here: `kind`, `period`, `count`"
        );
    }

    #[test]
    fn serde_unknown_variant_becomes_unknown_value() {
        let (message, hint) = explain(
            "unknown variant `windoze`, expected one of `windows`, `linux`",
            "",
            "windoze",
        );
        assert_eq!(message, "unknown value `windoze`");
        assert!(hint.starts_with("did you mean `windows`?"));
    }

    #[test]
    fn far_off_names_get_the_list_but_no_guess() {
        let (_, hint) = explain(
            "unknown field `zzzzzzzz`, expected `kind` or `period`",
            "",
            "zzzzzzzz",
        );
        assert_eq!(hint, "valid keys here: `kind`, `period`");
    }

    #[test]
    fn custom_errors_carry_their_own_hint() {
        let (message, hint) = explain(&format!("too long{HINT_SEPARATOR}shorten it"), "", "");
        assert_eq!(
            (message.as_str(), hint.as_str()),
            ("too long", "shorten it")
        );
    }

    #[test]
    fn a_list_header_after_a_table_inside_it_says_which_comes_first() {
        let (message, hint) = explain("duplicate key", "[[model.host]]", "host");
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
        let (message, hint) = explain("duplicate key", "[model]", "period");
        assert_eq!(message, "`period` is set twice in [model]");
        assert!(hint.starts_with("each key appears once"), "{hint}");
    }

    #[test]
    fn only_a_list_where_one_table_belongs_is_called_a_list_of_tables() {
        let (message, _) = explain(
            "invalid type: sequence, expected a [model] table with a `kind`",
            "[[model]]",
            "",
        );
        assert_eq!(message, "expected one [model] table, found a list of them");
        let (message, hint) = explain(
            "invalid type: integer, expected a duration",
            "[[model.task]]",
            "10",
        );
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
