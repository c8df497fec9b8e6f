//! `ticklab sweep`: random fault schedules around a scenario; a failure is shrunk and written as a
//! scenario file, with the one command that replays it.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use indicatif::{ProgressBar, ProgressStyle};

use super::Failure;
use crate::output::write_atomically;
use crate::registry::Registry;
use crate::sweep::{Shard, Verdict, regression_path, sweep};

#[derive(Debug, clap::Args)]
pub(super) struct SweepArgs {
    /// The base scenario: its model, platform and faults; each case adds faults and a seed.
    file: PathBuf,
    /// How many cases, over every shard together.
    #[arg(long, value_name = "N")]
    cases: u64,
    /// Picks the cases: the same seed gives the same cases on every machine.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Run only the cases of shard I of N (1-based), to split a sweep across machines.
    #[arg(long, value_name = "I/N", default_value = "1/1")]
    shard: ShardArg,
    /// Where a failing case's scenario file goes (relative to the current folder; created if
    /// missing, and the command says where).
    #[arg(long, value_name = "DIR", default_value = "scenarios/regressions")]
    regressions: PathBuf,
}

#[derive(Clone, Copy, Debug)]
struct ShardArg(Shard);

impl FromStr for ShardArg {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let parsed = text.split_once('/').and_then(|(index, count)| {
            Some((
                index.trim().parse::<u64>().ok()?,
                count.trim().parse::<u64>().ok()?,
            ))
        });
        match parsed {
            Some((index, count)) if count >= 1 && (1..=count).contains(&index) => {
                Ok(ShardArg(Shard { index, count }))
            }
            _ => Err(format!(
                "\"{text}\" is not a shard: write I/N with 1 <= I <= N, such as 1/4"
            )),
        }
    }
}

pub(super) fn sweep_command(
    registry: &Registry,
    program: &str,
    args: &SweepArgs,
) -> Result<(), Failure> {
    if args.cases == 0 {
        return Err(Failure::Invalid("--cases must be at least 1".to_string()));
    }
    let source = args.file.display().to_string();
    let base = std::fs::read_to_string(&args.file)
        .map_err(|error| Failure::Invalid(format!("cannot read {source}: {error}")))?;
    let shard = args.shard.0;
    let owned = (0..args.cases).filter(|&case| shard.owns(case)).count() as u64;
    let bar = ProgressBar::new(owned);
    bar.set_style(
        ProgressStyle::with_template("[{bar:30}] {pos}/{len} cases, {per_sec} {msg}")
            .expect("a valid template"),
    );
    let outcome = sweep(
        registry,
        &source,
        &base,
        args.cases,
        args.seed,
        shard,
        |_, _, verdict| {
            if let Verdict::Failed(_) = verdict {
                bar.set_message("failed: shrinking");
            }
            bar.inc(1);
        },
    )
    .map_err(Failure::Invalid)?;
    bar.finish_and_clear();
    let Some(failure) = outcome.failure else {
        let rejected = match outcome.rejected {
            0 => "0 rejected".to_string(),
            count => format!("{count} rejected: {}", outcome.rejections),
        };
        super::print(format!(
            "{} cases of shard {}/{}: {} passed, {rejected}",
            outcome.run, shard.index, shard.count, outcome.passed
        ))?;
        return Ok(());
    };
    record_failure(program, args, &source, &failure)
}

/// Writes the shrunk failing case as a regression file, and says where and how to replay it.
fn record_failure(
    program: &str,
    args: &SweepArgs,
    source: &str,
    failure: &crate::sweep::Failure,
) -> Result<(), Failure> {
    let shrunk = shrunk_to(failure);
    let found = format!(
        "# Found by `{program} sweep {} --cases {} --seed {}` (case {}).\n# Shrunk to {shrunk}.\n\
         # It broke: {}\n",
        quote(&args.file),
        args.cases,
        args.seed,
        failure.case,
        one_line(&failure.reason),
    );
    let replay = |path: &Path| format!("{program} run {}", quote(path));
    let first = regression_path(&args.regressions, source, &failure.text);
    let (path, written) = write_regression(&first, |path| {
        format!("{found}# Replay: {}\n{}", replay(path), failure.text)
    })?;
    note!("case {} failed: {}", failure.case, failure.reason);
    note!("shrunk to {shrunk}");
    note_written(&path, &first, written);
    note!("replay: {}", replay(&path));
    Err(Failure::Expectation)
}

/// Where the regression went: a new file (perhaps in a new folder, or under a free name), or
/// one written before.
fn note_written(path: &Path, first: &Path, written: Written) {
    match written {
        Written::New { created_folder } => {
            if let Some(folder) = created_folder {
                note!("created the folder {folder}");
            }
            if path != first {
                note!(
                    "{} holds another file, left as it is: this failure goes under a free name",
                    first.display()
                );
            }
            note!("written to {}", path.display());
        }
        Written::AlreadyThere => note!(
            "recorded before in {}: the file is left as it is",
            path.display()
        ),
    }
}

/// What the shrunk case's file holds: every fault in it, which of them the base had, and what the
/// case changed.
fn shrunk_to(failure: &crate::sweep::Failure) -> String {
    let held = &failure.held;
    let base_own = held.total().saturating_sub(failure.added_faults);
    let own = match (held.total(), base_own) {
        (_, 0) => String::new(),
        (1, _) => ", the base's own".to_string(),
        (total, own) if own == total => ", all the base's own".to_string(),
        (_, own) => format!(", {own} of them the base's own"),
    };
    let changes = match failure.changes.len() {
        0 => "; the base's parameters unchanged".to_string(),
        1 => format!("; 1 change: {}", failure.changes[0]),
        count => format!("; {count} changes: {}", failure.changes.join(", ")),
    };
    format!("{held}{own}{changes}")
}

/// What became of a regression file.
enum Written {
    /// Written now, and the folder it made for it, if any, as the user should find it.
    New { created_folder: Option<String> },
    /// The same file, byte for byte, was written before.
    AlreadyThere,
}

/// Most names a failure tries: `<name>.toml`, then `<name>-2.toml` and so on.
const MAX_NAMES: u32 = 1_000;

/// Writes `contents(path)` at `first`, or at the first of `first-2`, `first-3`, ... that is free,
/// and says where. A file of the same bytes is the same failure, recorded before: it stays, and
/// so does any other file, which is never written over.
fn write_regression(
    first: &Path,
    contents: impl Fn(&Path) -> String,
) -> Result<(PathBuf, Written), Failure> {
    let created_folder = create_folder(first)?;
    for number in 1..=MAX_NAMES {
        let path = numbered(first, number);
        let text = contents(&path);
        if path.symlink_metadata().is_ok() {
            if std::fs::read(&path).is_ok_and(|existing| existing == text.as_bytes()) {
                return Ok((path, Written::AlreadyThere));
            }
            continue;
        }
        match write_atomically(&path, text.as_bytes(), false) {
            Ok(()) => return Ok((path, Written::New { created_folder })),
            // Taken since it was looked at.
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(Failure::Invalid(error.to_string())),
        }
    }
    Err(Failure::Invalid(format!(
        "{} and {MAX_NAMES} numbered names after it all hold other files",
        first.display()
    )))
}

/// `first` for the first name, else `<stem>-<number>.toml` beside it.
fn numbered(first: &Path, number: u32) -> PathBuf {
    if number == 1 {
        return first.to_path_buf();
    }
    let stem = first
        .file_stem()
        .map_or_else(String::new, |stem| stem.to_string_lossy().into_owned());
    first.with_file_name(format!("{stem}-{number}.toml"))
}

/// Creates the folder `path` goes in if it is missing; says which, as the user should find it.
fn create_folder(path: &Path) -> Result<Option<String>, Failure> {
    let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty() && !folder.is_dir())
    else {
        return Ok(None);
    };
    std::fs::create_dir_all(folder).map_err(|error| {
        Failure::Invalid(format!("cannot create {}: {error}", folder.display()))
    })?;
    // A relative default lands wherever the command ran: name the full path.
    let shown = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
    Ok(Some(shown.display().to_string()))
}

fn quote(path: &Path) -> String {
    let text = path.display().to_string();
    shlex::try_quote(&text).map_or(text.clone(), |quoted| quoted.into_owned())
}

fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regression_goes_under_a_free_name_and_never_over_another_file() {
        let folder = tempfile::tempdir().unwrap();
        let first = folder.path().join("base-1234abcd.toml");
        std::fs::write(&first, "a file of the user's own\n").unwrap();
        let contents = |path: &Path| format!("# {}\nseed = 1\n", path.display());
        let (path, written) = write_regression(&first, contents).unwrap();
        assert_eq!(path, folder.path().join("base-1234abcd-2.toml"));
        assert!(matches!(written, Written::New { .. }));
        assert_eq!(
            std::fs::read_to_string(&first).unwrap(),
            "a file of the user's own\n"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), contents(&path));
        // The same failure again finds its own file, byte for byte, and leaves it.
        let (again, written) = write_regression(&first, contents).unwrap();
        assert_eq!(again, path);
        assert!(matches!(written, Written::AlreadyThere));
        // A folder of that name is no file to write over either.
        std::fs::create_dir(folder.path().join("base-1234abcd-3.toml")).unwrap();
        let other = |path: &Path| format!("# {}\nseed = 2\n", path.display());
        let (third, _) = write_regression(&first, other).unwrap();
        assert_eq!(third, folder.path().join("base-1234abcd-4.toml"));
    }
}
