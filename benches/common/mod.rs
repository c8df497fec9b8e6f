//! What the benchmarks share: where criterion keeps its results, and reading this run's means
//! back, so each benchmark can print ratios from one run.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// criterion's output folder, pinned so the means can be read back.
pub fn output_directory() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// Mean ns per iteration of benchmark `group/id`, if this run (started at `since`) measured it.
pub fn mean_ns(group: &str, id: &str, since: SystemTime) -> Option<f64> {
    let path = output_directory()
        .join(group)
        .join(id)
        .join("new/estimates.json");
    let fresh = std::fs::metadata(&path)
        .and_then(|meta| meta.modified())
        .is_ok_and(|modified| modified >= since);
    if !fresh {
        return None;
    }
    let estimates: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    estimates["mean"]["point_estimate"].as_f64()
}
