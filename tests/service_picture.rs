//! A service run's picture: a row per host with its own faults, the network's windows that struck
//! it and its notes, then every host's clocks; the same run draws the same bytes, and a plot
//! never replaces a file the user wrote.

use std::time::Duration;

use ticklab::service::{Service, ServiceRun, net, note};
use ticklab::sim::Platform;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// Three hosts that beat to each other over UDP every second and note each beat they hear, one
/// frozen, one whose wall clock is stepped back and whose crystal runs slow, one whose Linux
/// system sleeps; and a partition between the first two.
fn three_hosts() -> ServiceRun {
    let mut service = Service::new();
    service
        .run_for(secs(30))
        .partition("a", "b", secs(12), secs(3));
    let beat = |peers: [&'static str; 2]| {
        move || async move {
            let socket = net::UdpSocket::bind(("0.0.0.0", 7000)).await?;
            let mut every = tokio::time::interval(secs(1));
            let mut buffer = [0; 8];
            loop {
                tokio::select! {
                    _ = every.tick() => {
                        for peer in peers {
                            socket.send_to(b"beat", (peer, 7000)).await?;
                        }
                    }
                    received = socket.recv_from(&mut buffer) => {
                        let (_, from) = received?;
                        let from = net::reverse_lookup(from.ip()).unwrap_or_default();
                        note(format!("hears {from}"));
                    }
                }
            }
        }
    };
    service
        .host("a", beat(["b", "c"]))
        .process_suspend(secs(5), secs(5));
    service
        .host("b", beat(["a", "c"]))
        .drift_ppm(-500.0)
        .wall_step_back(secs(4), Duration::from_millis(1500));
    service
        .host("c", beat(["a", "b"]))
        .platform(Platform::Linux)
        .system_suspend(secs(20), secs(4));
    service.run().unwrap()
}

#[test]
fn each_host_has_a_row_with_its_faults_network_windows_and_notes() {
    let run = three_hosts();
    let svg = run.svg();
    assert!(svg.starts_with("<svg"), "an SVG document");
    for name in ["a on linux", "b on linux", "c on linux"] {
        assert!(svg.contains(name), "the title names {name}");
    }
    // One of each fault, counted in the legend, and the partition between a and b.
    for entry in [
        "process-suspend (1)",
        "system-suspend (1)",
        "wall-step (1)",
        "partition (1)",
    ] {
        assert!(svg.contains(entry), "the legend has {entry}");
    }
    let heard = run
        .notes()
        .iter()
        .filter(|note| note.text.starts_with("hears"))
        .count();
    assert!(heard > 50, "the hosts heard each other: {heard} beats");
    assert!(
        svg.contains(&format!("note \u{201c}hears\u{2026}\u{201d} ({heard})")),
        "the legend counts every note by its first word"
    );
    // Every host's line in both clock panels.
    // c's Instant stopped for its 4 s asleep and b's wall clock was stepped back: both strayed.
    assert!(svg.contains("each host&apos;s Instant, less physical time\n"));
    assert!(svg.contains("each host&apos;s wall clock, less true time\n"));
    assert_eq!(
        svg,
        three_hosts().svg(),
        "the same run draws the same bytes"
    );
}

#[test]
fn a_rare_note_stands_out_and_hosts_past_the_rows_are_counted() {
    let mut service = Service::new();
    service.run_for(secs(10));
    for index in 0..45 {
        let name = format!("idle-{index:02}");
        service.host(&name, || async {
            std::future::pending::<()>().await;
            Ok(())
        });
    }
    service
        .host("odd", || async {
            tokio::time::sleep(secs(3)).await;
            note("once");
            std::future::pending::<()>().await;
            Ok(())
        })
        .process_suspend(secs(6), secs(1));
    let svg = service.run().unwrap().svg();
    // 46 hosts, 40 rows: the two that did something are kept, 6 quiet ones are left out.
    assert!(
        svg.contains("(6 more hosts not shown)"),
        "the caption counts them"
    );
    assert!(
        svg.contains("\nodd\n"),
        "the host with a note and a freeze has its row"
    );
    assert!(svg.contains("note \u{201c}once\u{2026}\u{201d} (1)"));
    // A freeze stops no clock: none strayed, and 8 of the 46 are drawn.
    assert!(
        svg.contains("less physical time: none strayed (38 more hosts not drawn)"),
        "8 lines per clock panel"
    );
}

#[test]
fn write_svg_replaces_its_own_plot_and_never_a_users_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = three_hosts();
    let plot = dir.path().join("run.svg");
    run.write_svg(&plot).unwrap();
    assert_eq!(std::fs::read_to_string(&plot).unwrap(), run.svg());
    run.write_svg(&plot)
        .expect("an earlier service run's plot is replaced");
    let users = dir.path().join("notes.svg");
    std::fs::write(&users, "<svg>mine</svg>").unwrap();
    let refused = run.write_svg(&users).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::AlreadyExists);
    assert!(refused.to_string().contains("not drawn from a service run"));
    assert_eq!(std::fs::read_to_string(&users).unwrap(), "<svg>mine</svg>");
}
