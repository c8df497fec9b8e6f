//! `std::thread::sleep` on a host holds that host's thread in simulated time: the call returns
//! at once, the host runs nothing until its own clock reads the sleep's end, its clocks and what
//! it sends go on from there, and its kernel takes what arrives meanwhile.

use std::time::Duration;

use ticklab::service::{Service, net, note};
use ticklab::sim::Platform;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[test]
fn a_thread_sleep_holds_its_host_and_what_it_sends_leaves_after() {
    let mut service = Service::new();
    service.run_for(secs(10));
    service.client("peer", async {
        let socket = net::UdpSocket::bind(("0.0.0.0", 7000)).await?;
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        socket.send_to(b"hello", ("sleeper", 7000)).await?;
        let mut buffer = [0; 8];
        socket.recv_from(&mut buffer).await?;
        note("hears the sleeper");
        Ok(())
    });
    service.client("sleeper", async {
        let socket = net::UdpSocket::bind(("0.0.0.0", 7000)).await?;
        let listen = tokio::task::spawn_local(async move {
            let mut buffer = [0; 8];
            socket
                .recv_from(&mut buffer)
                .await
                .map(|_| note("hears the peer"))
        });
        tokio::time::sleep(secs(1)).await;
        std::thread::sleep(secs(2));
        note("wakes");
        let sender = net::UdpSocket::bind(("0.0.0.0", 7001)).await?;
        sender.send_to(b"back", ("peer", 7000)).await?;
        listen.await??;
        Ok(())
    });
    let run = service.run().unwrap();
    // The sleep runs from 1 s to 3 s: the note after it reads 3 s on the physical timeline and
    // on the host's own Instant.
    let wakes = run.first_note("sleeper", "wakes").unwrap();
    assert_eq!((wakes.at_ns, wakes.instant_ns), (3 * S, 3 * S));
    // The peer's datagram reached the sleeper's kernel at 1.501 s; its task runs at 3 s.
    assert_eq!(
        run.first_note("sleeper", "hears the peer").unwrap().at_ns,
        3 * S
    );
    // What the sleeper sent after the sleep left at 3 s.
    assert_eq!(
        run.first_note("peer", "hears the sleeper").unwrap().at_ns,
        3 * S + MS
    );
    assert!(
        run.trace()
            .contains("1.000000000s  sleeper  thread::sleep holds its thread until 3.000000000s"),
        "{}",
        run.trace()
    );
    assert!(
        run.svg().contains("thread-sleep (1)"),
        "the picture shows it"
    );
}

#[test]
fn a_sleep_runs_on_the_hosts_own_clock_and_returns_once_its_process_can_run() {
    let mut service = Service::new();
    service.run_for(secs(60));
    service
        .client("slow-crystal", async {
            std::thread::sleep(secs(10));
            note("wakes");
            Ok(())
        })
        .drift_ppm(-500.0);
    // Linux's relative sleep counts CLOCK_MONOTONIC, which stops while the system sleeps: a
    // 10 s sleep from 1 s across a 4 s suspend from 5 s ends at 15 s.
    service
        .client("laptop", async {
            tokio::time::sleep(secs(1)).await;
            std::thread::sleep(secs(10));
            note("wakes");
            Ok(())
        })
        .platform(Platform::Linux)
        .system_suspend(secs(5), secs(4));
    // A freeze that the sleep's end falls in: the thread goes on once the process thaws, at 6 s.
    service
        .client("paused", async {
            tokio::time::sleep(secs(1)).await;
            std::thread::sleep(secs(2));
            note("wakes");
            Ok(())
        })
        .process_suspend(Duration::from_millis(2_500), Duration::from_millis(3_500));
    let run = service.run().unwrap();
    assert_eq!(run.first_note("paused", "wakes").unwrap().at_ns, 6 * S);
    // 500 ppm slow: its clock reads 10 s at 10 s / 0.9995 = 10.005002501... s, the first
    // nanosecond at or after it.
    assert_eq!(
        run.first_note("slow-crystal", "wakes").unwrap().at_ns,
        10_005_002_502
    );
    assert_eq!(run.first_note("laptop", "wakes").unwrap().at_ns, 15 * S);
    // Its Instant stopped for the 4 s asleep: it reads the 11 s the sleep ran to, not 15 s.
    let wakes = run.first_note("laptop", "wakes").unwrap();
    assert_eq!(wakes.instant_ns, 11 * S);
}
