//! Random fault schedules around a base scenario, as proptest strategies, and their TOML.

use proptest::prelude::*;
use toml::{Table, Value};

pub use super::clock_fault::FaultSpec;
use super::clock_fault::fault;
use super::cluster::{self, Cluster, ClusterFault};
pub use super::load_fault::LoadSpec;
use super::load_fault::{load, with_cores};
use super::tweak::{Tweak, apply_tweak};

/// One case: the scenario's seed, changes to its model's parameters, and the faults added to
/// its own. In a hosts scenario, fault `i` goes to host `hosts[i]` (modulo the hosts there are),
/// and `cluster` adds partitions, latency spikes and drift; elsewhere `cluster` is empty. `loads`
/// adds outside CPU load where the base has `cores`, each on a host with them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    pub tweaks: Vec<Tweak>,
    pub faults: Vec<FaultSpec>,
    pub hosts: Vec<u16>,
    pub cluster: Vec<ClusterFault>,
    pub loads: Vec<LoadSpec>,
}

/// Most faults a case adds, and so the host picks it draws.
const MAX_FAULTS: usize = 6;
/// Most partitions, spikes and drift changes a case adds to a hosts scenario.
const MAX_CLUSTER_FAULTS: usize = 4;
/// Most `cpu-load` faults a case adds where the base has cores.
const MAX_LOADS: usize = 2;

/// Cases for a scenario that runs for `run_for_ms`: up to two parameter changes and up to six
/// faults that may overlap.
pub fn cases(run_for_ms: u64) -> impl Strategy<Value = Case> {
    cases_for(run_for_ms, false, false)
}

/// [`cases`], and for a hosts scenario (`hosts`) up to four partitions, latency spikes and drift
/// changes besides, and where the base has cores (`loads`, see [`takes_load`]) up to two spells
/// of outside CPU load.
pub fn cases_for(run_for_ms: u64, hosts: bool, loads: bool) -> impl Strategy<Value = Case> {
    let tweak = (any::<u16>(), 25u16..400).prop_map(|(pick, percent)| Tweak { pick, percent });
    // The host picks and the cluster's faults come last, so that the draws before them are those
    // of a scenario without hosts: older seeds keep finding the same cases.
    let cluster_count = if hosts {
        0..MAX_CLUSTER_FAULTS + 1
    } else {
        0..1
    };
    (
        0u64..1_000,
        prop::collection::vec(tweak, 0..3),
        prop::collection::vec(fault(run_for_ms), 0..MAX_FAULTS),
        prop::collection::vec(any::<u16>(), MAX_FAULTS),
        prop::collection::vec(cluster::cluster_fault(run_for_ms), cluster_count),
        // Last again, so that bases without cores draw the cases they always drew.
        prop::collection::vec(load(run_for_ms), 0..if loads { MAX_LOADS + 1 } else { 1 }),
    )
        .prop_map(|(seed, tweaks, faults, hosts, cluster, loads)| Case {
            seed,
            tweaks,
            faults,
            hosts,
            cluster,
            loads,
        })
}

/// Whether outside load can be put on `base`: its `[machine]`, or one of its hosts', has
/// `cores`. Without them every thread has a core of its own and load would change nothing.
pub fn takes_load(base: &str) -> bool {
    let Ok(mut table) = base.parse::<Table>() else {
        return false;
    };
    let hosts = host_tables(&mut table);
    !with_cores(&table, hosts.len()).is_empty()
}

/// The base scenario's text with `case` applied: its seed, its faults after the base's own (in a
/// hosts scenario, each under the host it picks, then its partitions, spikes and drift), and
/// `[expect]` reduced to `invariants = true`. Errors if the base is not a TOML table.
pub fn apply(base: &str, case: &Case) -> Result<String, toml::de::Error> {
    let (table, _) = applied(base, case)?;
    Ok(toml::to_string(&table).expect("a TOML table serialises"))
}

/// [`apply`] as a table, and what the case changed in the base's parameters and hosts' clocks,
/// one line each.
fn applied(base: &str, case: &Case) -> Result<(Table, Vec<String>), toml::de::Error> {
    let mut table: Table = base.parse()?;
    table.insert("seed".into(), Value::Integer(case.seed as i64));
    let mut changes = Vec::new();
    if let Some(Value::Table(model)) = table.get_mut("model") {
        for &tweak in &case.tweaks {
            changes.extend(apply_tweak(model, tweak));
        }
    }
    let hosts = host_tables(&mut table);
    let cored = with_cores(&table, hosts.len());
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
            if !cored.is_empty() {
                faults.extend(case.loads.iter().map(|load| Value::Table(load.to_table())));
            }
        }
    } else {
        for (index, fault) in case.faults.iter().enumerate() {
            let host = pick_host(case, index, hosts.len());
            place_on_host(&mut table, host, fault.to_table());
        }
        if !cored.is_empty() {
            for load in &case.loads {
                let host = cored[usize::from(load.host) % cored.len()];
                place_on_host(&mut table, host, load.to_table());
            }
        }
        if let Some(Value::Table(model)) = table.get_mut("model") {
            let cluster = Cluster::of(model, &hosts);
            for fault in &case.cluster {
                cluster.apply(model, fault);
            }
            changes.extend(
                case.cluster
                    .iter()
                    .filter_map(|fault| cluster.change(fault)),
            );
        }
    }
    // Only the invariants are checked: the base's own bounds were written for its own faults.
    let mut expect = Table::new();
    expect.insert("invariants".into(), Value::Boolean(true));
    table.insert("expect".into(), Value::Table(expect));
    Ok((table, changes))
}

fn pick_host(case: &Case, fault: usize, hosts: usize) -> usize {
    usize::from(case.hosts.get(fault).copied().unwrap_or(0)) % hosts
}

/// The names of a hosts scenario's hosts, one per host: a `[[model.host]]` with a `count` is
/// written out as that many tables first, so that a fault can go to one of them alone. Empty for
/// any other scenario.
pub(crate) fn host_tables(table: &mut Table) -> Vec<String> {
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

/// The faults `case` adds, each in a few words (on which host, in a hosts scenario, and between
/// which two for a partition or a spike), and what it changes in the base's parameters and hosts'
/// clocks. `base` is the scenario the case is applied to.
pub fn case_parts(base: &str, case: &Case) -> (Vec<String>, Vec<String>) {
    let Ok((mut applied, changes)) = applied(base, case) else {
        return (
            case.faults.iter().map(ToString::to_string).collect(),
            Vec::new(),
        );
    };
    let hosts = host_tables(&mut applied);
    let mut faults: Vec<String> = case
        .faults
        .iter()
        .enumerate()
        .map(|(index, fault)| match hosts.is_empty() {
            true => fault.to_string(),
            false => format!("{fault} on {}", hosts[pick_host(case, index, hosts.len())]),
        })
        .collect();
    if let Some(Value::Table(model)) = applied.get("model") {
        let cluster = Cluster::of(model, &hosts);
        faults.extend(case.cluster.iter().filter_map(|fault| cluster.fault(fault)));
    }
    let cored = with_cores(&applied, hosts.len());
    if !cored.is_empty() {
        faults.extend(case.loads.iter().map(|load| match hosts.is_empty() {
            true => load.to_string(),
            false => format!(
                "{load} on {}",
                hosts[cored[usize::from(load.host) % cored.len()]]
            ),
        }));
    }
    (faults, changes)
}

/// One line for a regression file's `about`: what broke, the faults that broke it, and what the
/// case changed (see [`case_parts`]).
pub fn regression_about(source: &str, base: &str, reason: &str, case: &Case) -> String {
    let (faults, changes) = case_parts(base, case);
    let after = match faults.len() {
        0 => "with no added fault".to_string(),
        _ => format!("after {}", faults.join(", ")),
    };
    let changes = match changes.len() {
        0 => String::new(),
        _ => format!("; changed: {}", changes.join(", ")),
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
    let (mut table, _) = applied(base, case)?;
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
            cluster: Vec::new(),
            loads: Vec::new(),
        };
        let text = apply(BASE, &case).unwrap();
        let table: Table = text.parse().unwrap();
        assert_eq!(table["seed"].as_integer(), Some(7));
        assert_eq!(table["model"]["count"].as_integer(), Some(8));
        assert_eq!(table["model"]["period"].as_str(), Some("1s"));
        assert_eq!(table["fault"][0]["at"].as_str(), Some("1.5s"));
        assert_eq!(table["fault"][0]["by"].as_str(), Some("-2s"));
        assert_eq!(table["expect"].as_table().unwrap().len(), 1);
        assert_eq!(table["expect"]["invariants"].as_bool(), Some(true));
        let about = regression_about("base.toml", BASE, "a burst", &case);
        assert_eq!(
            about,
            "Found by sweeping base.toml: a burst, after a wall-step of -2s at 1.5s; \
             changed: `count` from 4 to 8"
        );
    }

    const HOSTS: &str = "about = \"x\"\nplatform = \"linux\"\nrun_for = \"10s\"\n\
                         [model]\nkind = \"hosts\"\n\
                         [[model.host]]\nname = \"lock\"\n\
                         [[model.host]]\nname = \"node\"\ncount = 3\n";

    #[test]
    fn a_hosts_fault_goes_under_the_host_it_picks_and_a_counted_group_is_written_out_first() {
        let case = Case {
            seed: 1,
            tweaks: Vec::new(),
            faults: vec![FaultSpec::Step {
                at_ms: 100,
                by_ms: 5,
            }],
            // 6 modulo 4 hosts: the third, node-2.
            hosts: vec![6],
            cluster: Vec::new(),
            loads: Vec::new(),
        };
        let table: Table = apply(HOSTS, &case).unwrap().parse().unwrap();
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
        let about = regression_about("base.toml", HOSTS, "two leaders", &case);
        assert!(
            about.ends_with("after a wall-step of +5ms at 100ms on node-2"),
            "{about}"
        );
    }

    #[test]
    fn a_hosts_case_adds_partitions_spikes_and_drift_and_the_about_names_them() {
        let case = Case {
            seed: 1,
            tweaks: Vec::new(),
            faults: Vec::new(),
            hosts: Vec::new(),
            cluster: vec![
                ClusterFault::Partition {
                    pair: [1, 2],
                    at_ms: 2_500,
                    duration_ms: 1_000,
                },
                ClusterFault::Spike {
                    pair: [0, 0],
                    at_ms: 0,
                    duration_ms: 250,
                    latency_ms: (40, 40),
                },
                ClusterFault::Drift { host: 2, ppm: 120 },
            ],
            loads: Vec::new(),
        };
        let table: Table = apply(HOSTS, &case).unwrap().parse().unwrap();
        let model = &table["model"];
        // Pair [1, 2]: node-1, then two hosts on from it, lock.
        assert_eq!(model["partition"][0]["between"][0].as_str(), Some("node-1"));
        assert_eq!(model["partition"][0]["between"][1].as_str(), Some("lock"));
        assert_eq!(model["spike"][0]["latency"].as_str(), Some("40ms"));
        assert_eq!(model["host"][2]["drift_ppm"].as_integer(), Some(120));
        let about = regression_about("base.toml", HOSTS, "two leaders", &case);
        assert_eq!(
            about,
            "Found by sweeping base.toml: two leaders, after a partition between node-1 and lock \
             for 1s at 2.5s, a latency spike of 40ms between lock and node-1 for 250ms at 0s; \
             changed: node-2's crystal at +120 ppm"
        );
    }

    #[test]
    fn only_a_hosts_scenario_draws_partitions_spikes_and_drift() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let hosts = cases_for(60_000, true, false);
        let plain = cases(60_000);
        let mut added = 0;
        for _ in 0..50 {
            added += hosts.new_tree(&mut runner).unwrap().current().cluster.len();
            assert!(
                plain
                    .new_tree(&mut runner)
                    .unwrap()
                    .current()
                    .cluster
                    .is_empty()
            );
        }
        assert!(added > 25, "{added} cluster faults in 50 hosts cases");
    }

    /// Two plain hosts and one with a core of its own.
    const CORED: &str = "about = \"x\"\nplatform = \"linux\"\nrun_for = \"10s\"\n\
                         [model]\nkind = \"hosts\"\nnetwork = \"events\"\n\
                         [[model.host]]\nname = \"node\"\ncount = 2\n\
                         [[model.host]]\nname = \"busy\"\n[model.host.machine]\ncores = 1\n\
                         [model.heartbeat]\nevery = \"1s\"\nsuspect_after = \"5s\"\n";

    #[test]
    fn load_is_drawn_only_where_cores_are_and_goes_to_a_host_that_has_them() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        assert!(takes_load(CORED));
        assert!(!takes_load(
            &CORED.replace("[model.host.machine]\ncores = 1\n", "")
        ));
        assert!(!takes_load(BASE));
        // Cores for every host from the cluster's [machine].
        assert!(takes_load(&format!("{BASE}[machine]\ncores = 2\n")));
        let mut runner = TestRunner::deterministic();
        let (with, without) = (
            cases_for(10_000, true, true),
            cases_for(10_000, true, false),
        );
        let mut drawn = 0;
        for _ in 0..50 {
            let case = with.new_tree(&mut runner).unwrap().current();
            assert!(
                without
                    .new_tree(&mut runner)
                    .unwrap()
                    .current()
                    .loads
                    .is_empty()
            );
            drawn += case.loads.len();
            let applied: Table = apply(CORED, &case).unwrap().parse().unwrap();
            // A tweak may change `count`: the loads go to `busy`, wherever it is.
            for host in applied["model"]["host"].as_array().unwrap() {
                let loads = host
                    .get("fault")
                    .and_then(Value::as_array)
                    .map_or(0, |faults| {
                        faults
                            .iter()
                            .filter(|fault| fault["kind"].as_str() == Some("cpu-load"))
                            .count()
                    });
                let expected = match host["name"].as_str() {
                    Some("busy") => case.loads.len(),
                    _ => 0,
                };
                assert_eq!(loads, expected, "{}", apply(CORED, &case).unwrap());
            }
            crate::loader::parse("case.toml", &apply(CORED, &case).unwrap())
                .unwrap_or_else(|error| panic!("{case:?}: {error}"));
        }
        assert!(drawn > 25, "{drawn} loads in 50 cases");
        let case = Case {
            loads: vec![LoadSpec {
                at_ms: 2_000,
                duration_ms: 3_000,
                threads: 4,
                host: 7,
            }],
            ..Case::default()
        };
        let about = regression_about("base.toml", CORED, "a false leader", &case);
        assert_eq!(
            about,
            "Found by sweeping base.toml: a false leader, after a cpu-load of 4 threads for 3s at \
             2s on busy"
        );
    }
}
