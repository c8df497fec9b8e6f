//! Whole numbers in scenario files, checked against their allowed range with a located error.

use toml::Spanned;

use super::error::ScenarioError;
use super::located::Located;

/// `value`, if it lies in `range`; otherwise an error at it naming `key`, with `hint`.
pub(crate) fn whole(
    file: &Located<'_>,
    value: &Spanned<i64>,
    key: &str,
    range: std::ops::RangeInclusive<i64>,
    hint: &str,
) -> Result<i64, ScenarioError> {
    if range.contains(value.get_ref()) {
        return Ok(*value.get_ref());
    }
    Err(file
        .error(
            value.span(),
            format!(
                "`{key}` must be between {} and {}",
                range.start(),
                range.end()
            ),
        )
        .with_hint(hint.to_string()))
}

/// [`whole`] for an optional key, with its default.
pub(crate) fn optional_whole(
    file: &Located<'_>,
    value: &Option<Spanned<i64>>,
    key: &str,
    range: std::ops::RangeInclusive<i64>,
    default: i64,
    hint: &str,
) -> Result<i64, ScenarioError> {
    value
        .as_ref()
        .map_or(Ok(default), |value| whole(file, value, key, range, hint))
}
