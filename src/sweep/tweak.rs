//! Changes to a model's numeric parameters: which one a case picks, its new value written as a
//! person would write it, and a line that says what changed.

use ticklab_sim::Compact;
use toml::{Table, Value};

use crate::scenario::values::parse_duration_ns;

/// A change to one of the model's numeric parameters: a whole number or a duration of the
/// `[model]` table, picked by `pick` among those there are, scaled by `percent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tweak {
    pub pick: u16,
    pub percent: u16,
}

/// A duration as scenario files write it (`26.035s`, `1h`, `250ms`): it reads back as the same
/// nanoseconds.
pub(crate) fn duration_text(ns: i64) -> String {
    Compact(ns).to_string()
}

/// A number or duration the case may scale, and where it sits in the `[model]` table.
struct Tunable<'a> {
    value: &'a mut Value,
    /// Its key path under `[model]`, such as `lease.length` or `task[0].steps[1].cpu`.
    path: String,
    /// Its key in the table that holds it (`at`, `duration`, `latency[1]`).
    key: String,
    /// The network window or link it belongs to, as a person names it: `the partition between
    /// node-a and lock`.
    owner: Option<String>,
}

/// Scales the picked parameter of `model`: any whole number or duration in it, nested ones
/// included, so an executor's step durations (`cpu`, `block_in_place`, `spawn_blocking`, the
/// blocking steps) vary as well as its top-level keys. `kind` is left alone. Says what changed,
/// or nothing if the model has nothing to scale.
///
/// On a hosts scenario carried by turmoil, `tick` is left alone and a latency is drawn no
/// shorter than a tick: turmoil moves messages a whole tick at a time and refuses a latency below
/// it, so a case with one would only be rejected.
pub(crate) fn apply_tweak(model: &mut Table, tweak: Tweak) -> Option<String> {
    let turmoil_tick_ns = turmoil_tick_ns(model);
    let mut tunable = Vec::new();
    for (key, value) in model.iter_mut() {
        let carrier_step = turmoil_tick_ns.is_some() && key == "tick";
        if key != "kind" && !carrier_step {
            collect(value, key.clone(), key.clone(), None, &mut tunable);
        }
    }
    if tunable.is_empty() {
        return None;
    }
    let count = tunable.len();
    let picked = tunable.swap_remove(usize::from(tweak.pick) % count);
    let least_ns = match turmoil_tick_ns {
        Some(tick_ns) if picked.key == "latency" => tick_ns,
        _ => 1,
    };
    let scale = |n: i64| (n.saturating_mul(i64::from(tweak.percent)) / 100).max(least_ns);
    let duration = |text: &str| parse_duration_ns(text).expect("checked when listed");
    let (before, after, new_value) = match &*picked.value {
        Value::Integer(n) => (
            n.to_string(),
            scale(*n).to_string(),
            Value::Integer(scale(*n)),
        ),
        Value::String(text) => {
            let written = duration_text(scale(duration(text)));
            (
                duration_text(duration(text)),
                written.clone(),
                Value::String(written),
            )
        }
        Value::Array(range) => {
            // Both ends, so that the range stays a range; an end at zero stays there.
            let ends: Vec<i64> = range
                .iter()
                .map(|end| duration(end.as_str().expect("checked when listed")))
                .collect();
            let scaled: Vec<String> = ends
                .iter()
                .map(|&ns| duration_text(if ns == 0 { 0 } else { scale(ns) }))
                .collect();
            let shown = |ends: &[String]| format!("[{}]", ends.join(", "));
            let before: Vec<String> = ends.iter().map(|&ns| duration_text(ns)).collect();
            let new_value = Value::Array(scaled.iter().cloned().map(Value::String).collect());
            (shown(&before), shown(&scaled), new_value)
        }
        _ => unreachable!("only numbers, durations and ranges are listed"),
    };
    *picked.value = new_value;
    Some(match picked.owner {
        Some(owner) if picked.key == "at" => format!("{owner} moved from {before} to {after}"),
        Some(owner) if picked.key == "duration" => {
            format!("{owner} lasts {after} instead of {before}")
        }
        Some(owner) => format!("`{}` of {owner} from {before} to {after}", picked.key),
        None => format!("`{}` from {before} to {after}", picked.path),
    })
}

/// turmoil's tick, for a hosts scenario that turmoil carries: any without `network = "events"`.
fn turmoil_tick_ns(model: &Table) -> Option<i64> {
    let hosts = model.get("kind").and_then(Value::as_str) == Some("hosts");
    let events = model.get("network").and_then(Value::as_str) == Some("events");
    if !hosts || events {
        return None;
    }
    let tick = model.get("tick").and_then(Value::as_str).unwrap_or("1ms");
    Some(parse_duration_ns(tick).unwrap_or(1_000_000).max(1))
}

/// The positive whole numbers, durations and duration ranges in `value`, in the file's order.
fn collect<'a>(
    value: &'a mut Value,
    path: String,
    key: String,
    owner: Option<String>,
    tunable: &mut Vec<Tunable<'a>>,
) {
    match value {
        Value::Integer(n) if *n >= 1 => tunable.push(Tunable {
            value,
            path,
            key,
            owner,
        }),
        Value::String(text) if parse_duration_ns(text).is_ok_and(|ns| ns > 0) => {
            tunable.push(Tunable {
                value,
                path,
                key,
                owner,
            })
        }
        Value::Array(items) if is_range(items) => tunable.push(Tunable {
            value,
            path,
            key,
            owner,
        }),
        Value::Array(items) => {
            // An array of tables is a list of things (`[[model.partition]]`), each named by what
            // it is; the items of any other array belong to what holds the array.
            let of_tables = items.iter().all(Value::is_table);
            for (index, item) in items.iter_mut().enumerate() {
                let (path, key) = (format!("{path}[{index}]"), format!("{key}[{index}]"));
                let owner = match of_tables {
                    true => item.as_table().and_then(|table| owner_of(table, &key)),
                    false => owner.clone(),
                };
                collect(item, path, key, owner, tunable);
            }
        }
        Value::Table(table) => {
            for (name, item) in table.iter_mut() {
                let path = format!("{path}.{name}");
                collect(item, path, name.clone(), owner.clone(), tunable);
            }
        }
        _ => {}
    }
}

/// Two durations, the shortest and the longest: a latency range, scaled as one.
fn is_range(items: &[Value]) -> bool {
    items.len() == 2
        && items.iter().all(|item| {
            item.as_str()
                .is_some_and(|text| parse_duration_ns(text).is_ok_and(|ns| ns >= 0))
        })
        && items.iter().any(|item| {
            item.as_str()
                .is_some_and(|text| parse_duration_ns(text).is_ok_and(|ns| ns > 0))
        })
}

/// `the partition between a and b` for a `[[model.partition]]` (spike, link) table, from the key
/// it is listed under (`partition[0]`) and its `between`.
fn owner_of(table: &Table, listed_as: &str) -> Option<String> {
    let [a, b] = table.get("between")?.as_array()?.as_slice() else {
        return None;
    };
    let (a, b) = (a.as_str()?, b.as_str()?);
    let thing = match listed_as.split('[').next()? {
        "partition" => "partition",
        "spike" => "latency spike",
        "link" => "link",
        other => other,
    };
    let between = match b {
        "*" => format!("{a} and every other host"),
        _ => format!("{a} and {b}"),
    };
    Some(format!("the {thing} between {between}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tweaked(model: &str, pick: u16, percent: u16) -> (Table, Option<String>) {
        let mut model: Table = model.parse().unwrap();
        let said = apply_tweak(&mut model, Tweak { pick, percent });
        (model, said)
    }

    #[test]
    fn a_turmoil_latency_is_never_drawn_below_its_tick_and_the_tick_is_left_alone() {
        let model = "kind = \"hosts\"\ntick = \"2ms\"\nlatency = [\"2ms\", \"8ms\"]";
        // `latency` is the only tunable: `tick` is turmoil's step, not a parameter.
        let (scaled, said) = tweaked(model, 0, 10);
        assert_eq!(
            scaled["latency"].as_array().unwrap(),
            &vec![Value::from("2ms"), Value::from("2ms")]
        );
        assert_eq!(
            said.as_deref(),
            Some("`latency` from [2ms, 8ms] to [2ms, 2ms]")
        );
        for pick in 0..4 {
            let (scaled, _) = tweaked(model, pick, 10);
            assert_eq!(scaled["tick"].as_str(), Some("2ms"));
        }
        // On the events network any latency goes, and so does the default tick of turmoil.
        let events = format!("{model}\nnetwork = \"events\"");
        let (scaled, _) = tweaked(&events, 1, 10);
        assert_eq!(
            scaled["latency"].as_array().unwrap()[0].as_str(),
            Some("200us")
        );
        let default_tick = "kind = \"hosts\"\nlatency = \"3ms\"";
        let (scaled, _) = tweaked(default_tick, 0, 10);
        assert_eq!(scaled["latency"].as_str(), Some("1ms"));
    }

    #[test]
    fn a_duration_parameter_scales_to_a_duration_as_people_write_it_and_never_reaches_zero() {
        let (model, said) = tweaked("kind = \"interval\"\nperiod = \"1s\"", 0, 25);
        assert_eq!(model["period"].as_str(), Some("250ms"));
        assert_eq!(said.as_deref(), Some("`period` from 1s to 250ms"));
        let (tiny, _) = tweaked("kind = \"interval\"\ncount = 1", 0, 25);
        assert_eq!(tiny["count"].as_integer(), Some(1));
    }

    #[test]
    fn an_executor_step_nested_in_its_tasks_can_be_scaled() {
        let model = concat!(
            "kind = \"executor\"\n[[task]]\nname = \"blocker\"\ncount = 1\n",
            "steps = [{ cpu = \"1ms\" }, { block_in_place = \"10s\" }]",
        );
        // Tunable in file order: count, then the two step durations.
        let (model, said) = tweaked(model, 2, 50);
        let steps = &model["task"][0]["steps"];
        assert_eq!(steps[1]["block_in_place"].as_str(), Some("5s"));
        assert_eq!(steps[0]["cpu"].as_str(), Some("1ms"));
        assert_eq!(
            said.as_deref(),
            Some("`task[0].steps[1].block_in_place` from 10s to 5s")
        );
    }

    #[test]
    fn a_latency_range_scales_at_both_ends_so_it_stays_a_range() {
        let (model, said) = tweaked("kind = \"hosts\"\nlatency = [\"0ms\", \"8ms\"]", 0, 350);
        assert_eq!(model["latency"][0].as_str(), Some("0s"));
        assert_eq!(model["latency"][1].as_str(), Some("28ms"));
        assert_eq!(
            said.as_deref(),
            Some("`latency` from [0s, 8ms] to [0s, 28ms]")
        );
    }

    #[test]
    fn a_moved_partition_is_written_in_seconds_and_said_to_have_moved() {
        let model = "kind = \"hosts\"\n\
                     [[partition]]\nbetween = [\"a\", \"b\"]\nat = \"30s\"\nduration = \"1m\"";
        // Tunable: `at`, then `duration`.
        let (moved, said) = tweaked(model, 0, 87);
        assert_eq!(moved["partition"][0]["at"].as_str(), Some("26.1s"));
        assert_eq!(
            said.as_deref(),
            Some("the partition between a and b moved from 30s to 26.1s")
        );
        let (longer, said) = tweaked(model, 1, 150);
        assert_eq!(longer["partition"][0]["duration"].as_str(), Some("90s"));
        assert_eq!(
            said.as_deref(),
            Some("the partition between a and b lasts 90s instead of 1m")
        );
    }

    #[test]
    fn a_spike_latency_and_a_lease_parameter_are_named_by_what_they_belong_to() {
        let model = "kind = \"hosts\"\nlatency = \"2ms\"\n\
                     [[spike]]\nbetween = [\"a\", \"*\"]\nat = \"1s\"\nduration = \"1s\"\n\
                     latency = [\"10ms\", \"20ms\"]\n\
                     [lease]\nlength = \"10s\"";
        // Tunable: latency, spike at, duration, latency range, lease length.
        let (spiked, said) = tweaked(model, 3, 200);
        assert_eq!(
            said.as_deref(),
            Some(
                "`latency` of the latency spike between a and every other host from [10ms, 20ms] \
                 to [20ms, 40ms]"
            )
        );
        assert_eq!(spiked["spike"][0]["latency"][0].as_str(), Some("20ms"));
        let (_, said) = tweaked(model, 4, 25);
        assert_eq!(said.as_deref(), Some("`lease.length` from 10s to 2.5s"));
    }

    proptest! {
        #[test]
        fn a_written_duration_reads_back_as_the_same_nanoseconds(
            ns in prop_oneof![
                -3_155_760_000_000_000_000i64..3_155_760_000_000_000_000,
                (0i64..1_000_000).prop_map(|ms| ms * 1_000_000),
                (0i64..100_000).prop_map(|s| s * 1_000_000_000),
                (0i64..10_000).prop_map(|m| m * 60_000_000_000),
            ]
        ) {
            let text = duration_text(ns);
            prop_assert_eq!(parse_duration_ns(&text), Ok(ns), "{}", text);
        }
    }
}
