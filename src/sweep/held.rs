//! What a scenario file holds, told in a few words: every fault in it, the machine's, each host's
//! and the network's, so that a shrunk regression file is described as it is.

use std::fmt;

use toml::{Table, Value};

/// The faults of one scenario file, by kind, each in a few words, in the file's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeldFaults {
    /// The machine's `[[fault]]` tables.
    pub machine: Vec<String>,
    /// `[[model.host.fault]]`: a host's own.
    pub host: Vec<String>,
    pub partitions: Vec<String>,
    pub spikes: Vec<String>,
}

impl HeldFaults {
    /// The faults in `text`, a scenario file; none if it is not TOML.
    pub fn of(text: &str) -> HeldFaults {
        let Ok(table) = text.parse::<Table>() else {
            return HeldFaults::default();
        };
        let model = table.get("model").and_then(Value::as_table);
        let list = |table: Option<&Table>, key: &str| -> Vec<Table> {
            let items = table
                .and_then(|table| table.get(key))
                .and_then(Value::as_array);
            items
                .into_iter()
                .flatten()
                .filter_map(|item| item.as_table().cloned())
                .collect()
        };
        let mut held = HeldFaults {
            machine: list(Some(&table), "fault").iter().map(fault).collect(),
            ..HeldFaults::default()
        };
        for host in list(model, "host") {
            let name = host.get("name").and_then(Value::as_str).unwrap_or("?");
            // A counted group's faults are every member's.
            let count = host.get("count").and_then(Value::as_integer);
            let on = match count {
                Some(count) => format!("on each of the {count} {name}-N hosts"),
                None => format!("on {name}"),
            };
            let times = count.map_or(1, |count| count.max(1) as usize);
            for one in list(Some(&host), "fault") {
                let said = format!("{} {on}", fault(&one));
                held.host.extend(std::iter::repeat_n(said, times));
            }
        }
        held.partitions = list(model, "partition").iter().map(window).collect();
        held.spikes = list(model, "spike")
            .iter()
            .map(|spike| {
                let latency = match spike.get("latency") {
                    Some(Value::Array(range)) => {
                        range.iter().map(written).collect::<Vec<_>>().join(" to ")
                    }
                    Some(value) => written(value),
                    None => "?".to_string(),
                };
                format!("{latency} {}", window(spike))
            })
            .collect();
        held
    }

    pub fn total(&self) -> usize {
        self.groups().map(|(_, faults)| faults.len()).sum()
    }

    fn groups(&self) -> impl Iterator<Item = ((&'static str, &'static str), &Vec<String>)> {
        [
            (("fault", "faults"), &self.machine),
            (("host fault", "host faults"), &self.host),
            (("partition", "partitions"), &self.partitions),
            (("latency spike", "latency spikes"), &self.spikes),
        ]
        .into_iter()
        .filter(|(_, faults)| !faults.is_empty())
    }
}

/// `3 faults: 2 host faults (a wall-step of +7s at 3ms on lock, ...), 1 partition (between
/// node-a and lock for 1m at 30s)`, or `1 fault (a wall-step of +7ms at 120ms)` when all are of
/// one kind, or `no fault`.
impl fmt::Display for HeldFaults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |n: usize, (one, many): (&str, &str)| match n {
            1 => format!("1 {one}"),
            _ => format!("{n} {many}"),
        };
        let groups: Vec<String> = self
            .groups()
            .map(|(names, faults)| {
                format!("{} ({})", count(faults.len(), names), faults.join(", "))
            })
            .collect();
        match groups.len() {
            0 => write!(f, "no fault"),
            1 => write!(f, "{}", groups[0]),
            _ => write!(
                f,
                "{}: {}",
                count(self.total(), ("fault", "faults")),
                groups.join(", ")
            ),
        }
    }
}

/// A `[[fault]]` table in a few words: `a wall-step of +7s at 3ms`.
fn fault(table: &Table) -> String {
    let get = |key: &str| table.get(key).map(written);
    let mut said = format!("a {}", get("kind").unwrap_or_else(|| "fault".to_string()));
    if let Some(by) = get("by") {
        let sign = if by.starts_with('-') { "" } else { "+" };
        said.push_str(&format!(" of {sign}{by}"));
    }
    if let Some(rate) = table.get("rate").and_then(Value::as_float) {
        said.push_str(&format!(" of {:+} ppm", (rate * 1e6).round()));
    }
    if let Some(threads) = table.get("threads").and_then(Value::as_integer) {
        let plural = if threads == 1 { "" } else { "s" };
        said.push_str(&format!(" of {threads} thread{plural}"));
    }
    if let Some(duration) = get("duration") {
        said.push_str(&format!(" for {duration}"));
    }
    if let Some(at) = get("at") {
        said.push_str(&format!(" at {at}"));
    }
    said
}

/// A partition's or spike's pair and time: `between a and b for 1m at 30s`.
fn window(table: &Table) -> String {
    let pair = match table.get("between").and_then(Value::as_array) {
        Some(pair) => pair
            .iter()
            .map(|host| match written(host).as_str() {
                "*" => "every other host".to_string(),
                name => name.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" and "),
        None => "?".to_string(),
    };
    let lasts = match table.get("duration") {
        Some(duration) => format!(" for {}", written(duration)),
        None => " for good".to_string(),
    };
    let at = table.get("at").map(written).unwrap_or_default();
    format!("between {pair}{lasts} at {at}")
}

fn written(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_of_a_hosts_file_is_counted_and_told_by_kind() {
        let text = "[model]\nkind = \"hosts\"\n\
                    [[model.host]]\nname = \"lock\"\n\
                    [[model.host.fault]]\nkind = \"wall-step\"\nat = \"3ms\"\nby = \"7s\"\n\
                    [[model.host]]\nname = \"node-a\"\n\
                    [[model.host.fault]]\nkind = \"system-suspend\"\nat = \"12s\"\nduration = \"15s\"\n\
                    [[model.partition]]\nbetween = [\"node-a\", \"lock\"]\nat = \"30s\"\nduration = \"1m\"\n\
                    [[model.spike]]\nbetween = [\"node-a\", \"*\"]\nat = \"1s\"\nduration = \"2s\"\n\
                    latency = [\"10ms\", \"20ms\"]\n";
        let held = HeldFaults::of(text);
        assert_eq!(held.total(), 4);
        assert_eq!(
            held.to_string(),
            "4 faults: 2 host faults (a wall-step of +7s at 3ms on lock, a system-suspend for 15s \
             at 12s on node-a), 1 partition (between node-a and lock for 1m at 30s), 1 latency \
             spike (10ms to 20ms between node-a and every other host for 2s at 1s)"
        );
    }

    #[test]
    fn machine_faults_alone_are_told_without_a_heading_and_none_say_so() {
        let text = "[[fault]]\nkind = \"wall-step\"\nat = \"120ms\"\nby = \"-7ms\"\n";
        assert_eq!(
            HeldFaults::of(text).to_string(),
            "1 fault (a wall-step of -7ms at 120ms)"
        );
        assert_eq!(HeldFaults::of("seed = 1").to_string(), "no fault");
    }

    #[test]
    fn a_counted_host_group_holds_its_faults_once_per_member() {
        let text = "[model]\n[[model.host]]\nname = \"node\"\ncount = 3\n\
                    [[model.host.fault]]\nkind = \"process-suspend\"\nat = \"1s\"\nduration = \"2s\"\n";
        let held = HeldFaults::of(text);
        assert_eq!(held.total(), 3);
        assert!(
            held.host[0].ends_with("on each of the 3 node-N hosts"),
            "{held}"
        );
    }
}
