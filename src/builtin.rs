//! The scenarios shipped in `scenarios/`, compiled into the binary so that `ticklab table` and
//! `ticklab check` work from any directory.

use include_dir::{Dir, include_dir};

use crate::loader;
use crate::scenario::Scenario;

use crate::scenario::error::ScenarioError;

static SCENARIOS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/scenarios");

/// The built-in scenarios under `folder` (relative to `scenarios/`), sorted by path.
pub fn scenarios_under(folder: &str) -> Result<Vec<Scenario>, ScenarioError> {
    let mut files: Vec<_> = Vec::new();
    collect(&SCENARIOS, &mut files);
    files.retain(|file| file.path().starts_with(folder));
    files.sort_by_key(|file| file.path());
    files
        .into_iter()
        .map(|file| {
            let source = format!("scenarios/{}", file.path().display());
            let text = file.contents_utf8().ok_or_else(|| {
                ScenarioError::whole_file(&source, "not UTF-8")
                    .with_hint("scenario files are UTF-8 text")
            })?;
            loader::parse(&source, text)
        })
        .collect()
}

/// The text of every built-in scenario file under `folder`, as (its `scenarios/...` path, its
/// text), sorted by path.
pub fn texts_under(folder: &str) -> Vec<(String, &'static str)> {
    let mut files: Vec<_> = Vec::new();
    collect(&SCENARIOS, &mut files);
    files.retain(|file| file.path().starts_with(folder));
    files.sort_by_key(|file| file.path());
    files
        .into_iter()
        .filter_map(|file| {
            let source = format!("scenarios/{}", file.path().display());
            Some((source, file.contents_utf8()?))
        })
        .collect()
}

fn collect<'a>(dir: &'a Dir<'a>, out: &mut Vec<&'a include_dir::File<'a>>) {
    out.extend(
        dir.files()
            .filter(|file| file.path().extension().is_some_and(|ext| ext == "toml")),
    );
    for sub in dir.dirs() {
        collect(sub, out);
    }
}
