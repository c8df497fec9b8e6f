//! Every scheduler design ticklab ships passes the shuttle scheduler battery
//! (`ticklab::battery::scheduler`): no schedule of its workers' and an outside thread's calls
//! loses a wake or runs a task twice. The battery's planted bug is in
//! `examples/fifo-pool-scheduler`, which proves the battery catches a lost wake.

use ticklab::Registry;

#[test]
fn every_built_in_scheduler_passes_the_shuttle_battery() {
    let registry = Registry::builtin();
    let names: Vec<&str> = registry.schedulers().map(|entry| entry.name).collect();
    assert_eq!(
        names,
        [
            "tokio-multi-thread",
            "tokio-current-thread",
            "async-executor",
            "go",
            "thread-per-core"
        ]
    );
    for entry in registry.schedulers() {
        entry.run_shuttle_battery();
    }
}
