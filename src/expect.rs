//! `[expect]`: bounds on a run's summary metrics, checked by `ticklab run` and `ticklab check`.
//!
//! Each model publishes its metrics (name, unit, meaning). An expectation names one with a prefix:
//! `max_ticks_after_resume = 3` is an upper bound, `min_…` a lower bound, and the bare name an
//! exact value.

use std::fmt;

use ticklab_sim::Compact;

use crate::scenario::{ExpectTable, Located, ScenarioError, values::parse_duration_ns};

/// How a metric's values are written and shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Count,
    /// Nanoseconds, written as durations in scenario files.
    Duration,
}

/// One number a model's summary reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    /// The name `[expect]` keys use, after `max_` or `min_`.
    pub name: &'static str,
    /// The key in a trace's summary; durations end in `_ns`, as in all JSON.
    pub summary_key: &'static str,
    pub unit: Unit,
    pub about: &'static str,
}

impl Metric {
    pub fn show(&self, value: u64) -> String {
        match self.unit {
            Unit::Count => value.to_string(),
            Unit::Duration => Compact(value as i64).to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    AtMost,
    AtLeast,
    Exactly,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// The key as written, such as `max_ticks_after_resume`.
    pub key: String,
    pub metric: Metric,
    pub bound: Bound,
    pub value: u64,
}

impl fmt::Display for Expectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.bound {
            Bound::AtMost => "<=",
            Bound::AtLeast => ">=",
            Bound::Exactly => "==",
        };
        write!(
            f,
            "{} {op} {}",
            self.metric.name,
            self.metric.show(self.value)
        )
    }
}

/// An expectation checked against a finished run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub expectation: Expectation,
    pub actual: u64,
    pub passed: bool,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.passed { "ok" } else { "FAILED" };
        write!(
            f,
            "{verdict}: {} (got {})",
            self.expectation,
            self.expectation.metric.show(self.actual)
        )
    }
}

impl Expectation {
    pub fn check(&self, actual: u64) -> Outcome {
        let passed = match self.bound {
            Bound::AtMost => actual <= self.value,
            Bound::AtLeast => actual >= self.value,
            Bound::Exactly => actual == self.value,
        };
        Outcome {
            expectation: self.clone(),
            actual,
            passed,
        }
    }
}

/// Validates an `[expect]` table against `metrics`, keeping the file's order.
pub(crate) fn parse_expectations(
    file: &Located<'_>,
    table: &ExpectTable,
    metrics: &[Metric],
) -> Result<Vec<Expectation>, ScenarioError> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    entries
        .into_iter()
        .map(|(key, value)| parse_one(file, key, value, metrics))
        .collect()
}

fn parse_one(
    file: &Located<'_>,
    key: &toml::Spanned<String>,
    value: &toml::Spanned<toml::Value>,
    metrics: &[Metric],
) -> Result<Expectation, ScenarioError> {
    let written = key.get_ref().as_str();
    let (bound, name) = match (written.strip_prefix("max_"), written.strip_prefix("min_")) {
        (Some(name), _) => (Bound::AtMost, name),
        (_, Some(name)) => (Bound::AtLeast, name),
        _ => (Bound::Exactly, written),
    };
    let Some(metric) = metrics.iter().find(|metric| metric.name == name) else {
        let mut valid: Vec<String> = Vec::new();
        for metric in metrics {
            valid.extend([
                format!("max_{}", metric.name),
                format!("min_{}", metric.name),
                metric.name.to_string(),
            ]);
        }
        let choices: Vec<&str> = valid.iter().map(String::as_str).collect();
        let hint = match crate::scenario::nearest(written, &choices) {
            Some(best) => format!("did you mean `{best}`?"),
            None => "expectations are max_<metric>, min_<metric> or <metric> for an exact value."
                .to_string(),
        };
        let names: Vec<_> = metrics.iter().map(|m| m.name).collect();
        return Err(file
            .error(key.span(), format!("unknown key `{written}` in [expect]"))
            .with_hint(format!(
                "{hint} Metrics of this model: {}",
                names.join(", ")
            )));
    };
    let example = match metric.unit {
        Unit::Count => format!("for example {written} = 3"),
        Unit::Duration => format!("for example {written} = \"500ms\""),
    };
    let parsed = match (metric.unit, value.get_ref()) {
        (Unit::Count, toml::Value::Integer(n)) if *n >= 0 => Ok(*n as u64),
        (Unit::Count, _) => Err((
            format!("`{written}` takes a whole number of zero or more"),
            example,
        )),
        (Unit::Duration, toml::Value::String(text)) => match parse_duration_ns(text) {
            Ok(ns) if ns >= 0 => Ok(ns as u64),
            Ok(_) => Err((
                format!("`{written}` takes a duration of zero or more"),
                example,
            )),
            Err(problem) => Err((problem.message, problem.hint)),
        },
        (Unit::Duration, _) => Err((format!("`{written}` takes a duration"), example)),
    };
    let value =
        parsed.map_err(|(message, hint)| file.error(value.span(), message).with_hint(hint))?;
    Ok(Expectation {
        key: written.to_string(),
        metric: *metric,
        bound,
        value,
    })
}
