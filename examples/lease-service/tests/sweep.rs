//! A sweep of random fault schedules around the lock service's base file finds the window in
//! which a pause of client-1 lands a stale write, and shrinks the case to that one fault.

use std::time::Duration;

use lease_service::lock;
use ticklab::service::{Service, ServiceRun, ServiceSweep};
use ticklab::sim::FaultKind;

const TTL: Duration = Duration::from_secs(10);

fn base() -> String {
    format!(
        "{}/scenarios/lease-sweep-base.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// client-1 takes the lease at 0.003 s (to 10.004 s by its clock), works 5 s, checks it at
/// 5.004 s, and prepares its write for 4 s. client-2 asks from the start, and a second after
/// each refusal, until the lease has expired.
fn code(service: &mut Service) {
    service.host("lock", || lock::lock_service(TTL));
    service.host("storage", || lock::storage(false));
    service.client(
        "client-1",
        lock::client(
            "client-1",
            TTL,
            Duration::from_secs(5),
            Duration::from_secs(4),
        ),
    );
    service.client(
        "client-2",
        lock::client("client-2", TTL, Duration::ZERO, Duration::from_millis(1)),
    );
}

/// Storage never accepts a write under an older lease than one it accepted before.
fn no_stale_write(run: &ServiceRun) -> Result<(), String> {
    let mut highest = 0;
    for note in run.notes_on("storage") {
        let token: u64 = note.text.rsplit(' ').next().unwrap().parse().unwrap();
        if token < highest {
            return Err(format!(
                "storage accepted token {token} after token {highest}, at {} ns",
                note.at_ns
            ));
        }
        highest = token;
    }
    Ok(())
}

#[test]
fn the_base_writes_in_lease_order() {
    let mut service = Service::load(base()).unwrap();
    code(&mut service);
    let run = service.run().unwrap();
    no_stale_write(&run).unwrap();
    let storage: Vec<(u64, &str)> = run
        .notes_on("storage")
        .map(|note| (note.at_ns, note.text.as_str()))
        .collect();
    // client-1's write: SYN 9.004 -> 9.005, SYN-ACK 9.006, WRITE at storage 9.007. client-2's
    // asks take 4 ms each (a handshake and the request's round trip) and a second between: at
    // 0, 1.004, ..., 10.040 s, which reaches the lock service at 10.043 s, past the lease's
    // 10.003 s. Granted token 2, answered 10.044 s, prepared by 10.045 s, its WRITE reaches
    // storage at 10.048 s.
    assert_eq!(
        storage,
        [
            (9_007_000_000, "accepts client-1 token 1"),
            (10_048_000_000, "accepts client-2 token 2"),
        ]
    );
}

#[test]
fn a_sweep_of_freezes_finds_the_gc_pause_window_and_shrinks_it_to_the_one_freeze() {
    let folder = tempfile::tempdir().unwrap();
    let sweep = ServiceSweep::load(base())
        .unwrap()
        .only(&[FaultKind::ProcessSuspend])
        .regressions(folder.path())
        .replay_regressions(false);
    let failure = sweep.check(code, no_stale_write).unwrap_err();
    let scenario: toml::Table = failure.text.parse().unwrap();
    let faults = faults_by_host(&scenario);
    let [(host, fault)] = &faults[..] else {
        panic!("shrunk to {faults:?}:\n{failure}");
    };
    assert_eq!(
        (host.as_str(), fault["kind"].as_str()),
        ("client-1", Some("process-suspend"))
    );
    // The window: the freeze begins after client-1's check (5.004 s; a freeze at that very
    // moment comes first, and the check then finds the lease gone) and before its write leaves
    // (9.004 s). Thawed, client-1 writes at once, and its WRITE reaches storage 3 ms later
    // (SYN, SYN-ACK, WRITE), after client-2's at 10.048 s only if the freeze ends after
    // 10.045 s: shrunk to the shortest, it ends at 10.046 s.
    let at = seconds(&fault["at"]);
    let end = at + seconds(&fault["duration"]);
    assert!(at > 5.004 && at < 9.004, "{failure}");
    assert!((end - 10.046).abs() < 1e-9, "{failure}");
}

#[test]
fn a_sweep_of_every_fault_shrinks_a_stale_write_to_one_fault() {
    let folder = tempfile::tempdir().unwrap();
    let sweep = ServiceSweep::load(base())
        .unwrap()
        .regressions(folder.path())
        .replay_regressions(false);
    let failure = sweep.check(code, no_stale_write).unwrap_err();
    assert!(failure.found.is_some(), "{failure}");
    assert!(
        failure
            .reason
            .starts_with("storage accepted token 1 after token 2"),
        "{failure}"
    );
    // Shrunk to one fault: nothing else is needed to land the stale write. Among every fault, a
    // sweep may find a delayed segment as well as a pause, Kleppmann's other way to it.
    let scenario: toml::Table = failure.text.parse().unwrap();
    let network_faults: usize = ["partition", "spike"]
        .iter()
        .filter_map(|key| scenario["model"].get(*key))
        .map(|faults| faults.as_array().map_or(1, Vec::len))
        .sum();
    assert_eq!(
        faults_by_host(&scenario).len() + network_faults,
        1,
        "{failure}"
    );
    // The regression file is written, and replaying it fails the same way.
    assert!(failure.file.starts_with(folder.path()));
    let replayed = sweep
        .replay_regressions(true)
        .check(code, no_stale_write)
        .unwrap_err();
    assert_eq!(replayed.found, None);
    assert_eq!(replayed.file, failure.file);
}

/// Each host's faults in a scenario file, with the host's name.
fn faults_by_host(scenario: &toml::Table) -> Vec<(String, toml::Value)> {
    scenario["model"]["host"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|host| {
            let name = host["name"].as_str().unwrap().to_string();
            host.get("fault")
                .and_then(|faults| faults.as_array().cloned())
                .unwrap_or_default()
                .into_iter()
                .map(move |fault| (name.clone(), fault))
        })
        .collect()
}

/// A duration as the file writes it (`"5.5s"`, `"250ms"`), in seconds.
fn seconds(value: &toml::Value) -> f64 {
    let text = value.as_str().unwrap();
    match text.strip_suffix("ms") {
        Some(ms) => ms.parse::<f64>().unwrap() / 1e3,
        None => text.trim_end_matches('s').parse().unwrap(),
    }
}
