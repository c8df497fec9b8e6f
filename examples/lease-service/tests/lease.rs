//! The lock service and its clients on hosts with clocks of their own: each test works out by
//! hand, in its comment, when each host does what, and checks it to the nanosecond.

use std::time::Duration;

use lease_service::lock;
use ticklab::service::{Service, ServiceRun};

const MS: u64 = 1_000_000;
const TTL: Duration = Duration::from_secs(10);

/// The lock service, storage, and two clients: `client-1` from the start, `client-2` from 12 s.
/// Every link takes 1 ms. `client-1`'s process is frozen from 5.0045 s for 15 s: a GC pause
/// between its lease check and its write.
fn gc_pause(fenced: bool) -> ServiceRun {
    let mut service = Service::new();
    service.run_for(Duration::from_secs(60));
    service.host("lock", || lock::lock_service(TTL));
    service.host("storage", move || lock::storage(fenced));
    service
        .client(
            "client-1",
            lock::client("client-1", TTL, Duration::from_secs(5)),
        )
        .process_suspend(Duration::from_micros(5_004_500), Duration::from_secs(15));
    service.client("client-2", async {
        tokio::time::sleep(Duration::from_secs(12)).await;
        lock::client("client-2", TTL, Duration::ZERO).await
    });
    service.run().unwrap()
}

fn notes(run: &ServiceRun, host: &str) -> Vec<(u64, String)> {
    run.notes_on(host)
        .map(|note| (note.at_ns, note.text.clone()))
        .collect()
}

/// client-1: SYN 0 -> 0.001, SYN-ACK 0.002, ACQUIRE 0.003 (granted, token 1, the service's
/// lease to 10.003), answer 0.004: its own lease runs to 10.004. It works to 5.004, finds its
/// lease good, and prepares the write until 5.005; the pause from 5.0045 holds it to 20.0045,
/// when it connects to storage: SYN 20.0055, SYN-ACK 20.0065, WRITE at storage 20.0075.
///
/// client-2 asks at 12 s: ACQUIRE at the lock service 12.003, past 10.003, so token 2; answer
/// 12.004; it prepares until 12.005, and its WRITE reaches storage at 12.008.
#[test]
fn a_gc_pause_past_the_lease_lands_a_stale_write_unless_fenced() {
    let unfenced = gc_pause(false);
    assert_eq!(
        notes(&unfenced, "lock"),
        [
            (3 * MS, "grants client-1 token 1".to_string()),
            (12_003 * MS, "grants client-2 token 2".to_string()),
        ]
    );
    // Without fencing, the stale write lands after the new holder's.
    assert_eq!(
        notes(&unfenced, "storage"),
        [
            (12_008 * MS, "accepts client-2 token 2".to_string()),
            (20_007_500_000, "accepts client-1 token 1".to_string()),
        ]
    );
    assert_eq!(
        notes(&unfenced, "client-1"),
        [(20_008_500_000, "wrote with token 1: OK".to_string())]
    );

    let fenced = gc_pause(true);
    assert_eq!(
        notes(&fenced, "storage"),
        [
            (12_008 * MS, "accepts client-2 token 2".to_string()),
            (20_007_500_000, "rejects client-1 token 1".to_string()),
        ]
    );
    assert_eq!(
        notes(&fenced, "client-1"),
        [(20_008_500_000, "wrote with token 1: REJECTED".to_string())]
    );
}

/// The same pause, a millisecond earlier, catches client-1 before its check: it thaws at
/// 20.0035 s, finds its lease (to 10.004) long gone, and does not write.
#[test]
fn a_pause_before_the_check_loses_the_lease_cleanly() {
    let mut service = Service::new();
    service.host("lock", || lock::lock_service(TTL));
    service.host("storage", || lock::storage(false));
    service
        .client(
            "client-1",
            lock::client("client-1", TTL, Duration::from_secs(5)),
        )
        .process_suspend(Duration::from_micros(5_003_500), Duration::from_secs(15));
    let run = service.run().unwrap();
    assert_eq!(
        notes(&run, "client-1"),
        [(
            20_003_500_000,
            "lost its lease, and does not write".to_string()
        )]
    );
    assert_eq!(notes(&run, "storage"), []);
}
