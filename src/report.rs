//! `ticklab report`: one self-contained HTML page of results, the behaviour matrix and every
//! scenario's plot inline. It loads nothing: no scripts, stylesheets, fonts or images from
//! anywhere, so it reads the same offline, attached to a CI run.

use std::io::{self, Write};

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

/// Writes the page to `out`, piece by piece so that no copy of it is held whole: a count, the
/// results, the matrix if given, then one figure per scenario that ran. Returns the bytes
/// written.
pub fn write_html(
    out: &mut impl Write,
    entries: &[Entry],
    matrix: Option<&Grid>,
) -> io::Result<u64> {
    let mut written = Written { out, bytes: 0 };
    let head = html! {
        head {
            meta charset="utf-8";
            title { "ticklab report" }
            style { (PreEscaped(STYLE)) }
        }
    };
    written.put(&format!("{}<html lang=\"en\">", DOCTYPE.into_string()))?;
    written.put(&head.into_string())?;
    written.put("<body>")?;
    written.put(&tables(entries, matrix).into_string())?;
    for (index, entry) in entries.iter().enumerate() {
        if let Some(svg) = &entry.svg {
            let caption = html! { figcaption { (entry.source) " (" (entry.result) ")" } };
            written.put(&format!("<figure id=\"figure-{index}\">"))?;
            written.put(&caption.into_string())?;
            // The drawing goes out as it is, not copied into the page first.
            written.put(svg)?;
            written.put("</figure>")?;
        }
    }
    written.put("</body></html>")?;
    Ok(written.bytes)
}

/// A writer that counts what went through it.
struct Written<'a, W: Write> {
    out: &'a mut W,
    bytes: u64,
}

impl<W: Write> Written<'_, W> {
    fn put(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.bytes += text.len() as u64;
        Ok(())
    }
}

/// The heading, the count, the results table and the matrix if given.
fn tables(entries: &[Entry], matrix: Option<&Grid>) -> Markup {
    let failed = entries
        .iter()
        .filter(|entry| entry.result == "FAILED")
        .count();
    let invalid = entries
        .iter()
        .filter(|entry| entry.result == "invalid")
        .count();
    let passed = entries.len() - failed - invalid;
    html! {
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
    }
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
        let mut bytes = Vec::new();
        let written = write_html(
            &mut bytes,
            &[
                entry("a.toml", "ok", Some("<svg></svg>")),
                entry("b.toml", "invalid", None),
            ],
            None,
        )
        .unwrap();
        assert_eq!(written, bytes.len() as u64);
        let page = String::from_utf8(bytes).unwrap();
        assert!(
            page.starts_with("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        );
        assert!(
            page.ends_with(
                "<figcaption>a.toml (ok)</figcaption><svg></svg></figure></body></html>"
            )
        );
        assert_eq!(page.matches("<figure").count(), 1);
        assert!(page.contains("<a href=\"#figure-0\">a.toml</a>"));
        assert!(page.contains("a &lt; b &amp; c"));
        assert!(page.contains("2 scenarios: 1 passed, 0 failed, 1 invalid."));
        assert!(!page.contains("<table id=\"matrix\""));
    }
}
