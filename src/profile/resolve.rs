//! Finding the profile a scenario names.
//!
//! A relative path is looked up beside the scenario file, then in each folder above it, so that
//! `profile = "profiles/reference.toml"` works from any scenario folder of a project; then in the
//! current directory. `profiles/reference.toml` itself is compiled in, so built-in scenarios run
//! from anywhere.

use std::path::{Path, PathBuf};

use super::{CostProfile, parse};
use crate::scenario::error::ScenarioError;

/// The shipped reference profile.
pub const REFERENCE: &str = include_str!("../../profiles/reference.toml");
const REFERENCE_PATH: &str = "profiles/reference.toml";

/// Reads and validates a profile file.
pub fn load(path: &Path) -> Result<CostProfile, ScenarioError> {
    let source = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| {
        ScenarioError::whole_file(&source, format!("cannot read the cost profile: {error}"))
            .with_hint("profiles are TOML files such as profiles/reference.toml; `ticklab calibrate --out FILE` writes one")
    })?;
    parse(&source, &text)
}

/// The profile that a scenario read from `scenario_source` names as `written`. Errors are
/// `(message, hint)`, for the caller to place at the key.
pub fn resolve(scenario_source: &str, written: &str) -> Result<CostProfile, (String, String)> {
    let candidates = candidates(scenario_source, written);
    for candidate in &candidates {
        if candidate.is_file() {
            return load(candidate).map_err(|error| {
                (
                    format!(
                        "the cost profile {} is invalid: {}",
                        candidate.display(),
                        error.headline()
                    ),
                    error.hint().unwrap_or("fix the profile").to_string(),
                )
            });
        }
    }
    if Path::new(written) == Path::new(REFERENCE_PATH) {
        return Ok(parse(REFERENCE_PATH, REFERENCE).expect("the reference profile is valid"));
    }
    Err((
        format!("no cost profile at \"{written}\""),
        format!(
            "looked beside the scenario, in the folders above it and in the current directory; \
             use \"{REFERENCE_PATH}\" or write one with `ticklab calibrate --out FILE`"
        ),
    ))
}

fn candidates(scenario_source: &str, written: &str) -> Vec<PathBuf> {
    let written = Path::new(written);
    if written.is_absolute() {
        return vec![written.to_path_buf()];
    }
    let mut folders: Vec<PathBuf> = Path::new(scenario_source)
        .ancestors()
        .skip(1)
        .map(Path::to_path_buf)
        .collect();
    folders.push(PathBuf::from("."));
    folders
        .into_iter()
        .map(|folder| folder.join(written))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_profile_resolves_from_anywhere() {
        let profile = resolve("/nowhere/scenarios/lock/x.toml", REFERENCE_PATH).unwrap();
        assert_eq!(profile.costs.vfork.p50_ns, 30_000);
    }

    #[test]
    fn a_missing_profile_says_where_it_looked() {
        let (message, hint) = resolve("/nowhere/x.toml", "profiles/missing.toml").unwrap_err();
        assert_eq!(message, "no cost profile at \"profiles/missing.toml\"");
        assert!(hint.contains("ticklab calibrate"), "{hint}");
    }
}
