//! `ticklab calibrate`: measure this host's system calls and write a cost profile.

use std::path::PathBuf;

use super::Failure;

// Off Linux the command only refuses, so its options go unread there.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[derive(Debug, clap::Args)]
pub(super) struct CalibrateArgs {
    /// Write the profile here instead of to stdout (atomically; never over an existing file).
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// Far fewer runs and less memory: a rough profile in a few seconds rather than up to a minute.
    #[arg(long)]
    quick: bool,
}

#[cfg(target_os = "linux")]
pub(super) fn calibrate(args: &CalibrateArgs) -> Result<(), Failure> {
    use crate::calibrate::{Mode, calibrate};
    use crate::output::{AtomicFile, write_atomically};

    let invalid = |error: std::io::Error| Failure::Invalid(error.to_string());
    let mode = if args.quick { Mode::Quick } else { Mode::Full };
    // Checked before measuring, so that a file that is there already is refused at once rather
    // than after a minute of measurements; nothing is created until the profile is ready, so an
    // interrupted run leaves nothing behind.
    if let Some(path) = &args.out {
        drop(AtomicFile::create(path, args.force).map_err(invalid)?);
    }
    let calibration = calibrate(mode).map_err(|error| Failure::Invalid(error.to_string()))?;
    let text = calibration.to_toml();
    match &args.out {
        Some(path) => {
            write_atomically(path, text.as_bytes(), args.force).map_err(invalid)?;
            note!("wrote {}", path.display());
            Ok(())
        }
        None => super::print(text.trim_end()),
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn calibrate(_args: &CalibrateArgs) -> Result<(), Failure> {
    Err(Failure::Invalid(format!(
        "`ticklab calibrate` measures Linux system calls (sched_yield, epoll, clone and prctl) \
         and runs on Linux only, not on {}; profiles/reference.toml holds reference figures",
        std::env::consts::OS
    )))
}
