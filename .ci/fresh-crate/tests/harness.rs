//! Code of the user's own on tokio, through a laptop's sleep on Windows.

use std::time::Duration;

use ticklab::sim::Platform;
use ticklab::tokio::{Harness, note};

#[test]
fn a_skipping_interval_does_not_burst_after_a_windows_sleep() {
    let laptop = Harness::on(Platform::Windows)
        .run_for(Duration::from_secs(600))
        .system_suspend(Duration::from_millis(15_500), Duration::from_secs(392))
        .build()
        .unwrap();
    let run = laptop.run(|| async {
        let mut interval = tokio::time::interval(Duration::from_secs(1));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            interval.tick().await;
            note("beat");
        }
    });
    println!("{}", run.snapshot());
    assert!(
        run.most_within("beat", Duration::from_secs(1)) <= 2,
        "{}",
        run.snapshot()
    );
}
