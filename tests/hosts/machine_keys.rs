//! The machine parts of hosts: the cluster's `[machine]`, each host's or group's
//! `[model.host.machine]` over it key by key, each checked on the host's own platform.

use ticklab::hosts::HostsConfig;
use ticklab::hosts::spec::HostConfig;
use ticklab::machine::{LINUX_TIMER_SLACK_NS, MachineConfig, WINDOWS_TIMER_RESOLUTION_NS};
use ticklab::scenario::{Scenario, ScenarioError};

/// A heartbeat cluster with `machine` as its top-level tables and `hosts` as its host tables.
fn cluster(machine: &str, hosts: &str) -> String {
    format!(
        r#"about = "machines"
platform = "linux"
run_for = "10s"
{machine}
[model]
kind = "hosts"
network = "events"

{hosts}
[model.heartbeat]
every = "1s"
suspect_after = "3s"
peers = 1
"#
    )
}

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    ticklab::loader::parse("machines.toml", text)
}

fn hosts_of(text: &str) -> Vec<HostConfig> {
    let scenario = parse(text).unwrap_or_else(|error| panic!("{error}"));
    scenario
        .model
        .config::<HostsConfig>()
        .unwrap()
        .hosts
        .clone()
}

fn machine<'a>(hosts: &'a [HostConfig], name: &str) -> &'a MachineConfig {
    let host = hosts.iter().find(|host| host.name == name).unwrap();
    host.machine
        .as_ref()
        .unwrap_or_else(|| panic!("{name} has no machine"))
}

/// The line and column of the text `marker` in `text`, 1-based.
fn position_of(text: &str, marker: &str) -> (usize, usize) {
    let offset = text.find(marker).unwrap();
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = offset - before.rfind('\n').map_or(0, |newline| newline + 1) + 1;
    (line, column)
}

const TWO_HOSTS: &str = "[[model.host]]\nname = \"a\"\n\n[[model.host]]\nname = \"b\"\n";

#[test]
fn hosts_without_any_machine_table_have_no_cpu_model() {
    let hosts = hosts_of(&cluster("", TWO_HOSTS));
    assert_eq!(hosts.len(), 2);
    for host in &hosts {
        assert_eq!(host.machine, None, "{}", host.name);
    }
}

#[test]
fn an_empty_cluster_machine_table_still_gives_every_host_a_machine() {
    let hosts = hosts_of(&cluster("\n[machine]\n", TWO_HOSTS));
    for name in ["a", "b"] {
        assert_eq!(machine(&hosts, name).cores, None);
    }
}

#[test]
fn a_hosts_own_cores_override_the_clusters_and_keep_its_busy_threads() {
    let text = cluster(
        "\n[machine]\ncores = 4\nbusy_threads = 2\n",
        "[[model.host]]\nname = \"a\"\n\n[model.host.machine]\ncores = 2\n\n\
         [[model.host]]\nname = \"b\"\n",
    );
    let hosts = hosts_of(&text);
    let a = machine(&hosts, "a");
    assert_eq!(a.cores, Some(2));
    assert_eq!(a.load.busy_threads, 2);
    let b = machine(&hosts, "b");
    assert_eq!(b.cores, Some(4));
    assert_eq!(b.load.busy_threads, 2);
}

#[test]
fn a_groups_machine_table_applies_to_every_member_and_no_other_host() {
    let text = cluster(
        "",
        "[[model.host]]\nname = \"lone\"\n\n\
         [[model.host]]\nname = \"busy\"\ncount = 3\n\n\
         [model.host.machine]\ncores = 2\nload = 0.9\nload_burst = \"5ms\"\n",
    );
    let hosts = hosts_of(&text);
    assert_eq!(hosts.len(), 4);
    assert_eq!(hosts[0].machine, None, "a host without either table");
    for name in ["busy-1", "busy-2", "busy-3"] {
        let busy = machine(&hosts, name);
        assert_eq!(busy.cores, Some(2), "{name}");
        let bursts = busy.load.bursts.unwrap();
        assert_eq!((bursts.threads, bursts.share_ppm), (2, 900_000), "{name}");
        assert_eq!(bursts.mean_burst_ns, 5_000_000, "{name}");
    }
}

#[test]
fn a_hosts_time_slice_needs_only_the_clusters_cores() {
    let text = cluster(
        "\n[machine]\ncores = 4\n",
        "[[model.host]]\nname = \"a\"\n\n[model.host.machine]\ntime_slice = \"7ms\"\n\n\
         [[model.host]]\nname = \"b\"\n",
    );
    let hosts = hosts_of(&text);
    assert_eq!(machine(&hosts, "a").cores, Some(4));
    assert_eq!(machine(&hosts, "a").time_slice_ns, 7_000_000);
    assert_ne!(machine(&hosts, "b").time_slice_ns, 7_000_000);
}

#[test]
fn a_windows_host_waits_on_the_15_6ms_tick_and_a_linux_host_has_50us_of_slack() {
    let text = cluster(
        "\n[machine]\ncores = 4\n",
        "[[model.host]]\nname = \"pc\"\nplatform = \"windows\"\n\n\
         [[model.host]]\nname = \"server\"\n",
    );
    let hosts = hosts_of(&text);
    let pc = machine(&hosts, "pc").timing;
    assert_eq!(
        (pc.resolution_ns, pc.slack_ns),
        (WINDOWS_TIMER_RESOLUTION_NS, 0)
    );
    let server = machine(&hosts, "server").timing;
    assert_eq!(
        (server.resolution_ns, server.slack_ns),
        (0, LINUX_TIMER_SLACK_NS)
    );

    // A host's own key wins over its platform's default.
    let tuned = text.replace(
        "platform = \"windows\"\n",
        "platform = \"windows\"\n\n[model.host.machine]\ntimer_resolution = \"1ms\"\n",
    );
    assert_eq!(
        machine(&hosts_of(&tuned), "pc").timing.resolution_ns,
        1_000_000
    );
}

#[test]
fn a_time_slice_without_cores_in_a_hosts_table_is_refused_at_that_key() {
    let text = cluster(
        "",
        "[[model.host]]\nname = \"a\"\n\n[[model.host]]\nname = \"w\"\ncount = 3\n\n\
         [model.host.machine]\ntime_slice = \"3ms\"\n",
    );
    let error = parse(&text).unwrap_err();
    assert_eq!(error.message(), "`time_slice` needs `cores`");
    assert_eq!(error.position(), Some(position_of(&text, "\"3ms\"")));
}

#[test]
fn the_clusters_machine_must_hold_on_its_own_and_is_refused_once_at_its_key() {
    // Its `load` needs its own `cores`, even where every host's table gives some.
    let text = cluster(
        "\n[machine]\nload = 0.5\n",
        "[[model.host]]\nname = \"a\"\n\n[model.host.machine]\ncores = 2\n\n\
         [[model.host]]\nname = \"b\"\n\n[model.host.machine]\ncores = 2\n",
    );
    let error = parse(&text).unwrap_err();
    assert_eq!(error.message(), "`load` needs `cores`");
    assert_eq!(error.position(), Some(position_of(&text, "0.5")));
    assert_eq!(error.to_string().matches("needs `cores`").count(), 1);
}

#[test]
fn an_unknown_key_in_either_machine_table_is_refused_with_the_nearest_key() {
    let top = cluster("\n[machine]\ncorse = 4\n", TWO_HOSTS);
    let error = parse(&top).unwrap_err();
    assert_eq!(error.message(), "unknown key `corse` in [machine]");
    assert!(error.hint().unwrap().starts_with("did you mean `cores`?"));
    assert_eq!(error.position(), Some(position_of(&top, "corse")));

    let own = cluster(
        "",
        "[[model.host]]\nname = \"a\"\n\n[model.host.machine]\nbusy_thread = 1\n\n\
         [[model.host]]\nname = \"b\"\n",
    );
    let error = parse(&own).unwrap_err();
    assert_eq!(
        error.message(),
        "unknown key `busy_thread` in [model.host.machine]"
    );
    assert!(
        error
            .hint()
            .unwrap()
            .starts_with("did you mean `busy_threads`?")
    );
    assert_eq!(error.position(), Some(position_of(&own, "busy_thread")));
}

#[test]
fn a_load_outside_zero_to_one_is_refused_in_a_hosts_table() {
    let text = cluster(
        "\n[machine]\ncores = 4\n",
        "[[model.host]]\nname = \"a\"\n\n[model.host.machine]\nload = 1.5\n\n\
         [[model.host]]\nname = \"b\"\n",
    );
    let error = parse(&text).unwrap_err();
    assert!(
        error
            .message()
            .starts_with("`load` must be more than 0 and less than 1"),
        "{error}"
    );
    assert_eq!(error.position(), Some(position_of(&text, "1.5")));
}

#[test]
fn ten_thousand_hosts_each_get_their_groups_machine() {
    let text = cluster(
        "\n[machine]\ncores = 4\n",
        "[[model.host]]\nname = \"big\"\ncount = 9999\n\n\
         [model.host.machine]\ncores = 16\n\n\
         [[model.host]]\nname = \"small\"\n",
    );
    let hosts = hosts_of(&text);
    assert_eq!(hosts.len(), ticklab::hosts::spec::MAX_HOSTS);
    for host in &hosts[..9999] {
        assert_eq!(
            host.machine.as_ref().unwrap().cores,
            Some(16),
            "{}",
            host.name
        );
    }
    assert_eq!(machine(&hosts, "small").cores, Some(4));
}
