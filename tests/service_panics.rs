//! A task that panics on any host fails the run, naming the host, unless the service leaves task
//! panics to tokio: then the task ends, the host's other tasks go on, and the trace says so.

use std::time::Duration;

use ticklab::service::{Service, note};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[test]
fn a_panic_on_a_host_fails_the_run_naming_the_host() {
    let mut service = Service::new();
    service.host("fine", || async { Ok(()) });
    service.host("broken", || async {
        tokio::time::sleep(secs(3)).await;
        panic!("lost the lease");
    });
    let failure = service.run().unwrap_err().to_string();
    assert!(
        failure.starts_with("the code on host `broken` panicked at tests/service_panics.rs:"),
        "{failure}"
    );
    assert!(failure.ends_with(": lost the lease"), "{failure}");
}

#[test]
fn a_panic_left_to_tokio_ends_its_task_and_the_host_goes_on() {
    let mut service = Service::new();
    service.run_for(secs(10)).swallowing_task_panics();
    service.host("server", || async {
        tokio::task::spawn_local(async {
            tokio::time::sleep(secs(3)).await;
            panic!("lost the lease");
        });
        let mut every = tokio::time::interval(secs(2));
        loop {
            every.tick().await;
            note("beat");
        }
    });
    let run = service.run().unwrap();
    // The panicking task ended at 3 s; the beats at 0, 2, 4, 6 and 8 s all came.
    let beats: Vec<u64> = run
        .notes_on("server")
        .map(|n| n.at_ns / 1_000_000_000)
        .collect();
    assert_eq!(beats, [0, 2, 4, 6, 8]);
    let trace = run.trace();
    let line = trace
        .lines()
        .find(|line| line.contains("(left to tokio)"))
        .expect("the trace says a task panicked");
    assert!(
        line.starts_with("3.000000000s  server  a task panicked at tests/service_panics.rs:"),
        "{line}"
    );
    assert!(line.ends_with(": lost the lease (left to tokio)"), "{line}");
}
