//! What a thawed host handles first: the ZooKeeper server's GC pause under each order.

use super::{run, run_json};

/// The shipped incident with its `thaw_order` replaced, and a host's own order when `per_host`.
fn zookeeper_gc(order: &str, per_host: bool) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/hosts/zookeeper-server-gc-io-first.toml"
    ))
    .unwrap();
    // Without its `[expect]`, which bounds the io-first figures.
    let text = text.split("\n[expect]").next().unwrap().to_string();
    if per_host {
        text.replace(
            "name = \"zk\"\n",
            &format!("name = \"zk\"\nthaw_order = \"{order}\"\n"),
        )
    } else {
        text.replace(
            "thaw_order = \"io-first\"",
            &format!("thaw_order = \"{order}\""),
        )
    }
}

#[test]
fn only_a_server_that_runs_its_timers_first_expires_the_sessions_whose_pings_wait() {
    let false_expiries: Vec<u64> = ["io-first", "timers-first", "tokio"]
        .iter()
        .map(|order| {
            run(&zookeeper_gc(order, false))
                .get("false_suspicions")
                .unwrap()
        })
        .collect();
    assert_eq!(false_expiries, [0, 3, 0]);
    // The server's own order decides, whatever the clients'.
    let server_alone = run(&zookeeper_gc("timers-first", true));
    assert_eq!(server_alone.get("false_suspicions"), Some(3));
}

#[test]
fn the_trace_says_what_a_thawed_host_found_and_in_which_order() {
    let thaw_lines = |order: &str| -> Vec<String> {
        let (_, events) = run_json(&zookeeper_gc(order, false));
        events
            .iter()
            .filter(|event| event["what"] == "thaw")
            .map(|event| format!("{} {}", event["host"], event["detail"]))
            .collect()
    };
    assert_eq!(
        thaw_lines("timers-first"),
        [
            "\"zk\" \"runs 1 heartbeat send, 3 suspicion checks, then reads 21 messages (timers-first)\""
        ]
    );
    assert_eq!(
        thaw_lines("io-first"),
        ["\"zk\" \"reads 21 messages, then runs 1 heartbeat send, 3 suspicion checks (io-first)\""]
    );
}
