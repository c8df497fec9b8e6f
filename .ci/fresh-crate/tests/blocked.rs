//! A task that blocks its runtime thread in real time is a warning, which names the note before
//! it; built with `RUSTFLAGS="--cfg tokio_unstable"` (as `.ci/crate-user.sh` builds this crate),
//! tokio's task hooks let it name the task and where it was spawned too.

use std::time::Duration;

use ticklab::sim::Platform;
use ticklab::tokio::{Harness, note};

#[test]
fn a_task_blocked_in_real_time_is_a_warning() {
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(10))
        .build()
        .unwrap()
        .warn_when_blocked_for(Duration::from_millis(150));
    let run = harness.run(|| async {
        tokio::time::sleep(Duration::from_secs(2)).await;
        note("before");
        let blocker = tokio::spawn(async {
            // Waiting for a thread that sleeps in real time blocks the runtime thread.
            let (sender, receiver) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(600));
                sender.send(()).unwrap();
            });
            receiver.recv().unwrap();
        });
        blocker.await.unwrap();
    });
    for warning in run.warnings() {
        println!("{warning}");
    }
    // A slow start on a loaded machine may add a warning of its own; the stall is the one after
    // the note.
    let stalls: Vec<&String> = run
        .warnings()
        .iter()
        .filter(|warning| warning.contains("after the note \"before\""))
        .collect();
    assert_eq!(stalls.len(), 1, "{:?}", run.warnings());
    let names_the_task = stalls[0].contains(&format!("spawned at {}:", file!()));
    assert_eq!(
        names_the_task,
        cfg!(tokio_unstable),
        "built with tokio_unstable: {}; the warning: {}",
        cfg!(tokio_unstable),
        stalls[0]
    );
}
