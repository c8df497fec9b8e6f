//! The design registered by name and run under an RPC load, and ticklab's loom battery on it.

use my_timers::{ScanVec, registry};

#[test]
fn scan_vec_keeps_every_rpc_timeout() {
    let scenario = registry()
        .parse(
            "scan-vec-rpc.toml",
            r#"
            about = "scan-vec under RPC timeouts"
            platform = "linux"
            run_for = "10s"

            [model]
            kind = "timer"
            design = "scan-vec"
            clock = "monotonic"
            clients = 20
            call_interval = "10ms"
            timeout = "100ms"
            latency = ["1ms", "20ms"]
            slow_responses = 0.01
            slow_latency = "300ms"

            [expect]
            invariants = true
            lost = 0
            min_timeouts = 100
            "#,
        )
        .unwrap();
    let report =
        ticklab::run::run_scenario(&scenario, &Default::default(), &mut ticklab::trace::NoTrace)
            .unwrap();
    for outcome in &report.outcomes {
        println!("{outcome}");
    }
    assert!(report.passed());
}

#[test]
fn scan_vec_passes_the_loom_battery() {
    ticklab::battery::loom::<ScanVec>();
}
