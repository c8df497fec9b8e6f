//! What a sweep adds to a hosts scenario beyond one host's own faults: partitions and latency
//! spikes between two hosts, and a host's crystal running fast or slow.

use proptest::prelude::*;
use toml::{Table, Value};

use super::tweak::duration_text;
use crate::scenario::values::parse_duration_ns;

/// One generated change to a hosts scenario's network or a host's clock, in whole milliseconds.
/// Hosts are picked as [`Case::hosts`](super::Case) picks them: modulo the hosts there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterFault {
    /// `[[model.partition]]`: no message between the two hosts for a while.
    Partition {
        pair: [u16; 2],
        at_ms: u64,
        duration_ms: u64,
    },
    /// `[[model.spike]]`: messages between the two hosts take longer for a while.
    Spike {
        pair: [u16; 2],
        at_ms: u64,
        duration_ms: u64,
        latency_ms: (u64, u64),
    },
    /// A host's `drift_ppm`, in place of its own.
    Drift { host: u16, ppm: i64 },
}

/// A crystal far worse than a real one (within ±100 ppm), as a VM's clocksource can be.
const MAX_DRIFT_PPM: i64 = 500;
/// The longest latency a hosts scenario accepts.
const MAX_LATENCY_MS: u64 = 3_600_000;

pub(crate) fn cluster_fault(run_for_ms: u64) -> impl Strategy<Value = ClusterFault> {
    let at = 0..run_for_ms.max(1);
    let duration = 1..(run_for_ms / 2).max(2);
    let latency = 1..(run_for_ms / 4).clamp(2, MAX_LATENCY_MS);
    let pair = any::<[u16; 2]>();
    prop_oneof![
        (pair, at.clone(), duration.clone()).prop_map(|(pair, at_ms, duration_ms)| {
            ClusterFault::Partition {
                pair,
                at_ms,
                duration_ms,
            }
        }),
        (pair, at, duration, latency, 0u64..100).prop_map(
            |(pair, at_ms, duration_ms, low_ms, spread_percent)| ClusterFault::Spike {
                pair,
                at_ms,
                duration_ms,
                latency_ms: (
                    low_ms,
                    (low_ms + low_ms * spread_percent / 100).min(MAX_LATENCY_MS)
                ),
            }
        ),
        (any::<u16>(), -MAX_DRIFT_PPM..=MAX_DRIFT_PPM)
            .prop_map(|(host, ppm)| ClusterFault::Drift { host, ppm }),
    ]
}

/// The hosts of a hosts scenario, by name, and the network's step: what a [`ClusterFault`] needs
/// to be written and told.
pub(crate) struct Cluster<'a> {
    pub hosts: &'a [String],
    /// turmoil's `tick`, if the file sets one: a spike's latency is rounded up to it, as turmoil
    /// carries whole ticks only.
    pub tick_ms: u64,
}

impl<'a> Cluster<'a> {
    pub(crate) fn of(model: &Table, hosts: &'a [String]) -> Cluster<'a> {
        let tick_ms = model
            .get("tick")
            .and_then(Value::as_str)
            .and_then(|tick| parse_duration_ns(tick).ok())
            .map_or(1, |ns| (ns / 1_000_000).max(1) as u64);
        Cluster { hosts, tick_ms }
    }

    /// Two different hosts, or none if the scenario has fewer than two.
    fn pair(&self, pair: [u16; 2]) -> Option<(&str, &str)> {
        let count = self.hosts.len();
        if count < 2 {
            return None;
        }
        let a = usize::from(pair[0]) % count;
        let b = (a + 1 + usize::from(pair[1]) % (count - 1)) % count;
        Some((&self.hosts[a], &self.hosts[b]))
    }

    fn host(&self, host: u16) -> Option<&str> {
        let count = self.hosts.len();
        (count > 0).then(|| self.hosts[usize::from(host) % count].as_str())
    }

    fn latency_ms(&self, (low, high): (u64, u64)) -> (u64, u64) {
        let up = |ms: u64| ms.div_ceil(self.tick_ms) * self.tick_ms;
        (up(low), up(high))
    }

    /// Writes `fault` into `model`, a hosts scenario's `[model]` table whose hosts are written out
    /// one table each.
    pub(crate) fn apply(&self, model: &mut Table, fault: &ClusterFault) {
        let ms = |value: u64| Value::String(duration_text(value as i64 * 1_000_000));
        let between = |(a, b): (&str, &str)| {
            Value::Array(vec![Value::String(a.into()), Value::String(b.into())])
        };
        let (list, table) = match *fault {
            ClusterFault::Partition {
                pair,
                at_ms,
                duration_ms,
            } => {
                let Some(pair) = self.pair(pair) else { return };
                let mut table = Table::new();
                table.insert("between".into(), between(pair));
                table.insert("at".into(), ms(at_ms));
                table.insert("duration".into(), ms(duration_ms));
                ("partition", table)
            }
            ClusterFault::Spike {
                pair,
                at_ms,
                duration_ms,
                latency_ms,
            } => {
                let Some(pair) = self.pair(pair) else { return };
                let (low, high) = self.latency_ms(latency_ms);
                let mut table = Table::new();
                table.insert("between".into(), between(pair));
                table.insert("at".into(), ms(at_ms));
                table.insert("duration".into(), ms(duration_ms));
                let latency = match low == high {
                    true => ms(low),
                    false => Value::Array(vec![ms(low), ms(high)]),
                };
                table.insert("latency".into(), latency);
                ("spike", table)
            }
            ClusterFault::Drift { host, ppm } => {
                let Some(name) = self.host(host) else { return };
                let hosts = model.get_mut("host").and_then(Value::as_array_mut);
                let named = hosts.into_iter().flatten().find_map(|table| {
                    let table = table.as_table_mut()?;
                    (table.get("name")?.as_str()? == name).then_some(table)
                });
                if let Some(table) = named {
                    table.insert("drift_ppm".into(), Value::Integer(ppm));
                }
                return;
            }
        };
        if let Value::Array(items) = model
            .entry(list)
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            items.push(Value::Table(table));
        }
    }

    /// `fault` in a few words, as it is written: `a partition between lock and node-a for 1m at
    /// 30s`. A drift change is told by [`Cluster::change`] instead.
    pub(crate) fn fault(&self, fault: &ClusterFault) -> Option<String> {
        let ms = |value: u64| duration_text(value as i64 * 1_000_000);
        match *fault {
            ClusterFault::Partition {
                pair,
                at_ms,
                duration_ms,
            } => {
                let (a, b) = self.pair(pair)?;
                Some(format!(
                    "a partition between {a} and {b} for {} at {}",
                    ms(duration_ms),
                    ms(at_ms)
                ))
            }
            ClusterFault::Spike {
                pair,
                at_ms,
                duration_ms,
                latency_ms,
            } => {
                let (a, b) = self.pair(pair)?;
                let (low, high) = self.latency_ms(latency_ms);
                let latency = match low == high {
                    true => ms(low),
                    false => format!("{} to {}", ms(low), ms(high)),
                };
                Some(format!(
                    "a latency spike of {latency} between {a} and {b} for {} at {}",
                    ms(duration_ms),
                    ms(at_ms)
                ))
            }
            ClusterFault::Drift { .. } => None,
        }
    }

    /// A drift change in a few words: `node-a's crystal at -480 ppm`.
    pub(crate) fn change(&self, fault: &ClusterFault) -> Option<String> {
        match *fault {
            ClusterFault::Drift { host, ppm } => {
                Some(format!("{}'s crystal at {ppm:+} ppm", self.host(host)?))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn a_pair_is_always_two_different_hosts() {
        let hosts = names(&["lock", "node-a", "node-b"]);
        let cluster = Cluster {
            hosts: &hosts,
            tick_ms: 1,
        };
        for a in 0..6 {
            for b in 0..6 {
                let (one, other) = cluster.pair([a, b]).unwrap();
                assert_ne!(one, other);
            }
        }
        let alone = names(&["lock"]);
        let cluster = Cluster {
            hosts: &alone,
            tick_ms: 1,
        };
        assert_eq!(cluster.pair([0, 0]), None);
    }

    #[test]
    fn partitions_spikes_and_drift_are_written_as_the_scenario_schema_has_them() {
        let hosts = names(&["lock", "node-a"]);
        let mut model: Table = "kind = \"hosts\"\ntick = \"10ms\"\n\
                                [[host]]\nname = \"lock\"\n[[host]]\nname = \"node-a\""
            .parse()
            .unwrap();
        let cluster = Cluster::of(&model.clone(), &hosts);
        let faults = [
            ClusterFault::Partition {
                pair: [1, 0],
                at_ms: 26_035,
                duration_ms: 60_000,
            },
            ClusterFault::Spike {
                pair: [0, 0],
                at_ms: 1_000,
                duration_ms: 500,
                latency_ms: (95, 101),
            },
            ClusterFault::Drift { host: 3, ppm: -480 },
        ];
        for fault in &faults {
            cluster.apply(&mut model, fault);
        }
        let partition = &model["partition"][0];
        assert_eq!(partition["between"][0].as_str(), Some("node-a"));
        assert_eq!(partition["between"][1].as_str(), Some("lock"));
        assert_eq!(partition["at"].as_str(), Some("26.035s"));
        assert_eq!(partition["duration"].as_str(), Some("1m"));
        // Rounded up to turmoil's 10 ms tick.
        let latency = &model["spike"][0]["latency"];
        assert_eq!(latency[0].as_str(), Some("100ms"));
        assert_eq!(latency[1].as_str(), Some("110ms"));
        assert_eq!(model["host"][1]["drift_ppm"].as_integer(), Some(-480));
        assert_eq!(
            cluster.fault(&faults[0]).as_deref(),
            Some("a partition between node-a and lock for 1m at 26.035s")
        );
        assert_eq!(
            cluster.fault(&faults[1]).as_deref(),
            Some("a latency spike of 100ms to 110ms between lock and node-a for 500ms at 1s")
        );
        assert_eq!(
            cluster.change(&faults[2]).as_deref(),
            Some("node-a's crystal at -480 ppm")
        );
    }
}
