//! `ticklab report`: one self-contained HTML page of results, the behaviour matrix and every
//! scenario's plot inline. It loads nothing: no scripts, stylesheets, fonts or images from
//! anywhere, so it reads the same offline, attached to a CI run.

use std::io::{self, Write};

use crate::output::CountingWriter;

use maud::{DOCTYPE, Markup, PreEscaped, html};

/// One scenario's line in the results table, and its figure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<D = String> {
    pub source: String,
    pub model: String,
    /// `ok`, `FAILED` or `invalid`.
    pub result: String,
    /// What its expectations came to, or why it could not run.
    pub detail: String,
    /// The run's drawing; absent for a scenario that could not run.
    pub svg: Option<D>,
}

/// A figure's drawing, which writes its SVG straight into the page as the page is written.
pub trait Drawing {
    fn write_svg(&self, out: &mut dyn Write) -> io::Result<()>;
}

/// A drawing already made, written as it is.
impl Drawing for String {
    fn write_svg(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(self.as_bytes())
    }
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
/// results, the matrix if given, then one figure per scenario that ran, each drawing written
/// straight into the page. Returns the bytes written.
pub fn write_html<D: Drawing>(
    out: &mut impl Write,
    entries: &[Entry<D>],
    matrix: Option<&Grid>,
) -> io::Result<u64> {
    let mut written = CountingWriter::new(out);
    let head = html! {
        head {
            meta charset="utf-8";
            title { "ticklab report" }
            style { (PreEscaped(STYLE)) }
        }
    };
    write!(written, "{}<html lang=\"en\">", DOCTYPE.into_string())?;
    written.write_all(head.into_string().as_bytes())?;
    written.write_all(b"<body>")?;
    written.write_all(tables(entries, matrix).into_string().as_bytes())?;
    for (index, entry) in entries.iter().enumerate() {
        if let Some(drawing) = &entry.svg {
            let caption = html! { figcaption { (entry.source) " (" (entry.result) ")" } };
            write!(written, "<figure id=\"figure-{index}\">")?;
            written.write_all(caption.into_string().as_bytes())?;
            drawing.write_svg(&mut written)?;
            written.write_all(b"</figure>")?;
        }
    }
    written.write_all(b"</body></html>")?;
    Ok(written.bytes())
}

/// The heading, the count, the results table and the matrix if given.
fn tables<D>(entries: &[Entry<D>], matrix: Option<&Grid>) -> Markup {
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
    /// Writes its SVG in pieces, or fails after its first.
    struct Pieces {
        fail: bool,
    }

    impl Drawing for Pieces {
        fn write_svg(&self, out: &mut dyn Write) -> io::Result<()> {
            out.write_all(b"<svg>")?;
            if self.fail {
                return Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    "the disk is full",
                ));
            }
            out.write_all(b"<rect/>")?;
            out.write_all(b"</svg>")
        }
    }

    #[test]
    fn a_drawing_is_written_straight_into_its_figure_and_its_error_ends_the_page() {
        let entry = |fail| Entry {
            source: "a.toml".to_string(),
            model: "interval".to_string(),
            result: "ok".to_string(),
            detail: String::new(),
            svg: Some(Pieces { fail }),
        };
        let mut bytes = Vec::new();
        let written = write_html(&mut bytes, &[entry(false)], None).unwrap();
        assert_eq!(
            written,
            bytes.len() as u64,
            "the drawing's bytes are counted"
        );
        let page = String::from_utf8(bytes).unwrap();
        assert!(page.ends_with(
            "<figcaption>a.toml (ok)</figcaption><svg><rect/></svg></figure></body></html>"
        ));
        let error = write_html(&mut Vec::new(), &[entry(true)], None).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::StorageFull);
    }
}
