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

pub(super) fn sweep_command(registry: &Registry, args: &SweepArgs) -> Result<(), Failure> {
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
        super::print(format!(
            "{} cases of shard {}/{}: {} passed, {} rejected as invalid or too large",
            outcome.run, shard.index, shard.count, outcome.passed, outcome.rejected
        ))?;
        return Ok(());
    };
    let path = regression_path(&args.regressions, &source, &failure.text);
    let replay = format!("ticklab run {}", quote(&path));
    let added = failure.minimal.faults.len();
    let shrunk = match failure.base_faults {
        0 => format!("{added} fault(s)"),
        base => format!(
            "{added} added fault(s), {} in the file with the base's {base}",
            added + base
        ),
    };
    let header = format!(
        "# Found by `ticklab sweep {source} --cases {} --seed {}` (case {}), shrunk to {shrunk} \
         and {} parameter change(s).\n# It broke: {}\n# Replay: {replay}\n",
        args.cases,
        args.seed,
        failure.case,
        failure.minimal.tweaks.len(),
        one_line(&failure.reason),
    );
    let written = write_regression(&path, &format!("{header}{}", failure.text))?;
    note!("case {} failed: {}", failure.case, failure.reason);
    match written {
        Written::New { created_folder } => {
            if let Some(folder) = created_folder {
                note!("created the folder {folder}");
            }
            note!("shrunk to {shrunk}, written to {}", path.display());
        }
        Written::AlreadyThere => note!(
            "shrunk to {shrunk}, recorded before in {}: the file is left as it is",
            path.display()
        ),
    }
    note!("replay: {replay}");
    Err(Failure::Expectation)
}

/// What became of a regression file.
enum Written {
    /// Written now, and the folder it made for it, if any, as the user should find it.
    New { created_folder: Option<String> },
    /// The same case, under the same name, was recorded before.
    AlreadyThere,
}

/// Writes the file unless the same case was recorded before, under the same name.
fn write_regression(path: &Path, text: &str) -> Result<Written, Failure> {
    let mut created_folder = None;
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        && !folder.is_dir()
    {
        std::fs::create_dir_all(folder).map_err(|error| {
            Failure::Invalid(format!("cannot create {}: {error}", folder.display()))
        })?;
        // A relative default lands wherever the command ran: name the full path.
        let shown = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
        created_folder = Some(shown.display().to_string());
    }
    match write_atomically(path, text.as_bytes(), false) {
        Ok(()) => Ok(Written::New { created_folder }),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok(Written::AlreadyThere)
        }
        Err(error) => Err(Failure::Invalid(error.to_string())),
    }
}

fn quote(path: &Path) -> String {
    let text = path.display().to_string();
    shlex::try_quote(&text).map_or(text.clone(), |quoted| quoted.into_owned())
}

fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" ")
}
