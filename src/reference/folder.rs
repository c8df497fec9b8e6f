//! Writing the pages into a folder, and comparing a folder's pages with the code's.

use std::fmt;
use std::path::{Path, PathBuf};

use super::pages::{Page, is_generated};
use crate::output::write_atomically;

/// Why the pages could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// A file of a page's name is there that no `ticklab reference` wrote; it is left alone.
    NotGenerated(PathBuf),
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::NotGenerated(path) => write!(
                f,
                "{} is not a page `ticklab reference` wrote (its first line is not the \
                 generated-by header); move it away or name another folder",
                path.display()
            ),
            WriteError::Io(path, error) => write!(f, "cannot write {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for WriteError {}

/// Writes `pages` into `folder`, each atomically, and removes the pages an earlier run wrote
/// that the code no longer makes. Nothing is written if a file of a page's name is not one of
/// ours. Returns the pages that changed.
pub fn write_pages(folder: &Path, pages: &[Page]) -> Result<Vec<PathBuf>, WriteError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| WriteError::Io(path, error)
    };
    for page in pages {
        let path = folder.join(&page.name);
        if let Ok(text) = std::fs::read_to_string(&path)
            && !is_generated(&text)
        {
            return Err(WriteError::NotGenerated(path));
        }
    }
    std::fs::create_dir_all(folder).map_err(io(folder))?;
    let mut changed = Vec::new();
    for page in pages {
        let path = folder.join(&page.name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(page.text.as_str()) {
            continue;
        }
        write_atomically(&path, page.text.as_bytes(), true).map_err(io(&path))?;
        changed.push(path);
    }
    for stale in stale_pages(folder, pages) {
        std::fs::remove_file(&stale).map_err(io(&stale))?;
        changed.push(stale);
    }
    Ok(changed)
}

/// How `folder`'s pages differ from `pages`, one message per file; empty when they agree.
pub fn compare_pages(folder: &Path, pages: &[Page]) -> Vec<String> {
    let mut differences = Vec::new();
    for page in pages {
        let path = folder.join(&page.name);
        match std::fs::read_to_string(&path) {
            Err(_) => differences.push(format!("{} is missing", path.display())),
            Ok(text) if text != page.text => {
                differences.push(format!(
                    "{} differs:\n{}",
                    path.display(),
                    first_difference(&text, &page.text)
                ));
            }
            Ok(_) => {}
        }
    }
    for stale in stale_pages(folder, pages) {
        differences.push(format!(
            "{} is a generated page the code no longer makes",
            stale.display()
        ));
    }
    differences
}

/// The generated pages in `folder` that are not among `pages`.
fn stale_pages(folder: &Path, pages: &[Page]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut stale: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("");
            path.is_file()
                && !pages.iter().any(|page| page.name == name)
                && std::fs::read_to_string(path).is_ok_and(|text| is_generated(&text))
        })
        .collect();
    stale.sort();
    stale
}

/// The first line where `old` and `new` part, as a diff shows it.
fn first_difference(old: &str, new: &str) -> String {
    let mut old_lines = old.lines();
    let mut new_lines = new.lines();
    let mut number = 1;
    loop {
        match (old_lines.next(), new_lines.next()) {
            (Some(was), Some(now)) if was == now => number += 1,
            (was, now) => {
                let mut out = format!("  at line {number}:");
                if let Some(was) = was {
                    out += &format!("\n  - {was}");
                }
                if let Some(now) = now {
                    out += &format!("\n  + {now}");
                }
                return out;
            }
        }
    }
}
