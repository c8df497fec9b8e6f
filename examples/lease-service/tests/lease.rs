//! The lock service and its clients on hosts with clocks of their own: each test works out by
//! hand, in its comment, when each host does what, and checks it to the nanosecond.

use std::time::Duration;

use lease_service::lock;
use ticklab::service::{Service, ServiceRun};

const MS: u64 = 1_000_000;
const TTL: Duration = Duration::from_secs(10);
/// What a client spends getting its write ready, after it checks its lease.
const PREPARE: Duration = Duration::from_millis(1);

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
            lock::client("client-1", TTL, Duration::from_secs(5), PREPARE),
        )
        .process_suspend(Duration::from_micros(5_004_500), Duration::from_secs(15));
    service.client("client-2", async {
        tokio::time::sleep(Duration::from_secs(12)).await;
        lock::client("client-2", TTL, Duration::ZERO, PREPARE).await
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
            lock::client("client-1", TTL, Duration::from_secs(5), PREPARE),
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

/// client-1 times its lease on the wall clock, and works 12 s, past its lease. Its lease runs
/// from the grant's answer at 0.004 s to 10.004 s by its wall clock; NTP steps that clock 5 s
/// back at 6 s, so at its check (12.004 s) it reads 7.004 s and the lease looks good. Its WRITE
/// reaches storage at 12.007 s (SYN, SYN-ACK, WRITE), after client-2's: client-2 asks from the
/// start and a second after each refusal, 4 ms an ask, so its ask at 10.040 s reaches the lock
/// service at 10.043 s, past the lease's 10.003 s; answered 10.044 s, prepared by 10.045 s, its
/// WRITE reaches storage at 10.048 s.
#[test]
fn a_wall_step_back_keeps_a_wall_clock_lease_alive_past_its_end() {
    let run_with = |wall_clock: bool| {
        let mut service = Service::new();
        service.host("lock", || lock::lock_service(TTL));
        service.host("storage", || lock::storage(false));
        let work = Duration::from_secs(12);
        let settings = if wall_clock {
            service.client("client-1", lock::wall_clock_client("client-1", TTL, work))
        } else {
            service.client(
                "client-1",
                lock::client("client-1", TTL, work, Duration::ZERO),
            )
        };
        settings.wall_step_back(Duration::from_secs(6), Duration::from_secs(5));
        service.client(
            "client-2",
            lock::client("client-2", TTL, Duration::ZERO, PREPARE),
        );
        service.run().unwrap()
    };
    let wall = run_with(true);
    assert_eq!(
        notes(&wall, "storage"),
        [
            (10_048 * MS, "accepts client-2 token 2".to_string()),
            (12_007 * MS, "accepts client-1 token 1".to_string()),
        ]
    );
    // The same client on `Instant` finds its lease gone whatever the wall clock says.
    let instant = run_with(false);
    assert_eq!(
        notes(&instant, "client-1"),
        [(
            12_004 * MS,
            "lost its lease, and does not write".to_string()
        )]
    );
    assert_eq!(
        notes(&instant, "storage"),
        [(10_048 * MS, "accepts client-2 token 2".to_string())]
    );
}

/// holder-1's crystal runs 500 ppm slow. Its grant's answer arrives at 0.004 s of physical
/// time, when its `Instant` reads 0.004 x 0.9995 = 3.998 ms; its lease ends when that reads
/// 10.003998 s, and tokio's timer fires on the millisecond tick at or after it: 10.004 s of its
/// clock, physical 10.004 / 0.9995 = 10.009004502... s, so 10,009,004,503 ns. The lock service,
/// whose clock is true, let the lease go at 10.003 s; holder-2 asks at 10 s, is granted at
/// 10.003 s and holds it from 10.004 s. Both hold it for 5,004,503 ns; with an accurate crystal
/// holder-1 gives it up at 10.004 s, the moment holder-2 takes it.
#[test]
fn a_holder_with_a_slow_crystal_overlaps_the_next_holder_by_the_predicted_time() {
    let overlap_ns = |drift_ppm: f64| {
        let mut service = Service::new();
        service.host("lock", || lock::lock_service(TTL));
        service
            .client("holder-1", lock::hold("holder-1", TTL))
            .drift_ppm(drift_ppm);
        service.client("holder-2", async {
            tokio::time::sleep(Duration::from_secs(10)).await;
            lock::hold("holder-2", TTL).await
        });
        let run = service.run().unwrap();
        let gives_up = run
            .first_note("holder-1", "gives the lease up")
            .unwrap()
            .at_ns;
        let takes = run.first_note("holder-2", "holds the lease").unwrap().at_ns;
        assert_eq!(takes, 10_004 * MS);
        gives_up as i64 - takes as i64
    };
    assert_eq!(overlap_ns(-500.0), 5_004_503);
    assert_eq!(overlap_ns(0.0), 0);
}

/// The book's picture of the unfenced GC pause (docs/service-gc-pause.svg) is this run's: a
/// change that draws it differently fails here, and `TICKLAB_DRAW_BOOK=1` draws it anew.
#[test]
fn the_books_picture_of_the_gc_pause_is_this_runs() {
    let run = gc_pause(false);
    let svg = run.svg();
    let book =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/service-gc-pause.svg");
    if std::env::var_os("TICKLAB_DRAW_BOOK").is_some() {
        run.write_svg(&book).unwrap();
    }
    let drawn = std::fs::read_to_string(&book).unwrap_or_default();
    assert!(
        drawn == svg,
        "docs/service-gc-pause.svg is not this run's picture: draw it anew with \
         `TICKLAB_DRAW_BOOK=1 cargo test -p lease-service --test lease` and look at it"
    );
    // client-1's 15 s freeze is its row's one band, and storage's notes count both writes.
    assert!(svg.contains("process-suspend (1)"));
    assert!(svg.contains("note \u{201c}accepts\u{2026}\u{201d} (2)"));
}
