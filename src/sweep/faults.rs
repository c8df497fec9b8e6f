//! Random fault schedules around a base scenario, as proptest strategies, and their TOML.

use proptest::prelude::*;
use toml::{Table, Value};

/// One generated fault, in whole milliseconds so that files stay readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultSpec {
    Suspend {
        system: bool,
        at_ms: u64,
        duration_ms: u64,
    },
    Step {
        at_ms: u64,
        by_ms: i64,
    },
    Slew {
        at_ms: u64,
        duration_ms: u64,
        rate_ppm: i64,
    },
}

/// One case: the scenario's seed, changes to its model's parameters, and the faults added to
/// its own. In a hosts scenario, fault `i` goes to host `hosts[i]` (modulo the hosts there are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    pub tweaks: Vec<Tweak>,
    pub faults: Vec<FaultSpec>,
    pub hosts: Vec<u16>,
}

/// Most faults a case adds, and so the host picks it draws.
const MAX_FAULTS: usize = 6;

/// A change to one of the model's numeric parameters: a whole number or a duration of the
/// `[model]` table, picked by `pick` among those there are, scaled by `percent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tweak {
    pub pick: u16,
    pub percent: u16,
}

const HOUR_MS: i64 = 3_600_000;

fn fault(run_for_ms: u64) -> impl Strategy<Value = FaultSpec> {
    let at = 0..run_for_ms.max(1);
    let duration = 1..(run_for_ms / 2).max(2);
    prop_oneof![
        (any::<bool>(), at.clone(), duration.clone()).prop_map(|(system, at_ms, duration_ms)| {
            FaultSpec::Suspend {
                system,
                at_ms,
                duration_ms,
            }
        }),
        (at.clone(), -HOUR_MS..HOUR_MS)
            .prop_filter("a step moves the clock", |(_, by_ms)| *by_ms != 0)
            .prop_map(|(at_ms, by_ms)| FaultSpec::Step { at_ms, by_ms }),
        (at, duration, -500i64..500)
            .prop_filter("a slew changes the rate", |(_, _, rate)| *rate != 0)
            .prop_map(|(at_ms, duration_ms, rate_ppm)| FaultSpec::Slew {
                at_ms,
                duration_ms,
                rate_ppm,
            }),
    ]
}

/// Cases for a scenario that runs for `run_for_ms`: up to two parameter changes and up to six
/// faults that may overlap.
pub fn cases(run_for_ms: u64) -> impl Strategy<Value = Case> {
    let tweak = (any::<u16>(), 25u16..400).prop_map(|(pick, percent)| Tweak { pick, percent });
    // The host picks come last, so that the draws before them are those of a scenario without
    // hosts: older seeds keep finding the same cases.
    (
        0u64..1_000,
        prop::collection::vec(tweak, 0..3),
        prop::collection::vec(fault(run_for_ms), 0..MAX_FAULTS),
        prop::collection::vec(any::<u16>(), MAX_FAULTS),
    )
        .prop_map(|(seed, tweaks, faults, hosts)| Case {
            seed,
            tweaks,
            faults,
            hosts,
        })
}

/// Scales the picked parameter of `model`: any whole number or duration in it, nested ones
/// included, so an executor's step durations (`cpu`, `block_in_place`, `spawn_blocking`, the
/// blocking steps) vary as well as its top-level keys. `kind` is left alone.
fn apply_tweak(model: &mut Table, tweak: Tweak) {
    let mut tunable = Vec::new();
    for (key, value) in model.iter_mut() {
        if key != "kind" {
            collect_tunable(value, &mut tunable);
        }
    }
    if tunable.is_empty() {
        return;
    }
    let count = tunable.len();
    let value = tunable.swap_remove(usize::from(tweak.pick) % count);
    let scale = |n: i64| (n.saturating_mul(i64::from(tweak.percent)) / 100).max(1);
    *value = match &*value {
        Value::Integer(n) => Value::Integer(scale(*n)),
        Value::String(text) => {
            let ns = crate::scenario::values::parse_duration_ns(text).expect("checked when listed");
            Value::String(format!("{}ns", scale(ns)))
        }
        other => other.clone(),
    };
}

/// The positive whole numbers and durations in `value`, in the file's order.
fn collect_tunable<'a>(value: &'a mut Value, tunable: &mut Vec<&'a mut Value>) {
    match value {
        Value::Integer(n) if *n >= 1 => tunable.push(value),
        Value::String(text)
            if crate::scenario::values::parse_duration_ns(text).is_ok_and(|ns| ns > 0) =>
        {
            tunable.push(value)
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| collect_tunable(item, tunable)),
        Value::Table(table) => table
            .iter_mut()
            .for_each(|(_, item)| collect_tunable(item, tunable)),
        _ => {}
    }
}

impl FaultSpec {
    /// The `[[fault]]` table a scenario file would hold.
    pub fn to_table(&self) -> Table {
        let ms = |value: u64| Value::String(format!("{value}ms"));
        let mut table = Table::new();
        match *self {
            FaultSpec::Suspend {
                system,
                at_ms,
                duration_ms,
            } => {
                let kind = if system {
                    "system-suspend"
                } else {
                    "process-suspend"
                };
                table.insert("kind".into(), Value::String(kind.into()));
                table.insert("at".into(), ms(at_ms));
                table.insert("duration".into(), ms(duration_ms));
            }
            FaultSpec::Step { at_ms, by_ms } => {
                table.insert("kind".into(), Value::String("wall-step".into()));
                table.insert("at".into(), ms(at_ms));
                table.insert("by".into(), Value::String(format!("{by_ms}ms")));
            }
            FaultSpec::Slew {
                at_ms,
                duration_ms,
                rate_ppm,
            } => {
                table.insert("kind".into(), Value::String("wall-slew".into()));
                table.insert("at".into(), ms(at_ms));
                table.insert("duration".into(), ms(duration_ms));
                table.insert("rate".into(), Value::Float(rate_ppm as f64 / 1e6));
            }
        }
        table
    }
}

/// The base scenario's text with `case` applied: its seed, its faults after the base's own (in a
/// hosts scenario, each under the host it picks), and `[expect]` reduced to
/// `invariants = true`. Errors if the base is not a TOML table.
pub fn apply(base: &str, case: &Case) -> Result<String, toml::de::Error> {
    let mut table: Table = base.parse()?;
    table.insert("seed".into(), Value::Integer(case.seed as i64));
    if let Some(Value::Table(model)) = table.get_mut("model") {
        for &tweak in &case.tweaks {
            apply_tweak(model, tweak);
        }
    }
    let hosts = host_tables(&mut table);
    if hosts.is_empty() {
        let faults = table
            .entry("fault")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(faults) = faults {
            faults.extend(
                case.faults
                    .iter()
                    .map(|fault| Value::Table(fault.to_table())),
            );
        }
    } else {
        for (index, fault) in case.faults.iter().enumerate() {
            let host = pick_host(case, index, hosts.len());
            place_on_host(&mut table, host, fault.to_table());
        }
    }
    // Only the invariants are checked: the base's own bounds were written for its own faults.
    let mut expect = Table::new();
    expect.insert("invariants".into(), Value::Boolean(true));
    table.insert("expect".into(), Value::Table(expect));
    Ok(toml::to_string(&table).expect("a TOML table serialises"))
}

fn pick_host(case: &Case, fault: usize, hosts: usize) -> usize {
    usize::from(case.hosts.get(fault).copied().unwrap_or(0)) % hosts
}

/// The names of a hosts scenario's hosts, one per host: a `[[model.host]]` with a `count` is
/// written out as that many tables first, so that a fault can go to one of them alone. Empty for
/// any other scenario.
fn host_tables(table: &mut Table) -> Vec<String> {
    let Some(Value::Table(model)) = table.get_mut("model") else {
        return Vec::new();
    };
    let Some(Value::Array(hosts)) = model.get_mut("host") else {
        return Vec::new();
    };
    let mut written = Vec::new();
    for host in hosts.drain(..) {
        let Value::Table(mut host) = host else {
            written.push(host);
            continue;
        };
        match host.remove("count").and_then(|count| count.as_integer()) {
            Some(count) => {
                let name = host
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("host")
                    .to_string();
                for index in 1..=count.max(1) {
                    let mut one = host.clone();
                    one.insert("name".into(), Value::String(format!("{name}-{index}")));
                    written.push(Value::Table(one));
                }
            }
            None => written.push(Value::Table(host)),
        }
    }
    *hosts = written;
    hosts
        .iter()
        .map(|host| {
            host.get("name")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string()
        })
        .collect()
}

fn place_on_host(table: &mut Table, host: usize, fault: Table) {
    let Some(Value::Array(hosts)) = table
        .get_mut("model")
        .and_then(|model| model.as_table_mut())
        .and_then(|model| model.get_mut("host"))
    else {
        return;
    };
    if let Some(Value::Table(host)) = hosts.get_mut(host)
        && let Value::Array(faults) = host
            .entry("fault")
            .or_insert_with(|| Value::Array(Vec::new()))
    {
        faults.push(Value::Table(fault));
    }
}

impl std::fmt::Display for FaultSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            FaultSpec::Suspend {
                system,
                at_ms,
                duration_ms,
            } => {
                let kind = if system { "system" } else { "process" };
                write!(f, "a {kind}-suspend of {duration_ms}ms at {at_ms}ms")
            }
            FaultSpec::Step { at_ms, by_ms } => {
                write!(f, "a wall-step of {by_ms:+}ms at {at_ms}ms")
            }
            FaultSpec::Slew {
                at_ms,
                duration_ms,
                rate_ppm,
            } => write!(
                f,
                "a wall-slew of {rate_ppm:+} ppm for {duration_ms}ms at {at_ms}ms"
            ),
        }
    }
}

/// One line for a regression file's `about`: what broke, and the faults that broke it (on which
/// host, in a hosts scenario: `base` is the scenario the case was applied to).
pub fn regression_about(source: &str, base: &str, reason: &str, case: &Case) -> String {
    let hosts = base
        .parse::<Table>()
        .map(|mut table| host_tables(&mut table))
        .unwrap_or_default();
    let faults: Vec<String> = case
        .faults
        .iter()
        .enumerate()
        .map(|(index, fault)| match hosts.is_empty() {
            true => fault.to_string(),
            false => format!("{fault} on {}", hosts[pick_host(case, index, hosts.len())]),
        })
        .collect();
    let after = match faults.len() {
        0 => "with no added fault".to_string(),
        _ => format!("after {}", faults.join(", ")),
    };
    let changes = match case.tweaks.len() {
        0 => String::new(),
        n => format!(" and {n} parameter change(s)"),
    };
    let base = std::path::Path::new(source).file_name().map_or_else(
        || source.to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    format!("Found by sweeping {base}: {reason}, {after}{changes}")
}

/// The base scenario with `case` applied, as a file to commit: [`apply`], with an `about` that
/// says what broke instead of the base's own.
pub fn regression(base: &str, case: &Case, about: &str) -> Result<String, toml::de::Error> {
    let mut table: Table = apply(base, case)?.parse()?;
    table.insert("about".into(), Value::String(about.to_string()));
    Ok(toml::to_string(&table).expect("a TOML table serialises"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "about = \"x\"\nplatform = \"linux\"\nrun_for = \"10s\"\n\
                        [model]\nkind = \"interval\"\nmissed_tick = \"fixed\"\nperiod = \"1s\"\ncount = 4\n\
                        [expect]\nticks = 40\n";

    #[test]
    fn a_case_sets_the_seed_scales_a_parameter_adds_faults_and_keeps_only_the_invariants() {
        let case = Case {
            seed: 7,
            // Two tunable keys, `period` and `count`: pick 1 is `count`, doubled.
            tweaks: vec![Tweak {
                pick: 1,
                percent: 200,
            }],
            faults: vec![FaultSpec::Step {
                at_ms: 1_500,
                by_ms: -2_000,
            }],
            hosts: Vec::new(),
        };
        let text = apply(BASE, &case).unwrap();
        let table: Table = text.parse().unwrap();
        assert_eq!(table["seed"].as_integer(), Some(7));
        assert_eq!(table["model"]["count"].as_integer(), Some(8));
        assert_eq!(table["model"]["period"].as_str(), Some("1s"));
        assert_eq!(table["fault"][0]["by"].as_str(), Some("-2000ms"));
        assert_eq!(table["expect"].as_table().unwrap().len(), 1);
        assert_eq!(table["expect"]["invariants"].as_bool(), Some(true));
    }

    #[test]
    fn a_hosts_fault_goes_under_the_host_it_picks_and_a_counted_group_is_written_out_first() {
        let base = "about = \"x\"\nplatform = \"linux\"\nrun_for = \"10s\"\n\
                    [model]\nkind = \"hosts\"\n\
                    [[model.host]]\nname = \"lock\"\n\
                    [[model.host]]\nname = \"node\"\ncount = 3\n";
        let case = Case {
            seed: 1,
            tweaks: Vec::new(),
            faults: vec![FaultSpec::Step {
                at_ms: 100,
                by_ms: 5,
            }],
            // 6 modulo 4 hosts: the third, node-2.
            hosts: vec![6],
        };
        let table: Table = apply(base, &case).unwrap().parse().unwrap();
        assert!(table.get("fault").is_none(), "no top-level faults");
        let hosts = table["model"]["host"].as_array().unwrap();
        let names: Vec<&str> = hosts
            .iter()
            .map(|host| host["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["lock", "node-1", "node-2", "node-3"]);
        assert!(hosts.iter().all(|host| host.get("count").is_none()));
        let faulty: Vec<&str> = hosts
            .iter()
            .filter(|host| host.get("fault").is_some())
            .map(|host| host["name"].as_str().unwrap())
            .collect();
        assert_eq!(faulty, ["node-2"]);
        assert_eq!(hosts[2]["fault"][0]["by"].as_str(), Some("5ms"));
        let about = regression_about("base.toml", base, "two leaders", &case);
        assert!(
            about.ends_with("after a wall-step of +5ms at 100ms on node-2"),
            "{about}"
        );
    }

    #[test]
    fn a_duration_parameter_scales_in_nanoseconds_and_never_reaches_zero() {
        let mut model: Table = "kind = \"interval\"\nperiod = \"1s\"".parse().unwrap();
        apply_tweak(
            &mut model,
            Tweak {
                pick: 0,
                percent: 25,
            },
        );
        assert_eq!(model["period"].as_str(), Some("250000000ns"));
        let mut tiny: Table = "kind = \"interval\"\ncount = 1".parse().unwrap();
        apply_tweak(
            &mut tiny,
            Tweak {
                pick: 0,
                percent: 25,
            },
        );
        assert_eq!(tiny["count"].as_integer(), Some(1));
    }

    #[test]
    fn an_executor_step_nested_in_its_tasks_can_be_scaled() {
        let mut model: Table = "kind = \"executor\"\n\
                                [[task]]\nname = \"blocker\"\ncount = 1\n\
                                steps = [{ cpu = \"1ms\" }, { block_in_place = \"10s\" }]"
            .parse()
            .unwrap();
        // Tunable in file order: count, then the two step durations.
        apply_tweak(
            &mut model,
            Tweak {
                pick: 2,
                percent: 50,
            },
        );
        let steps = &model["task"][0]["steps"];
        assert_eq!(steps[1]["block_in_place"].as_str(), Some("5000000000ns"));
        assert_eq!(steps[0]["cpu"].as_str(), Some("1ms"));
    }
}
