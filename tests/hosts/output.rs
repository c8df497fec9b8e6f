//! What a hosts run prints: header lines that are never elided, fault lines that say what still
//! holds, suspicions told apart, and `[expect]` bounds on moments that never came.

use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::{NoTrace, TextSink};

use super::{heartbeats, lease, run_json};

/// The text trace of `text`, with `--elide keep` if given.
fn text_trace(text: &str, keep: Option<usize>) -> String {
    let scenario =
        ticklab::loader::parse("test.toml", text).unwrap_or_else(|error| panic!("{error}"));
    let sink = TextSink::new(Vec::new());
    let mut sink = match keep {
        Some(keep) => sink.eliding_after(keep),
        None => sink,
    };
    run_scenario(&scenario, &RunOptions::default(), &mut sink).unwrap();
    String::from_utf8(sink.into_inner()).unwrap()
}

#[test]
fn the_hosts_lines_are_never_elided() {
    let text = heartbeats("drift_ppm = -500", "monotonic");
    for keep in [0, 1] {
        let trace = text_trace(&text, Some(keep));
        let hosts: Vec<&str> = trace
            .lines()
            .filter(|line| line.contains(" host "))
            .collect();
        assert_eq!(hosts.len(), 3, "--elide {keep}:\n{trace}");
        assert!(hosts[0].contains("crystal -500 ppm"), "{}", hosts[0]);
        assert!(!trace.contains("more hosts"), "--elide {keep}:\n{trace}");
    }
}

/// Three hosts heartbeating, with `partitions` between them.
fn partitioned(partitions: &[(&str, &str, &str)]) -> String {
    let mut text = heartbeats("", "monotonic");
    for (between, at, duration) in partitions {
        text.push_str(&format!(
            "\n[[model.partition]]\nbetween = {between}\nat = \"{at}\"\nduration = \"{duration}\"\n"
        ));
    }
    text
}

/// The trace's partition lines: (time, begin or end, what).
fn partition_lines(trace: &str) -> Vec<String> {
    trace
        .lines()
        .filter(|line| line.contains("partition between"))
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn a_partition_that_ends_while_another_still_cuts_its_link_says_so() {
    let overlapping = partitioned(&[
        ("[\"a\", \"b\"]", "10s", "20s"),
        ("[\"a\", \"b\"]", "20s", "20s"),
    ]);
    let lines = partition_lines(&text_trace(&overlapping, None));
    assert_eq!(
        lines[2..],
        [
            "30.000000000s end partition between a and b ends, but the link is still cut by \
             partition 1 until 40s (fault 0)",
            "40.000000000s end partition between a and b repaired (fault 1)",
        ],
        "{lines:#?}"
    );
    // The link is cut until 40 s all the same: a's and b's heartbeats to each other are lost.
    let (summary, _) = run_json(&overlapping);
    assert_eq!(summary.get("messages_lost"), Some(2 * 30));

    // One host cut from every other, and one of those links cut a while longer.
    let star = partitioned(&[
        ("[\"a\", \"*\"]", "10s", "20s"),
        ("[\"b\", \"a\"]", "20s", "20s"),
    ]);
    let lines = partition_lines(&text_trace(&star, None));
    assert_eq!(
        lines[2],
        "30.000000000s end partition between a and every other host ends, but 1 of its 2 links \
         is still cut by partition 1 until 40s (fault 0)"
    );
}

#[test]
fn false_and_rightful_suspicions_are_events_of_their_own() {
    let (summary, events) = run_json(&heartbeats(
        "[[model.host.fault]]\nkind = \"system-suspend\"\nat = \"10.5s\"\nduration = \"10s\"",
        "boottime",
    ));
    let count = |kind: &str| events.iter().filter(|e| e["event"] == kind).count() as u64;
    // a wakes and suspects both peers it watches, which ran all along; b and c each rightly
    // suspected a while it slept.
    assert_eq!(
        count("false-suspect"),
        summary.get("false_suspicions").unwrap()
    );
    assert_eq!(count("false-suspect"), 2);
    assert_eq!(count("suspects"), 2);
    assert_eq!(summary.get("suspicions"), Some(4));
}

#[test]
fn a_moment_the_summary_calls_never_is_a_value_expect_takes() {
    let clean = lease(
        "events",
        "",
        "",
        "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"wall\"\ndrift_bound_ppm = 200\n\n\
         [expect]\nfirst_two_leaders = \"never\"",
    );
    let scenario = ticklab::loader::parse("clean.toml", &clean).unwrap();
    let report = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace).unwrap();
    assert!(report.passed(), "{:?}", report.outcomes);
    // A wall step of the lock service makes two leaders: "never" then fails.
    let stepped = lease(
        "events",
        "[[model.host.fault]]\nkind = \"wall-step\"\nat = \"20s\"\nby = \"1m\"",
        "",
        "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"wall\"\ndrift_bound_ppm = 200\n\n\
         [expect]\nfirst_two_leaders = \"never\"",
    );
    let scenario = ticklab::loader::parse("stepped.toml", &stepped).unwrap();
    let report = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace).unwrap();
    assert!(!report.passed());
    assert_eq!(
        report.outcomes[0].expectation.to_string(),
        "first_two_leaders == never"
    );
}

/// node-a asks first at 0 and holds the lease; both ask every 3 s. The lock service's trace
/// says each renewal of node-a's lease, to the second its clock will read, and each ask of
/// node-b's that waits behind it, with how long node-a still holds it.
#[test]
fn the_lock_service_traces_each_renewal_and_each_ask_that_waits() {
    let text = lease(
        "events",
        "",
        "",
        "length = \"10s\"\nrenew_every = \"3s\"\nclock = \"monotonic\"",
    );
    let (_, events) = run_json(&text);
    let details = |what: &str| -> Vec<String> {
        events
            .iter()
            .filter(|event| event["what"] == what && event["host"] == "lock")
            .map(|event| event["detail"].as_str().unwrap().to_string())
            .collect()
    };
    // node-a asks at 3 s, 6 s, ... 117 s: 39 renewals, each arriving 1 ms after it is sent (the
    // ask at 120 s arrives after the run). node-b asks at 0 s to 117 s: 40 asks that wait.
    let renewed = details("renewed");
    assert_eq!(renewed.len(), 39, "{renewed:?}");
    assert_eq!(
        renewed[0],
        "renews node-a's lease until this clock reads 13.001s"
    );
    let waits = details("waits");
    assert_eq!(waits.len(), 40, "{waits:?}");
    assert_eq!(
        waits[0],
        "node-b asks for the lease and waits, first in line: node-a holds it for 10s more by \
         this clock"
    );
}
