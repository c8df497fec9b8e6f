//! What the lock's and the idle loops' pictures share: CPU per part of the run, from its summary.

use super::collect::Collected;
use super::style::Bar;

/// Each part of `kind` and its `cpu_percent`, from the summary, as a bar panel's rows and bars.
pub(crate) fn cpu_rows(collected: &Collected, kind: &str) -> (Vec<String>, Vec<Bar>) {
    let summary = collected.summary.iter();
    let sections = summary.flat_map(|summary| summary.groups.iter().chain(&summary.parts));
    let parts: Vec<(String, f64)> = sections
        .filter(|section| section.kind == kind)
        .filter_map(|section| Some((section.name.clone(), section.get("cpu_percent")? as f64)))
        .collect();
    let bars = parts
        .iter()
        .enumerate()
        .map(|(row, (_, percent))| Bar {
            row,
            value: *percent,
            color: row,
            opacity: 1.0,
        })
        .collect();
    (parts.into_iter().map(|(name, _)| name).collect(), bars)
}
