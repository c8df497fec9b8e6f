//! The network between hosts: what a message takes on turmoil and on ticklab's own events, and
//! what the trace says about it.

use super::{MS, run_json};

/// A client calling a server every 100 ms over links of `latency`, with `tick` on turmoil.
fn calls(network: &str, latency: &str, tick: Option<&str>) -> String {
    let tick = tick.map_or(String::new(), |tick| format!("tick = \"{tick}\""));
    format!(
        r#"
about = "calls"
platform = "linux"
run_for = "1s"

[model]
kind = "hosts"
network = "{network}"
latency = "{latency}"
{tick}

[[model.host]]
name = "client"

[[model.host]]
name = "server"

[model.rpc]
clients = ["client"]
server = "server"
design = "global-heap"
call_every = "100ms"
timeout = "500ms"
serve_time = "0ms"
"#
    )
}

/// When each reply reached the client, in physical time.
fn replies_ns(text: &str) -> Vec<u64> {
    let (_, events) = run_json(text);
    events
        .iter()
        .filter(|event| event["event"] == "reply")
        .map(|event| event["t_ns"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_whole_tick_latency_takes_exactly_that_long_on_both_networks() {
    for (latency, latency_ms, tick) in [
        ("1ms", 1, None),
        ("5ms", 5, None),
        ("10ms", 10, None),
        ("10ms", 10, Some("10ms")),
        ("30ms", 30, Some("10ms")),
    ] {
        // The client (first host) calls, the server (second) replies: a turmoil step runs the
        // hosts in that order, so the two ways meet the step differently.
        let expected: Vec<u64> = (0..10)
            .map(|call| call * 100 * MS + 2 * latency_ms * MS)
            .collect();
        let events = replies_ns(&calls("events", latency, None));
        let turmoil = replies_ns(&calls("turmoil", latency, tick));
        assert_eq!(events, expected, "events, {latency}");
        assert_eq!(turmoil, expected, "turmoil, {latency}, tick {tick:?}");
    }
}

#[test]
fn a_latency_between_ticks_is_rounded_up_to_the_tick_on_turmoil() {
    // 15 ms each way on 10 ms steps: 20 ms each way.
    let turmoil = replies_ns(&calls("turmoil", "15ms", Some("10ms")));
    assert_eq!(turmoil[0], 40 * MS);
    let events = replies_ns(&calls("events", "15ms", None));
    assert_eq!(events[0], 30 * MS);
}

#[test]
fn a_turmoil_trace_says_in_its_header_how_the_tick_rounds_latencies() {
    let scenario =
        ticklab::loader::parse("calls.toml", &calls("turmoil", "10ms", Some("10ms"))).unwrap();
    let mut sink = ticklab::trace::TextSink::new(Vec::new());
    ticklab::run::run_scenario(&scenario, &ticklab::run::RunOptions::default(), &mut sink).unwrap();
    let text = String::from_utf8(sink.into_inner()).unwrap();
    let header: Vec<&str> = text
        .lines()
        .take_while(|line| line.starts_with('#'))
        .collect();
    assert!(
        header.contains(
            &"# network turmoil, a step every 10ms: a message sent between two steps goes out at \
              the next, and a latency is rounded up to whole steps of 10ms"
        ),
        "{header:#?}"
    );
    let (_, events) = run_json(&calls("events", "10ms", None));
    assert!(events[0].get("notes").is_none(), "{}", events[0]);
}
