//! The summary at the end of every trace: the model's metrics and each thread's CPU time.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use ticklab_sim::ThreadCpu;

use crate::expect::metric::{Metric, NEVER, Unit};

/// A finished run's numbers, in the order the model lists its metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub t_ns: u64,
    pub model: &'static str,
    pub values: Vec<(Metric, u64)>,
    pub threads: Vec<ThreadCpu>,
    /// Metrics per named part of the model (an executor's task groups), which `[expect]` can
    /// bound in a sub-table named after the part.
    pub groups: Vec<Section>,
    /// Metrics per worker, thread or core, reported but not expectable: their numbering is an
    /// implementation detail a scenario should not pin.
    pub parts: Vec<Section>,
}

/// One named part's metrics, in the order the model lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// What the part is: `group`, `worker`, `thread`, `core`.
    pub kind: &'static str,
    pub name: String,
    pub values: Vec<(Metric, u64)>,
}

impl Section {
    pub fn new(
        kind: &'static str,
        name: impl Into<String>,
        metrics: &[Metric],
        values: &[u64],
    ) -> Self {
        assert_eq!(values.len(), metrics.len(), "one value per metric");
        Section {
            kind,
            name: name.into(),
            values: metrics
                .iter()
                .copied()
                .zip(values.iter().copied())
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<u64> {
        self.values
            .iter()
            .find(|(metric, _)| metric.name == name)
            .map(|(_, value)| *value)
    }
}

impl Serialize for Section {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", self.kind)?;
        map.serialize_entry("name", &self.name)?;
        for (metric, value) in &self.values {
            map.serialize_entry(metric.summary_key, &json_value(metric, *value))?;
        }
        map.end()
    }
}

impl Summary {
    /// A model's summary at `t_ns`: `values` in the order of its `metrics`.
    pub fn new(
        model: &'static str,
        t_ns: u64,
        metrics: &[Metric],
        values: &[u64],
        threads: Vec<ThreadCpu>,
    ) -> Self {
        assert_eq!(values.len(), metrics.len(), "one value per {model} metric");
        Summary {
            t_ns,
            model,
            values: Section::new("model", model, metrics, values).values,
            threads,
            groups: Vec::new(),
            parts: Vec::new(),
        }
    }

    /// The value of `name` in `group`'s section, or in the whole run's metrics without a group.
    pub fn lookup(&self, group: Option<&str>, name: &str) -> Option<u64> {
        match group {
            None => self.get(name),
            Some(group) => self
                .groups
                .iter()
                .find(|section| section.name == group)?
                .get(name),
        }
    }

    /// The value of the metric called `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.values
            .iter()
            .find(|(metric, _)| metric.name == name)
            .map(|(_, value)| *value)
    }
}

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("t_ns", &self.t_ns)?;
        map.serialize_entry("model", self.model)?;
        for (metric, value) in &self.values {
            map.serialize_entry(metric.summary_key, &json_value(metric, *value))?;
        }
        let threads: Vec<_> = self.threads.iter().map(ThreadRecord::from).collect();
        map.serialize_entry("threads", &threads)?;
        if !self.groups.is_empty() {
            map.serialize_entry("groups", &self.groups)?;
        }
        if !self.parts.is_empty() {
            map.serialize_entry("parts", &self.parts)?;
        }
        map.end()
    }
}

/// A metric's value in JSON: a plain integer, or null for a moment that never came.
fn json_value(metric: &Metric, value: u64) -> Option<u64> {
    (metric.unit != Unit::Time || value != NEVER).then_some(value)
}

#[derive(Serialize)]
struct ThreadRecord<'a> {
    name: &'a str,
    busy_ns: u64,
    worst_second_busy_ns: u64,
    worst_second_start_ns: u64,
}

impl<'a> From<&'a ThreadCpu> for ThreadRecord<'a> {
    fn from(cpu: &'a ThreadCpu) -> Self {
        ThreadRecord {
            name: &cpu.name,
            busy_ns: cpu.busy_ns,
            worst_second_busy_ns: cpu.worst_second_busy_ns,
            worst_second_start_ns: cpu.worst_second_start_ns,
        }
    }
}
