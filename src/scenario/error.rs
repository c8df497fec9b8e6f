//! Errors in scenario files, located at file:line:col with the offending line and a hint.

use std::fmt;
use std::ops::Range;

use super::explain::{explain, table_around};
use super::typed;

/// A problem with a scenario file. Always the user's to fix, so it carries a position and, where
/// one is known, a suggestion. Boxed: errors are rare, and results should stay small.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(Box<Details>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Details {
    source: String,
    /// Line and column, counting from 1; `None` for an error about the file as a whole.
    position: Option<(usize, usize)>,
    message: String,
    hint: Option<String>,
    /// The source line the error points at, and the columns to underline.
    excerpt: Option<(String, Range<usize>)>,
}

impl ScenarioError {
    /// An error about the bytes `span` of `text`.
    pub fn at(source: &str, text: &str, span: Range<usize>, message: impl Into<String>) -> Self {
        let start = span.start.min(text.len());
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[..start].matches('\n').count() + 1;
        let col = text[line_start..start].chars().count() + 1;
        let line_text = text[line_start..line_end].trim_end_matches('\r');
        let underline_end = span.end.clamp(start, line_end);
        let underline = (col - 1)..(col - 1 + text[start..underline_end].chars().count().max(1));
        let (line_text, underline) = clip_excerpt(line_text, underline);
        ScenarioError(Box::new(Details {
            source: source.to_string(),
            position: Some((line, col)),
            message: message.into(),
            hint: None,
            excerpt: Some((line_text, underline)),
        }))
    }

    /// An error about the file as a whole (it cannot be read, say).
    pub fn whole_file(source: &str, message: impl Into<String>) -> Self {
        ScenarioError(Box::new(Details {
            source: source.to_string(),
            position: None,
            message: message.into(),
            hint: None,
            excerpt: None,
        }))
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.0.hint = Some(hint.into());
        self
    }

    /// Line and column, counting from 1.
    pub fn position(&self) -> Option<(usize, usize)> {
        self.0.position
    }

    pub fn message(&self) -> &str {
        &self.0.message
    }

    pub fn hint(&self) -> Option<&str> {
        self.0.hint.as_deref()
    }

    /// Deserializes `T` from the TOML `text`; an error is put in the scenario vocabulary (keys
    /// and values), from what serde reported as data where it can, with the nearest valid name.
    pub fn parse_toml<'de, T: serde::Deserialize<'de>>(
        source: &str,
        text: &'de str,
    ) -> Result<T, Self> {
        typed::from_str(text).map_err(|failure| Self::from_failure(source, text, &failure))
    }

    fn from_failure(source: &str, text: &str, failure: &typed::Failure) -> Self {
        let span = failure.error.span().unwrap_or(0..0);
        let spanned = text.get(span.clone()).unwrap_or("");
        let table = table_around(text, span.start);
        let (message, hint) = explain(
            failure.problem.as_ref(),
            failure.error.message(),
            &table,
            spanned,
        );
        ScenarioError::at(source, text, span, message).with_hint(hint)
    }

    /// The first line of the rendered error: `file:line:col: message`.
    pub fn headline(&self) -> String {
        let details = &self.0;
        match details.position {
            Some((line, col)) => format!("{}:{line}:{col}: {}", details.source, details.message),
            None => format!("{}: {}", details.source, details.message),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.headline())?;
        if let (Some((line_text, underline)), Some((line, _))) = (&self.0.excerpt, self.0.position)
        {
            let number = line.to_string();
            let gutter = " ".repeat(number.len());
            write!(f, "\n {gutter} |\n {number} | {line_text}\n {gutter} | ")?;
            write!(
                f,
                "{}{}",
                " ".repeat(underline.start),
                "^".repeat(underline.len())
            )?;
        }
        if let Some(hint) = &self.0.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// The widest excerpt shown; a longer line is cut to a window around the error.
const EXCERPT_CHARS: usize = 100;

/// Cuts a long line to a window around the underlined columns, marking the cuts with `...`.
fn clip_excerpt(line_text: &str, underline: Range<usize>) -> (String, Range<usize>) {
    let chars: Vec<char> = line_text.chars().collect();
    if chars.len() <= EXCERPT_CHARS {
        return (line_text.to_string(), underline);
    }
    let from = underline.start.saturating_sub(EXCERPT_CHARS / 4);
    let to = (from + EXCERPT_CHARS).min(chars.len());
    let lead = if from > 0 { "..." } else { "" };
    let tail = if to < chars.len() { "..." } else { "" };
    let window: String = chars[from..to].iter().collect();
    let start = underline.start - from + lead.len();
    let end = (underline.end.min(to) - from + lead.len()).max(start + 1);
    (format!("{lead}{window}{tail}"), start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_around_the_error() {
        let text = format!(
            "about = \"{}\"\nperod = 1\nx = [{}oops]\n",
            "a".repeat(10),
            "1, ".repeat(500)
        );
        let offset = text.find("oops").unwrap();
        let rendered = ScenarioError::at("x.toml", &text, offset..offset + 4, "bad").to_string();
        let excerpt = rendered.lines().nth(2).unwrap();
        assert!(
            excerpt.len() < 130 && excerpt.contains("oops]") && excerpt.contains("..."),
            "{rendered}"
        );
        let caret_line = rendered.lines().nth(3).unwrap();
        assert_eq!(caret_line.find('^'), excerpt.find("oops"), "{rendered}");
    }

    #[test]
    fn position_and_underline_point_at_the_span() {
        let text = "a = 1\nperod = \"1s\"\n";
        let error = ScenarioError::at("x.toml", text, 6..11, "unknown key `perod`");
        assert_eq!(error.position(), Some((2, 1)));
        assert_eq!(
            error.to_string(),
            "x.toml:2:1: unknown key `perod`\n   |\n 2 | perod = \"1s\"\n   | ^^^^^"
        );
    }
}
