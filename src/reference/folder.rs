//! Writing the pages into a folder, and comparing a folder's pages with the code's.
//!
//! The folder is the user's: only files this command wrote are ever replaced or removed. Each
//! page is written as a regular file, never through a symbolic link, and the folder keeps a
//! list of what was written ([`MANIFEST`], each page's name and the SHA-256 of its text), so
//! that a page the code no longer makes is removed only if it is still the file written then.
//! A copy a user saved under another name, or a listed page they changed, is left alone.

use std::fmt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::pages::{Page, is_generated};
use crate::output::write_atomically;

/// The list of pages `ticklab reference` wrote into a folder, kept in that folder.
pub const MANIFEST: &str = ".ticklab-reference";

/// Why the pages could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// A file of a page's name is there that no `ticklab reference` wrote; it is left alone.
    NotGenerated(PathBuf),
    /// A page's name is a symbolic link, or something other than a regular file.
    NotRegular(PathBuf, &'static str),
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::NotGenerated(path) => write!(
                f,
                "{} is not a page `ticklab reference` wrote (it does not start with the \
                 generated-by header); move it away or name another folder",
                path.display()
            ),
            WriteError::NotRegular(path, what) => write!(
                f,
                "{} is {what}; `ticklab reference` writes only regular files it wrote itself, \
                 never through a link; move it away or name another folder",
                path.display()
            ),
            WriteError::Io(path, error) => write!(f, "cannot write {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for WriteError {}

/// What [`write_pages`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Pages written or removed.
    pub changed: Vec<PathBuf>,
    /// Pages the code no longer makes that were left where they are, since they changed after
    /// they were written.
    pub left: Vec<PathBuf>,
}

/// Writes `pages` into `folder`, each atomically, and removes the pages an earlier run wrote
/// that the code no longer makes and that nobody changed since. Nothing is written if a file
/// of a page's name is not one of ours, or is a link or not a regular file.
pub fn write_pages(folder: &Path, pages: &[Page]) -> Result<Written, WriteError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| WriteError::Io(path, error)
    };
    for page in pages {
        check_replaceable(&folder.join(&page.name))?;
    }
    check_replaceable(&folder.join(MANIFEST))?;
    std::fs::create_dir_all(folder).map_err(io(folder))?;
    let written_before = Manifest::read(folder);
    let mut written = Written::default();
    for page in pages {
        let path = folder.join(&page.name);
        if std::fs::read(&path).ok().as_deref() == Some(page.text.as_bytes()) {
            continue;
        }
        write_atomically(&path, page.text.as_bytes(), true).map_err(io(&path))?;
        written.changed.push(path);
    }
    for (name, digest) in &written_before.pages {
        if pages.iter().any(|page| &page.name == name) {
            continue;
        }
        let path = folder.join(name);
        match unchanged_file(&path, digest) {
            Some(true) => {
                std::fs::remove_file(&path).map_err(io(&path))?;
                written.changed.push(path);
            }
            Some(false) => written.left.push(path),
            None => {}
        }
    }
    let manifest = Manifest::of(pages).text();
    let manifest_path = folder.join(MANIFEST);
    if std::fs::read(&manifest_path).ok().as_deref() != Some(manifest.as_bytes()) {
        write_atomically(&manifest_path, manifest.as_bytes(), true).map_err(io(&manifest_path))?;
    }
    Ok(written)
}

/// Whether the file at `path` may be replaced: absent, or a regular file an earlier run wrote.
fn check_replaceable(path: &Path) -> Result<(), WriteError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(WriteError::Io(path.to_path_buf(), error)),
    };
    if meta.file_type().is_symlink() {
        return Err(WriteError::NotRegular(
            path.to_path_buf(),
            "a symbolic link",
        ));
    }
    if !meta.is_file() {
        return Err(WriteError::NotRegular(
            path.to_path_buf(),
            "not a regular file",
        ));
    }
    let bytes = std::fs::read(path).map_err(|error| WriteError::Io(path.to_path_buf(), error))?;
    let ours = if path.file_name().is_some_and(|name| name == MANIFEST) {
        Manifest::parse(&bytes).is_some()
    } else {
        std::str::from_utf8(&bytes).is_ok_and(is_generated)
    };
    if ours {
        Ok(())
    } else {
        Err(WriteError::NotGenerated(path.to_path_buf()))
    }
}

/// Whether the regular file at `path` still holds the text whose digest is `digest`: `None` if
/// it is gone, a link or no regular file, none of which is removed.
fn unchanged_file(path: &Path, digest: &str) -> Option<bool> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(hex_digest(&bytes) == digest)
}

/// Each page's name and the digest of its text, as the folder's [`MANIFEST`] lists them.
#[derive(Debug, Default, PartialEq, Eq)]
struct Manifest {
    pages: Vec<(String, String)>,
}

/// The manifest's first line, which says what the file is.
const MANIFEST_HEADER: &str =
    "# pages `ticklab reference` wrote here, each with the SHA-256 of its text; keep this file";

impl Manifest {
    fn of(pages: &[Page]) -> Manifest {
        Manifest {
            pages: pages
                .iter()
                .map(|page| (page.name.clone(), hex_digest(page.text.as_bytes())))
                .collect(),
        }
    }

    /// The folder's manifest, or none (an older ticklab wrote no manifest, and a folder without
    /// one has no page to remove).
    fn read(folder: &Path) -> Manifest {
        std::fs::read(folder.join(MANIFEST))
            .ok()
            .and_then(|bytes| Manifest::parse(&bytes))
            .unwrap_or_default()
    }

    fn parse(bytes: &[u8]) -> Option<Manifest> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.lines();
        if lines.next()? != MANIFEST_HEADER {
            return None;
        }
        let pages = lines
            .map(|line| {
                let (digest, name) = line.split_once("  ")?;
                let plain = !name.is_empty()
                    && !name.contains(['/', '\\'])
                    && name != ".."
                    && digest.len() == 64;
                plain.then(|| (name.to_string(), digest.to_string()))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Manifest { pages })
    }

    fn text(&self) -> String {
        let mut out = format!("{MANIFEST_HEADER}\n");
        for (name, digest) in &self.pages {
            out += &format!("{digest}  {name}\n");
        }
        out
    }
}

fn hex_digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// How `folder`'s pages differ from `pages`, one message per file; empty when they agree.
pub fn compare_pages(folder: &Path, pages: &[Page]) -> Vec<String> {
    let mut differences = Vec::new();
    for page in pages {
        let path = folder.join(&page.name);
        match std::fs::read(&path) {
            Err(_) => differences.push(format!("{} is missing", path.display())),
            Ok(bytes) if bytes != page.text.as_bytes() => {
                differences.push(format!(
                    "{} differs:\n{}",
                    path.display(),
                    first_difference(&String::from_utf8_lossy(&bytes), &page.text)
                ));
            }
            Ok(_) => {}
        }
    }
    let listed = Manifest::read(folder);
    for (name, digest) in &listed.pages {
        let path = folder.join(name);
        if !pages.iter().any(|page| &page.name == name) && unchanged_file(&path, digest).is_some() {
            differences.push(format!(
                "{} is a generated page the code no longer makes",
                path.display()
            ));
        }
    }
    if listed != Manifest::of(pages) {
        differences.push(format!(
            "{} does not list the pages the code makes",
            folder.join(MANIFEST).display()
        ));
    }
    differences
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
