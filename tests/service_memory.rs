//! A service run's memory bound counts its hosts: their runtimes, their sockets and what waits in
//! them unread, the segments on their way, the notes and the trace. The count must cover what the
//! run really allocates (an allocator that counts every byte says so) without being far above it;
//! a service that piles up what it is sent fails, naming it; one whose hosts alone pass the bound
//! is refused before it runs.
//!
//! The allocator counts every thread of the process, so the tests take turns.

use std::sync::Mutex;
use std::time::Duration;

use ticklab::measure::{CountingAllocator, live_bytes, peak_bytes, reset_peak};
use ticklab::service::{Service, net};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator;

static TURNS: Mutex<()> = Mutex::new(());

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// A server that takes connections and, if `reads`, reads everything sent; a client that sends
/// 64 KiB every millisecond for 2 s.
fn firehose(reads: bool) -> Service {
    let mut service = Service::new();
    service.run_for(secs(10));
    service.host("sink", move || async move {
        let listener = net::TcpListener::bind(("0.0.0.0", 9000)).await?;
        loop {
            let (mut stream, _) = listener.accept().await?;
            tokio::task::spawn_local(async move {
                let mut buffer = vec![0; 1 << 16];
                while reads && stream.read(&mut buffer).await.is_ok_and(|n| n > 0) {}
                std::future::pending::<()>().await;
            });
        }
    });
    service.client("hose", async {
        let mut stream = net::TcpStream::connect(("sink", 9000)).await?;
        let chunk = vec![7; 1 << 16];
        let mut every = tokio::time::interval(Duration::from_millis(1));
        for _ in 0..2_000 {
            every.tick().await;
            stream.write_all(&chunk).await?;
        }
        Ok(())
    });
    service
}

#[test]
fn the_count_covers_what_a_hundred_hosts_really_allocate() {
    let _turn = TURNS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut service = Service::new();
    service.run_for(secs(5));
    for index in 0..100 {
        service.host(&format!("host-{index}"), move || async move {
            let socket = net::UdpSocket::bind(("0.0.0.0", 7000)).await?;
            let mut every = tokio::time::interval(secs(1));
            loop {
                every.tick().await;
                let peer = format!("host-{}", (index + 1) % 100);
                socket.send_to(b"beat", (peer.as_str(), 7000)).await?;
            }
        });
    }
    let before = live_bytes();
    reset_peak();
    let run = service.run().unwrap();
    let allocated = (peak_bytes() - before) as u128;
    let counted = run.footprint().bytes();
    println!("100 hosts: allocated at most {allocated} B, counted {counted} B");
    assert!(
        counted >= allocated,
        "the count ({counted} B: {}) must cover the {allocated} B really allocated",
        run.footprint()
    );
    assert!(
        counted <= 2 * allocated,
        "the count ({counted} B) must not be far above the {allocated} B really allocated"
    );
}

#[test]
fn a_host_that_never_reads_fails_the_bound_naming_what_filled_it() {
    let _turn = TURNS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // 2,000 writes of 64 KiB: 125 MiB sent. A sink that reads holds little of it at a time.
    let mut reading = firehose(true);
    reading.max_memory(8 << 20);
    let run = reading.run().unwrap();
    let held = run.footprint().count_of("bytes sent and not yet read");
    assert!(
        held < 1 << 20,
        "a reading sink holds little unread: {held} B"
    );
    // The same hose into a sink that never reads fills the bound with unread bytes.
    let mut deaf = firehose(false);
    deaf.max_memory(8 << 20);
    let error = deaf.run().unwrap_err().to_string();
    assert!(
        error.contains("past its memory bound of 8.0 MiB"),
        "the bound is named: {error}"
    );
    assert!(
        error.contains("bytes sent and not yet read"),
        "what filled it is named: {error}"
    );
    // Steps that send a sixteenth of the bound (512 KiB, 8 chunks) bring the count forward: the
    // run stops at the first count past the bound, with 134 chunks unread (8,781,824 B), not
    // 1,024 steps (64 MiB of writes) later.
    assert!(
        error.starts_with("the run held 8.4 MiB by 0.135000000s")
            && error.contains("8781824 bytes sent and not yet read"),
        "it stops as it passes the bound: {error}"
    );
}

#[test]
fn hosts_that_alone_pass_the_bound_are_refused_before_running() {
    let _turn = TURNS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut service = Service::new();
    for index in 0..100 {
        service.host(&format!("host-{index}"), || async {
            unreachable!("a refused service runs no code")
        });
    }
    service.max_memory(1 << 20);
    let error = service.run().unwrap_err().to_string();
    assert_eq!(
        error,
        "100 hosts hold about 3.1 MiB before their code allocates anything (32.0 KiB each), past \
         the memory bound of 1.0 MiB: raise `max_memory`, or run fewer hosts"
    );
    let mut one = Service::new();
    one.host("only", || async {
        unreachable!("a refused service runs no code")
    });
    one.max_memory(0);
    assert_eq!(
        one.run().unwrap_err().to_string(),
        "1 host holds about 32.0 KiB before its code allocates anything (32.0 KiB each), past \
         the memory bound of 0 B: raise `max_memory`, or run fewer hosts"
    );
}
