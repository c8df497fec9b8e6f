//! Metrics and the bounds `[expect]` puts on them, as data: what a model reports, what a file
//! bounds, and how a run fared. Parsing them from a file is the parent module's; this file needs
//! nothing of scenario files, so the model trait and the trace can name metrics without it.

use std::fmt;

use ticklab_sim::{Approx, Secs};

/// How a metric's values are written and shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Count,
    /// Nanoseconds, written as durations in scenario files.
    Duration,
    /// A moment of the run: physical nanoseconds since its start, written as durations in
    /// scenario files, or [`NEVER`] if it never came.
    Time,
}

/// The value of a [`Unit::Time`] metric whose moment never came, such as the first fire of a run
/// in which nothing fired. Bounds treat it as later than any time.
pub const NEVER: u64 = u64::MAX;

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
    /// A count whose summary key is its name.
    pub const fn count(name: &'static str, about: &'static str) -> Metric {
        Metric {
            name,
            summary_key: name,
            unit: Unit::Count,
            about,
        }
    }

    /// A duration; its summary key ends in `_ns`, as in all JSON.
    pub const fn duration(
        name: &'static str,
        summary_key: &'static str,
        about: &'static str,
    ) -> Metric {
        Metric {
            name,
            summary_key,
            unit: Unit::Duration,
            about,
        }
    }

    /// A moment of the run; its summary key ends in `_ns`, as in all JSON.
    pub const fn time(
        name: &'static str,
        summary_key: &'static str,
        about: &'static str,
    ) -> Metric {
        Metric {
            name,
            summary_key,
            unit: Unit::Time,
            about,
        }
    }

    pub fn show(&self, value: u64) -> String {
        match self.unit {
            Unit::Count => value.to_string(),
            Unit::Duration => Approx(value).to_string(),
            Unit::Time if value == NEVER => "never".to_string(),
            Unit::Time => Secs(value).to_string(),
        }
    }

    /// The key in a text summary: the name `[expect]` takes, so that a figure read off a run can
    /// be bounded as it is printed. Text shows units, where JSON keys end in `_ns`.
    pub fn text_key(&self) -> &'static str {
        self.name
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
    /// The named part the metric belongs to; `None` for the whole run.
    pub group: Option<String>,
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
        if let Some(group) = &self.group {
            write!(f, "{group}: ")?;
        }
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

/// One metric as a run's headline shows it: its value and every bound on it.
struct Figure<'a> {
    group: Option<&'a str>,
    metric: Metric,
    actual: u64,
    at_least: Option<u64>,
    at_most: Option<u64>,
    passed: bool,
}

impl fmt::Display for Figure<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |value| self.metric.show(value);
        if let Some(group) = self.group {
            write!(f, "{group}: ")?;
        }
        write!(f, "{} {} (want ", self.metric.name, show(self.actual))?;
        match (self.at_least, self.at_most) {
            (Some(low), Some(high)) if low == high => write!(f, "== {})", show(low))?,
            (Some(low), Some(high)) => write!(f, "{}..={})", show(low), show(high))?,
            (Some(low), None) => write!(f, ">= {})", show(low))?,
            (None, Some(high)) => write!(f, "<= {})", show(high))?,
            (None, None) => write!(f, "anything)")?,
        }
        if !self.passed {
            write!(f, " FAILED")?;
        }
        Ok(())
    }
}

/// A run's headline figures: each metric its expectations bound, with its value and the bounds,
/// in the file's order, such as `ticks_after_resume 392 (want 390..=393)`. Failed ones end in
/// `FAILED`.
pub fn headline(outcomes: &[Outcome]) -> String {
    let mut figures: Vec<Figure<'_>> = Vec::new();
    for outcome in outcomes {
        let expectation = &outcome.expectation;
        let group = expectation.group.as_deref();
        let same = |figure: &Figure<'_>| {
            figure.group == group && figure.metric.name == expectation.metric.name
        };
        let index = figures.iter().position(same).unwrap_or_else(|| {
            figures.push(Figure {
                group,
                metric: expectation.metric,
                actual: outcome.actual,
                at_least: None,
                at_most: None,
                passed: true,
            });
            figures.len() - 1
        });
        let figure = &mut figures[index];
        let value = Some(expectation.value);
        match expectation.bound {
            Bound::AtLeast => figure.at_least = value,
            Bound::AtMost => figure.at_most = value,
            Bound::Exactly => (figure.at_least, figure.at_most) = (value, value),
        }
        figure.passed &= outcome.passed;
    }
    let shown: Vec<String> = figures.iter().map(ToString::to_string).collect();
    shown.join("; ")
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

/// What a model lets `[expect]` bound.
#[derive(Clone, Debug)]
pub struct ExpectSchema<'a> {
    pub metrics: &'a [Metric],
    /// Names of the model's parts that take a sub-table, and the metrics each part has.
    pub groups: Vec<&'a str>,
    pub group_metrics: &'a [Metric],
    /// What a part is called in messages: `task group`, `strategy`.
    pub group_noun: &'static str,
    /// Metrics that other setups of the model report, with who reports them (another timer
    /// design's own), so that bounding one here says whose it is.
    pub elsewhere: &'a [(&'static str, &'static str)],
}

impl<'a> ExpectSchema<'a> {
    /// A model without named parts.
    pub fn flat(metrics: &'a [Metric]) -> Self {
        ExpectSchema {
            metrics,
            groups: Vec::new(),
            group_metrics: &[],
            group_noun: "part",
            elsewhere: &[],
        }
    }
}
