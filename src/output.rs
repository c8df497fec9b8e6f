//! Output files are written atomically and never replace a user's file by surprise.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// A file being written: a temporary file beside the target, renamed over it on [`commit`].
/// Dropped without committing, it disappears and the target is untouched.
///
/// [`commit`]: AtomicFile::commit
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    overwrite: bool,
    temp: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `target`. Fails at once if it exists and `overwrite` is false.
    pub fn create(target: &Path, overwrite: bool) -> io::Result<Self> {
        if !overwrite && target.exists() {
            return Err(refusal(target));
        }
        let folder = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("the folder {} does not exist", folder.display()),
            ));
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(".ticklab-").suffix(".partial");
        // Temporary files are private by default; the finished file should look like any other
        // the user creates (or keep the mode of the file it replaces).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(target).map_or(0o666, |meta| meta.permissions().mode());
            builder.permissions(std::fs::Permissions::from_mode(mode));
        }
        let temp = builder.tempfile_in(folder)?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            overwrite,
            temp: BufWriter::new(temp),
        })
    }

    /// Moves the finished file into place.
    pub fn commit(self) -> io::Result<()> {
        let temp = self.temp.into_inner().map_err(|error| error.into_error())?;
        temp.as_file().sync_all()?;
        let persisted = if self.overwrite {
            temp.persist(&self.target)
        } else {
            temp.persist_noclobber(&self.target)
        };
        match persisted {
            Ok(_) => Ok(()),
            Err(error) if error.error.kind() == io::ErrorKind::AlreadyExists => {
                Err(refusal(&self.target))
            }
            Err(error) => Err(error.error),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

fn refusal(target: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} already exists; pass --force to replace it",
            target.display()
        ),
    )
}

/// Writes `contents` to `target` atomically, refusing to replace an existing file unless
/// `overwrite` is set.
pub fn write_atomically(target: &Path, contents: &[u8], overwrite: bool) -> io::Result<()> {
    let mut file = AtomicFile::create(target, overwrite)?;
    file.write_all(contents)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn an_existing_file_is_never_replaced_without_overwrite() {
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("trace.txt");
        fs::write(&target, "mine").unwrap();
        let error = write_atomically(&target, b"theirs", false).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read_to_string(&target).unwrap(), "mine");
        write_atomically(&target, b"theirs", true).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "theirs");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_usual_mode_and_a_replaced_one_keeps_its_own() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("trace.txt");
        write_atomically(&target, b"one", false).unwrap();
        let ordinary = folder.path().join("ordinary.txt");
        fs::File::create(&ordinary).unwrap();
        let mode_of = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode_of(&target),
            mode_of(&ordinary),
            "the mode any new file gets under this umask"
        );
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&target, b"two", true).unwrap();
        assert_eq!(mode_of(&target), 0o640);
    }

    #[test]
    fn an_abandoned_file_leaves_nothing_behind() {
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("trace.txt");
        let mut file = AtomicFile::create(&target, false).unwrap();
        file.write_all(b"half").unwrap();
        drop(file);
        assert!(!target.exists());
        assert_eq!(fs::read_dir(folder.path()).unwrap().count(), 0);
    }
}
