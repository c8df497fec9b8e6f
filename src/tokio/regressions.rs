//! Which regression files belong to a sweep's base.
//!
//! A file's name is only a hint for people: bases built in code without an `about` share one, and
//! one base's name can begin another's (`lease keeper`, `lease keeper wall clock`). So each file
//! starts with a comment naming its base by a hash of the base's conditions, and a sweep replays
//! the files that name its own base and no others.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

/// What the comment that names a file's base starts with.
const MARK: &str = "# Swept from base ";

/// The base's identity: eight hex digits of the SHA-256 of its conditions, written out as TOML
/// with each table's keys in order (so that comments and layout in a base's file do not count).
pub(crate) fn base_id(base_text: &str) -> String {
    let normal = base_text.parse::<Table>().map_or_else(
        |_| base_text.to_string(),
        |table| sorted(Value::Table(table)).to_string(),
    );
    let digest = <sha2::Sha256 as sha2::Digest>::digest(normal.as_bytes());
    digest[..4]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Table(table) => {
            let mut entries: Vec<(String, Value)> = table.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let sorted = entries.into_iter().map(|(key, value)| (key, sorted(value)));
            Value::Table(sorted.collect())
        }
        Value::Array(values) => Value::Array(values.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The first line of a regression file of the base `id`, called `name`.
pub(crate) fn mark_line(id: &str, name: &str) -> String {
    format!("{MARK}{id} ({name}): only a sweep of that base replays this file.\n")
}

/// The base a regression file names, if it names one.
fn marked_base(text: &str) -> Option<&str> {
    let rest = text.lines().next()?.strip_prefix(MARK)?;
    Some(rest.split_once(' ').map_or(rest, |(id, _)| id))
}

/// The base's regression files in `folder`, in name order. `stem` is what the base's files are
/// named after and `name` what their `about` says was swept, for files written before files
/// named their base.
pub(crate) fn files_of(folder: &Path, base_text: &str, stem: &str, name: &str) -> Vec<PathBuf> {
    let id = base_id(base_text);
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .filter(|path| {
            let Ok(text) = std::fs::read_to_string(path) else {
                return false;
            };
            match marked_base(&text) {
                Some(marked) => marked == id,
                None => older_file_of(path, &text, base_text, stem, name),
            }
        })
        .collect();
    files.sort();
    files
}

/// Whether a file written before files named their base is one of this base's: named exactly
/// `<stem>-<8 hex digits>.toml`, its `about` saying it swept `name`, and holding the base's
/// conditions with faults added after the base's own.
fn older_file_of(path: &Path, text: &str, base_text: &str, stem: &str, name: &str) -> bool {
    let named = path
        .file_stem()
        .map(|file| file.to_string_lossy())
        .and_then(|file| {
            file.strip_prefix(stem)
                .and_then(|rest| rest.strip_prefix('-'))
                .map(|hash| hash.len() == 8 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .unwrap_or(false);
    let (Ok(mut file), Ok(mut base)) = (text.parse::<Table>(), base_text.parse::<Table>()) else {
        return false;
    };
    let about = file.remove("about");
    // As `regression_about` names the base.
    let name = Path::new(name)
        .file_name()
        .map_or_else(|| name.into(), |name| name.to_string_lossy());
    let swept = about
        .as_ref()
        .and_then(Value::as_str)
        .is_some_and(|about| about.starts_with(&format!("Found by sweeping {name}: ")));
    let faults = |table: &mut Table| match table.remove("fault") {
        Some(Value::Array(faults)) => faults,
        _ => Vec::new(),
    };
    let (file_faults, base_faults) = (faults(&mut file), faults(&mut base));
    for key in ["about", "seed", "expect"] {
        base.remove(key);
    }
    for key in ["seed", "expect"] {
        file.remove(key);
    }
    named && swept && file == base && file_faults.starts_with(&base_faults)
}

/// Writes a sweep's shrunk case, `case_text`, as a regression file of the base named `name`
/// (its file's stem `stem`) into `folder`, marked with the base it was swept from: the file and
/// its text. A file that cannot be written is said on stderr, unless the same text is there.
pub(crate) fn write(
    folder: &Path,
    (stem, name): (&str, &str),
    base_text: &str,
    case_text: &str,
) -> (PathBuf, String) {
    let text = format!("{}{case_text}", mark_line(&base_id(base_text), name));
    let file = crate::sweep::regression_path(folder, &format!("{stem}.toml"), &text);
    let written = std::fs::create_dir_all(folder)
        .and_then(|()| crate::output::write_atomically(&file, text.as_bytes(), false));
    if let Err(error) = written
        && std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str())
    {
        crate::output::note(format!(
            "ticklab sweep: cannot write {}: {error}",
            file.display()
        ));
    }
    (file, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_is_the_same_whatever_its_comments_and_layout() {
        let one = "about = \"x\"\nplatform = \"linux\"\n";
        let other = "# a comment\nplatform   = \"linux\"\nabout = \"x\"\n";
        assert_eq!(base_id(one), base_id(other));
        assert_ne!(
            base_id(one),
            base_id("about = \"y\"\nplatform = \"linux\"\n")
        );
        let text = format!("{}seed = 1\n", mark_line(&base_id(one), "x"));
        assert_eq!(marked_base(&text), Some(base_id(one).as_str()));
    }
}
