//! A scenario file's text with its name, which every error about the file points into.

use std::ops::Range;

use super::error::ScenarioError;

/// A scenario file's text with its name, for locating errors.
#[derive(Clone, Copy, Debug)]
pub struct Located<'a> {
    pub source: &'a str,
    pub text: &'a str,
}

impl<'a> Located<'a> {
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::at(self.source, self.text, span, message)
    }

    /// The file's text as a `T`.
    pub(crate) fn parse<T: serde::Deserialize<'a>>(&self) -> Result<T, ScenarioError> {
        ScenarioError::parse_toml(self.source, self.text)
    }
}
