//! The differential proof: the heartbeat detector written as service code (src/heartbeat.rs)
//! and ticklab's built-in `[model.heartbeat]` run the same scenario file, under the same faults.
//! The built-in model is checked against hand-worked figures to the microsecond; the service
//! must suspect each peer at the same moment, to the nanosecond, and trust it again at the same
//! moment too.
//!
//! Each file's network takes exactly 1 ms and beats leave on whole seconds, so no beat arrives
//! at the moment a check falls due: the two are never ordered by a tie.

use std::path::Path;
use std::time::Duration;

use lease_service::heartbeat::{self, Detector};
use ticklab::run::{RunOptions, run_scenario};
use ticklab::service::Service;
use ticklab::trace::JsonlSink;

/// (physical ns, watcher, what it did): "suspects b", "hears from b again".
type Verdicts = Vec<(u64, String, String)>;

fn scenario(name: &str) -> String {
    format!("{}/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"))
}

/// What the built-in model's detectors did, from its trace.
fn built_in(path: &str) -> Verdicts {
    let scenario = ticklab::loader::load(Path::new(path)).unwrap();
    let mut sink = JsonlSink::new(Vec::new());
    let report = run_scenario(&scenario, &RunOptions::default(), &mut sink).unwrap();
    assert!(
        report.passed(),
        "{path}: the built-in run's [expect] failed"
    );
    let text = String::from_utf8(sink.into_inner()).unwrap();
    let mut verdicts = Vec::new();
    for line in text.lines() {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let what = event["what"].as_str().unwrap_or_default();
        if !matches!(what, "suspects" | "false-suspect" | "trusts") {
            continue;
        }
        let detail = event["detail"].as_str().unwrap();
        // "suspects b, silent for 3.5s ...", or "hears from b again".
        let verdict = detail.split(',').next().unwrap().to_string();
        let host = event["host"].as_str().unwrap().to_string();
        verdicts.push((event["t_ns"].as_u64().unwrap(), host, verdict));
    }
    verdicts
}

/// What the service's detectors did, from their notes.
fn as_service(path: &str) -> Verdicts {
    let mut service = Service::load(path).unwrap();
    let hosts = vec!["a".to_string(), "b".to_string(), "c".to_string()];
    let detector = Detector {
        every: Duration::from_secs(1),
        suspect_after: Duration::from_millis(3500),
        peers: 2,
    };
    for me in &hosts {
        let (me, hosts) = (me.clone(), hosts.clone());
        service.host(&me.clone(), move || {
            heartbeat::run(me.clone(), hosts.clone(), detector)
        });
    }
    let run = service.run().unwrap();
    run.notes()
        .iter()
        .map(|note| (note.at_ns, note.host.clone(), note.text.clone()))
        .collect()
}

/// Both ways, sorted by moment and host: at one moment the order of hosts is no verdict.
fn both(name: &str) -> (Verdicts, Verdicts) {
    let path = scenario(name);
    let (mut built_in, mut service) = (built_in(&path), as_service(&path));
    built_in.sort();
    service.sort();
    (built_in, service)
}

const MS: u64 = 1_000_000;

#[test]
fn a_frozen_peer_is_suspected_at_the_same_moment() {
    let (built_in, service) = both("heartbeat-freeze");
    // b froze at 10.5 s; its last beat left at 10 s and arrived at 10.001 s, so a and c suspect
    // it 3.5 s later. It thaws at 20.5 s and beats at once: heard at 20.501 s. Its own watches
    // were due while it was frozen; its kernel kept a's and c's beats, which it reads first.
    let expected = [
        (13_501 * MS, "a", "suspects b"),
        (13_501 * MS, "c", "suspects b"),
        (20_501 * MS, "a", "hears from b again"),
        (20_501 * MS, "c", "hears from b again"),
    ];
    assert_eq!(built_in, verdicts(&expected));
    assert_eq!(service, built_in);
}

#[test]
fn a_partition_is_suspected_from_both_sides_at_the_same_moment() {
    let (built_in, service) = both("heartbeat-partition");
    // a and b are cut apart from 10.5 s to 20.5 s: the beats each sent at 10 s were the last to
    // arrive (10.001 s). At 21 s they beat again, heard at 21.001 s; c hears both throughout.
    let expected = [
        (13_501 * MS, "a", "suspects b"),
        (13_501 * MS, "b", "suspects a"),
        (21_001 * MS, "a", "hears from b again"),
        (21_001 * MS, "b", "hears from a again"),
    ];
    assert_eq!(built_in, verdicts(&expected));
    assert_eq!(service, built_in);
}

#[test]
fn a_sleeping_peer_is_suspected_and_its_stopped_clock_suspects_no_one() {
    let (built_in, service) = both("heartbeat-system-suspend");
    // b's laptop sleeps from 10.5 s to 20.5 s: a and c suspect it at 13.501 s. Its monotonic
    // clock stopped for the 10 s, so its next beat, due at its 11 s, leaves at 21 s (heard at
    // 21.001 s), and its own checks stand 0.5 s past its last beats' arrival as it wakes: the
    // beats a and c send at 21 s reach it long before they fall due.
    let expected = [
        (13_501 * MS, "a", "suspects b"),
        (13_501 * MS, "c", "suspects b"),
        (21_001 * MS, "a", "hears from b again"),
        (21_001 * MS, "c", "hears from b again"),
    ];
    assert_eq!(built_in, verdicts(&expected));
    assert_eq!(service, built_in);
}

#[test]
fn a_wall_step_on_a_watcher_moves_neither_detector() {
    let (built_in, service) = both("heartbeat-wall-step");
    // a's wall clock jumps a minute forward and later two back: both detectors time silence on
    // `Instant`, so no one suspects anyone, on either side.
    assert_eq!(built_in, verdicts(&[]));
    assert_eq!(service, built_in);
}

fn verdicts(expected: &[(u64, &str, &str)]) -> Verdicts {
    expected
        .iter()
        .map(|(at_ns, host, what)| (*at_ns, host.to_string(), what.to_string()))
        .collect()
}
