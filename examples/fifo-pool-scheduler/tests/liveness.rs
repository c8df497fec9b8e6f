//! The executor's liveness check on this crate's pools, through the crate's own command line: the
//! pool that looks at its queue as it parks passes, and the planted lost wake is caught.

use assert_cmd::Command;

fn check(scenario: &str) -> (i32, String) {
    let output = Command::cargo_bin("fifo-pool-scheduler")
        .expect("the crate's binary")
        .args(["check", &format!("scenarios/{scenario}")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn the_fifo_pool_runs_every_request_at_once() {
    let (code, out) = check("requests-fifo-pool.toml");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("request: max_latency 1ms (want <= 1ms)"),
        "{out}"
    );
}

#[test]
fn the_lost_wake_is_caught_as_a_request_left_queued_while_a_worker_sat_parked() {
    let (code, out) = check("requests-fifo-pool-lost-wake.toml");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "first BROKEN at 0.500000000s: request#1 waited 500ms in the inject queue of pool while pool-0 sat parked"
        ),
        "{out}"
    );
}
