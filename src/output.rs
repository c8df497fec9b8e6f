//! Output files are written atomically and never replace a user's file by surprise, and
//! diagnostics never turn a closed stream into a crash.

use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::NamedTempFile;

/// The temporary files being written now, so that a command stopped by Ctrl-C or `kill` removes
/// them rather than leave a hidden `.ticklab-*.partial` beside its target.
static PARTIALS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The exit code of a command stopped by SIGINT, SIGTERM or SIGHUP, as a shell reports Ctrl-C.
pub const INTERRUPTED_EXIT_CODE: i32 = 130;

/// Makes SIGINT, SIGTERM and SIGHUP remove every temporary file being written, then end the
/// process with [`INTERRUPTED_EXIT_CODE`]. The command line calls it once, first thing; a
/// program that embeds ticklab and handles signals itself need not.
pub fn remove_partials_when_interrupted() {
    // An error means a handler is already set, by this program or its embedder: theirs stands.
    let _ = ctrlc::set_handler(|| {
        let partials = std::mem::take(&mut *PARTIALS.lock().unwrap_or_else(|e| e.into_inner()));
        for partial in partials {
            if std::fs::remove_file(&partial).is_ok() {
                note(format_args!("interrupted: removed {}", partial.display()));
            }
        }
        std::process::exit(INTERRUPTED_EXIT_CODE);
    });
}

/// A temporary file listed in [`PARTIALS`] while it lives.
#[derive(Debug)]
struct Tracked(PathBuf);

impl Tracked {
    fn new(path: &Path) -> Tracked {
        let mut partials = PARTIALS.lock().unwrap_or_else(|e| e.into_inner());
        partials.push(path.to_path_buf());
        Tracked(path.to_path_buf())
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let mut partials = PARTIALS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = partials.iter().position(|path| *path == self.0) {
            partials.swap_remove(at);
        }
    }
}

/// Writes one line of diagnostics to stderr. A closed stderr (`ticklab run x.toml 2>&1 | head -1`)
/// is not an error: the line is dropped, and the exit code still says how the command ended.
pub fn note(text: impl fmt::Display) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{text}");
}

/// A file being written: a temporary file beside the target, renamed over it on [`commit`].
/// Dropped without committing, it disappears and the target is untouched.
///
/// [`commit`]: AtomicFile::commit
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    overwrite: bool,
    temp: BufWriter<NamedTempFile>,
    /// Dropped after the file is renamed into place or removed.
    _tracked: Tracked,
}

impl AtomicFile {
    /// Starts writing `target`. Fails at once if it exists and `overwrite` is false, or if it is
    /// anything but a regular file. A symbolic link is followed, so the file it points to is the
    /// one replaced.
    pub fn create(target: &Path, overwrite: bool) -> io::Result<Self> {
        let target = &resolve_links(target)?;
        if let Ok(meta) = std::fs::metadata(target) {
            if !meta.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} is not a regular file; output goes to regular files only",
                        target.display()
                    ),
                ));
            }
            if !overwrite {
                return Err(refusal(target));
            }
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
        let temp = builder
            .tempfile_in(folder)
            .map_err(|error| about(target, error))?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            overwrite,
            _tracked: Tracked::new(temp.path()),
            temp: BufWriter::new(temp),
        })
    }

    /// Moves the finished file into place.
    pub fn commit(self) -> io::Result<()> {
        let temp = self
            .temp
            .into_inner()
            .map_err(|error| about(&self.target, error.into_error()))?;
        temp.as_file()
            .sync_all()
            .map_err(|error| about(&self.target, error))?;
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
            Err(error) => Err(about(&self.target, error.error)),
        }
    }
}

/// Follows symbolic links (at most 40, as the kernel does) to the path that would be written.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Names the file the user asked for, not the temporary one, in an error.
fn about(target: &Path, error: io::Error) -> io::Error {
    io::Error::new(
        error.kind(),
        format!("cannot write {}: {error}", target.display()),
    )
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

/// A writer that counts the bytes that went through it to `out`: a report and a streamed
/// picture say how much they wrote without holding it.
pub(crate) struct CountingWriter<'a, W: Write + ?Sized> {
    out: &'a mut W,
    bytes: u64,
}

impl<'a, W: Write + ?Sized> CountingWriter<'a, W> {
    pub(crate) fn new(out: &'a mut W) -> Self {
        CountingWriter { out, bytes: 0 }
    }

    /// The bytes written so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl<W: Write + ?Sized> Write for CountingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.out.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;

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

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_and_links_are_written_through() {
        let folder = tempfile::tempdir().unwrap();
        let fifo = folder.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let error = write_atomically(&fifo, b"trace", true).unwrap_err();
        assert!(
            error.to_string().contains("is not a regular file"),
            "{error}"
        );
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        let error = write_atomically(folder.path(), b"trace", true).unwrap_err();
        assert!(
            error.to_string().contains("is not a regular file"),
            "{error}"
        );

        let real = folder.path().join("real.txt");
        fs::write(&real, "old").unwrap();
        let link = folder.path().join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        assert_eq!(
            write_atomically(&link, b"new", false).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        write_atomically(&link, b"new", true).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn a_file_being_written_is_listed_for_removal_until_it_is_done() {
        let folder = tempfile::tempdir().unwrap();
        let listed = |file: &AtomicFile| {
            PARTIALS
                .lock()
                .unwrap()
                .contains(&file.temp.get_ref().path().to_path_buf())
        };
        let committed = AtomicFile::create(&folder.path().join("a.txt"), false).unwrap();
        let abandoned = AtomicFile::create(&folder.path().join("b.txt"), false).unwrap();
        assert!(listed(&committed) && listed(&abandoned));
        let temp = committed.temp.get_ref().path().to_path_buf();
        committed.commit().unwrap();
        assert!(!PARTIALS.lock().unwrap().contains(&temp));
        assert!(listed(&abandoned));
        let temp = abandoned.temp.get_ref().path().to_path_buf();
        drop(abandoned);
        assert!(!PARTIALS.lock().unwrap().contains(&temp));
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
