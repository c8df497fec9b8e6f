//! `ticklab report`: one self-contained HTML page of results, the behaviour matrix and every
//! scenario's plot inline. It loads nothing: no scripts, stylesheets, fonts or images from
//! anywhere, so it reads the same offline, attached to a CI run.

use maud::{DOCTYPE, Markup, PreEscaped, html};

/// One scenario's line in the results table, and its figure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub source: String,
    pub model: String,
    /// `ok`, `FAILED` or `invalid`.
    pub result: String,
    /// What its expectations came to, or why it could not run.
    pub detail: String,
    /// The run drawn as SVG; absent for a scenario that could not run.
    pub svg: Option<String>,
}

/// A table with a caption: the `ticklab table` matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub caption: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

const STYLE: &str = "
body { font-family: sans-serif; margin: 2em auto; max-width: 1040px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.ok { color: #1a7f37; }
td.FAILED, td.invalid { color: #c62828; font-weight: bold; }
caption { caption-side: top; text-align: left; font-weight: bold; padding-bottom: 0.4em; }
figure { margin: 2em 0; }
figcaption { font-weight: bold; margin-bottom: 0.4em; }
figure svg { max-width: 100%; height: auto; }
";

/// The page: a count, the results, the matrix if given, then one figure per scenario that ran.
pub fn html(entries: &[Entry], matrix: Option<&Grid>) -> String {
    let failed = entries
        .iter()
        .filter(|entry| entry.result == "FAILED")
        .count();
    let invalid = entries
        .iter()
        .filter(|entry| entry.result == "invalid")
        .count();
    let passed = entries.len() - failed - invalid;
    let page: Markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "ticklab report" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "ticklab report" }
                p {
                    (entries.len()) " scenarios: " (passed) " passed, " (failed) " failed, "
                    (invalid) " invalid."
                }
                table id="results" {
                    caption { "Results of each scenario's [expect]" }
                    tr { th { "scenario" } th { "model" } th { "result" } th { "figures (and what the scenario expects)" } }
                    @for (index, entry) in entries.iter().enumerate() {
                        tr {
                            td {
                                @if entry.svg.is_some() {
                                    a href={ "#figure-" (index) } { (entry.source) }
                                } @else {
                                    (entry.source)
                                }
                            }
                            td { (entry.model) }
                            td class=(entry.result) { (entry.result) }
                            td { (entry.detail) }
                        }
                    }
                }
                @if let Some(matrix) = matrix {
                    table id="matrix" {
                        caption { (matrix.caption) }
                        tr { @for name in &matrix.header { th { (name) } } }
                        @for row in &matrix.rows {
                            tr { @for cell in row { td { (cell) } } }
                        }
                    }
                }
                @for (index, entry) in entries.iter().enumerate() {
                    @if let Some(svg) = &entry.svg {
                        figure id={ "figure-" (index) } {
                            figcaption { (entry.source) " (" (entry.result) ")" }
                            (PreEscaped(svg))
                        }
                    }
                }
            }
        }
    };
    page.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(source: &str, result: &str, svg: Option<&str>) -> Entry {
        Entry {
            source: source.to_string(),
            model: "interval".to_string(),
            result: result.to_string(),
            detail: "a < b & c".to_string(),
            svg: svg.map(str::to_string),
        }
    }

    #[test]
    fn every_run_gets_a_linked_figure_and_text_is_escaped() {
        let page = html(
            &[
                entry("a.toml", "ok", Some("<svg></svg>")),
                entry("b.toml", "invalid", None),
            ],
            None,
        );
        assert_eq!(page.matches("<figure").count(), 1);
        assert!(page.contains("<a href=\"#figure-0\">a.toml</a>"));
        assert!(page.contains("a &lt; b &amp; c"));
        assert!(page.contains("2 scenarios: 1 passed, 0 failed, 1 invalid."));
        assert!(!page.contains("<table id=\"matrix\""));
    }
}
