//! Outside CPU load as a sweep draws it: `cpu-load` faults, in whole milliseconds, on a machine
//! (or a host) that has `cores`, where load takes CPU from the model's threads.

use proptest::prelude::*;
use toml::{Table, Value};

use super::tweak::duration_text;

/// Most threads a drawn load starts: enough to take most of an eight-core machine.
const MAX_THREADS: u32 = 8;

/// One generated `cpu-load` fault, and the pick of the host it goes to in a hosts scenario
/// (among the hosts with `cores`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadSpec {
    pub at_ms: u64,
    pub duration_ms: u64,
    pub threads: u32,
    pub host: u16,
}

pub(crate) fn load(run_for_ms: u64) -> impl Strategy<Value = LoadSpec> {
    let at = 0..run_for_ms.max(1);
    let duration = 1..(run_for_ms / 2).max(2);
    (at, duration, 1..=MAX_THREADS, any::<u16>()).prop_map(|(at_ms, duration_ms, threads, host)| {
        LoadSpec {
            at_ms,
            duration_ms,
            threads,
            host,
        }
    })
}

impl LoadSpec {
    /// The `[[fault]]` table a scenario file would hold.
    pub fn to_table(&self) -> Table {
        let mut table = Table::new();
        table.insert("kind".into(), Value::String("cpu-load".into()));
        table.insert("at".into(), ms(self.at_ms));
        table.insert("duration".into(), ms(self.duration_ms));
        table.insert("threads".into(), Value::Integer(i64::from(self.threads)));
        table
    }
}

fn ms(value: u64) -> Value {
    Value::String(duration_text((value as i64).saturating_mul(1_000_000)))
}

impl std::fmt::Display for LoadSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = if self.threads == 1 { "" } else { "s" };
        write!(
            f,
            "a cpu-load of {} thread{plural} for {} at {}",
            self.threads,
            duration_text(self.duration_ms as i64 * 1_000_000),
            duration_text(self.at_ms as i64 * 1_000_000)
        )
    }
}

/// Which of a scenario's hosts (as [`super::faults::host_tables`] wrote them out) have `cores`,
/// their own or the cluster's `[machine]`'s; for a scenario without hosts, whether its
/// `[machine]` has them, as the one machine there is.
pub(crate) fn with_cores(table: &Table, hosts: usize) -> Vec<usize> {
    let has_cores = |machine: Option<&Value>| {
        machine
            .and_then(Value::as_table)
            .is_some_and(|machine| machine.contains_key("cores"))
    };
    let cluster = has_cores(table.get("machine"));
    if hosts == 0 {
        return if cluster { vec![0] } else { Vec::new() };
    }
    let Some(Value::Array(tables)) = table
        .get("model")
        .and_then(Value::as_table)
        .and_then(|model| model.get("host"))
    else {
        return Vec::new();
    };
    tables
        .iter()
        .enumerate()
        .filter(|(_, host)| {
            let own = host.as_table().and_then(|host| host.get("machine"));
            has_cores(own) || cluster
        })
        .map(|(index, _)| index)
        .collect()
}
