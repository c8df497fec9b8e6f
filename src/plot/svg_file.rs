//! Writing a picture drawn from a run in code, atomically, over nothing a user wrote.

use std::io;
use std::path::Path;

/// Writes `svg`, which carries `marker` in a comment after its opening tag, to `path`
/// atomically. A file already there is replaced only if it carries the same marker (an earlier
/// run of the same test drew it), never one the user wrote; `drawn_from` says what draws such
/// files, for the refusal.
pub fn write_drawn(path: &Path, svg: &str, marker: &str, drawn_from: &str) -> io::Result<()> {
    let ours = match std::fs::read(path) {
        Ok(bytes) => {
            let head = &bytes[..bytes.len().min(1024)];
            if !String::from_utf8_lossy(head).contains(marker) {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} already exists and was not drawn from {drawn_from}, so it is left as \
                         it is; remove it or write the plot to another path",
                        path.display()
                    ),
                ));
            }
            true
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => false,
        Err(error) => {
            return Err(io::Error::new(
                error.kind(),
                format!("cannot write {}: {error}", path.display()),
            ));
        }
    };
    crate::output::write_atomically(path, svg.as_bytes(), ours)
}
