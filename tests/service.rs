//! A service of the user's own code on hosts with clocks of their own: each test works out by
//! hand when each host does what, and checks it to the nanosecond.

use std::time::{Duration, Instant, SystemTime};

use ticklab::service::{Service, net, note};
use ticklab::sim::Platform;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// A server that echoes one byte per connection, noting each.
fn echo_server<'a>(service: &'a mut Service, name: &str) -> ticklab::service::HostSettings<'a> {
    service.host(name, || async {
        let listener = net::TcpListener::bind(("0.0.0.0", 9000)).await?;
        loop {
            let (mut stream, _) = listener.accept().await?;
            tokio::task::spawn_local(async move {
                let mut byte = [0];
                while stream.read_exact(&mut byte).await.is_ok() {
                    note("echo");
                    if stream.write_all(&byte).await.is_err() {
                        break;
                    }
                }
            });
        }
    })
}

#[test]
fn a_client_frozen_past_its_timer_connects_as_it_thaws() {
    let mut service = Service::new();
    echo_server(&mut service, "server");
    service
        .client("client", async {
            tokio::time::sleep(secs(10)).await;
            let mut stream = net::TcpStream::connect(("server", 9000)).await?;
            stream.write_all(b"x").await?;
            let mut byte = [0];
            stream.read_exact(&mut byte).await?;
            note("pong");
            Ok(())
        })
        .process_suspend(secs(5), secs(20));
    let run = service.run().unwrap();
    // The sleep falls due at 10 s, inside the freeze (5 s to 25 s): it ends as the client thaws.
    // SYN 25.000 -> server 25.001, SYN-ACK -> client 25.002, the byte -> server 25.003, echoed
    // -> client 25.004.
    assert_eq!(run.first_note("server", "echo").unwrap().at_ns, 25_003 * MS);
    assert_eq!(run.first_note("client", "pong").unwrap().at_ns, 25_004 * MS);
    assert_eq!(run.ended_at_ns(), 25_004 * MS);
}

#[test]
fn each_host_reads_its_own_clocks_at_the_same_moment() {
    let mut service = Service::new();
    service.run_for(secs(30));
    let body = || async {
        let (tokio_start, std_start) = (tokio::time::Instant::now(), Instant::now());
        let wall_start = SystemTime::now();
        tokio::time::sleep(secs(10)).await;
        let tokio_ns = tokio_start.elapsed().as_nanos();
        let std_ns = std_start.elapsed().as_nanos();
        let wall_ns = SystemTime::now().duration_since(wall_start)?.as_nanos();
        note(format!("tokio {tokio_ns} std {std_ns} wall {wall_ns}"));
        Ok(())
    };
    service.host("slow", body).drift_ppm(-500.0);
    service
        .host("stepped", body)
        .wall_step_back(secs(4), Duration::from_millis(1500));
    let run = service.run().unwrap();
    // 500 ppm slow: its Instant reads 10 s at physical 10 s / 0.9995 = 10.005002501... s.
    let slow = run.first_note("slow", "tokio").unwrap();
    assert_eq!(slow.at_ns, 10_005_002_502);
    assert_eq!(slow.instant_ns, 10 * S);
    assert_eq!(
        slow.text,
        "tokio 10000000000 std 10000000000 wall 10000000000"
    );
    // The step back moves the wall clock alone, and on that host alone.
    let stepped = run.first_note("stepped", "tokio").unwrap();
    assert_eq!(stepped.at_ns, 10 * S);
    assert_eq!(
        stepped.text,
        "tokio 10000000000 std 10000000000 wall 8500000000"
    );
    // Each host's wall clock read 10 s on from the same start as its sleep ended, by its own
    // crystal: the step back leaves one 1.5 s behind the other.
    assert_eq!(stepped.wall_ns - slow.wall_ns, -1_500_000_000);
}

#[test]
fn a_system_suspend_stops_instant_where_the_platform_does() {
    let body = || async {
        tokio::time::sleep(secs(10)).await;
        note("woke");
        Ok(())
    };
    let mut service = Service::new();
    service.run_for(secs(300));
    service
        .host("linux", body)
        .system_suspend(secs(5), secs(100));
    service
        .host("windows", body)
        .platform(Platform::Windows)
        .system_suspend(secs(5), secs(100));
    let run = service.run().unwrap();
    // Linux's CLOCK_MONOTONIC stops for the 100 s: 5 s before, 5 s after, at 110 s. Windows'
    // counts it: the sleep is long due as the machine wakes at 105 s.
    assert_eq!(run.first_note("linux", "woke").unwrap().at_ns, 110 * S);
    assert_eq!(run.first_note("windows", "woke").unwrap().at_ns, 105 * S);
}

#[test]
fn a_frozen_kernel_queues_datagrams_and_a_sleeping_one_loses_them() {
    let receiver = || async {
        let socket = net::UdpSocket::bind(("0.0.0.0", 7000)).await?;
        let mut buf = [0; 16];
        loop {
            let (len, _) = socket.recv_from(&mut buf).await?;
            note(String::from_utf8_lossy(&buf[..len]).into_owned());
        }
    };
    let mut service = Service::new();
    service.run_for(secs(60));
    service
        .host("frozen", receiver)
        .process_suspend(secs(5), secs(10));
    service
        .host("asleep", receiver)
        .system_suspend(secs(5), secs(10));
    service.client("sender", async {
        tokio::time::sleep(secs(6)).await;
        let socket = net::UdpSocket::bind(("0.0.0.0", 0)).await?;
        socket.send_to(b"during", ("frozen", 7000)).await?;
        socket.send_to(b"during", ("asleep", 7000)).await?;
        tokio::time::sleep(secs(14)).await;
        socket.send_to(b"after", ("frozen", 7000)).await?;
        socket.send_to(b"after", ("asleep", 7000)).await?;
        tokio::time::sleep(secs(1)).await;
        Ok(())
    });
    let run = service.run().unwrap();
    let texts = |host| {
        run.notes_on(host)
            .map(|note| (note.at_ns, note.text.clone()))
            .collect::<Vec<_>>()
    };
    // Sent at 6 s, arrived at 6.001 s: the frozen process reads it as it thaws at 15 s.
    assert_eq!(
        texts("frozen"),
        [(15 * S, "during".into()), (20 * S + MS, "after".into())]
    );
    assert_eq!(texts("asleep"), [(20 * S + MS, "after".to_string())]);
    assert!(
        run.trace()
            .contains("6.001000000s  asleep  lost a datagram from sender (asleep)")
    );
}

#[test]
fn a_partition_holds_tcp_until_it_heals() {
    let mut service = Service::new();
    echo_server(&mut service, "server");
    service.partition("client", "server", secs(2), secs(8));
    service.client("client", async {
        let mut stream = net::TcpStream::connect(("server", 9000)).await?;
        let mut byte = [0];
        tokio::time::sleep(secs(3)).await;
        stream.write_all(b"x").await?;
        stream.read_exact(&mut byte).await?;
        note("pong");
        Ok(())
    });
    let run = service.run().unwrap();
    // Connected by 2 ms; the byte sent at 3.002 s waits for the heal at 10 s, arrives 10.001 s,
    // and the echo is back at 10.002 s.
    assert_eq!(run.first_note("client", "pong").unwrap().at_ns, 10_002 * MS);
}

#[test]
fn nothing_listening_refuses_the_connection() {
    let mut service = Service::new();
    service.host("server", || async { Ok(()) });
    service.client("client", async {
        let refused = net::TcpStream::connect(("server", 9000)).await.unwrap_err();
        note(format!("{:?}", refused.kind()));
        Ok(())
    });
    let run = service.run().unwrap();
    let note = run.first_note("client", "").unwrap();
    assert_eq!(
        (note.at_ns, note.text.as_str()),
        (2 * MS, "ConnectionRefused")
    );
}

#[test]
fn what_the_simulation_cannot_see_fails_the_run() {
    let mut service = Service::new();
    service.host("threads", || async {
        std::thread::spawn(|| ()).join().ok();
        Ok(())
    });
    let failure = service.run().unwrap_err().to_string();
    assert!(
        failure.starts_with("the code on host `threads` started a thread"),
        "{failure}"
    );
}

#[test]
fn a_client_that_never_returns_fails_and_an_error_names_its_host() {
    let mut service = Service::new();
    service.run_for(secs(5));
    service.client("stuck", std::future::pending());
    assert_eq!(
        service.run().unwrap_err().to_string(),
        "the run's 5.000000000s ran out before client `stuck` returned"
    );
    let mut service = Service::new();
    service.client("failing", async { Err("no quorum".into()) });
    assert_eq!(
        service.run().unwrap_err().to_string(),
        "host `failing` returned an error: no quorum"
    );
}

#[test]
fn the_same_service_gives_the_same_trace() {
    let trace = || {
        let mut service = Service::new();
        service.run_for(secs(20));
        echo_server(&mut service, "server").process_suspend(secs(3), secs(4));
        for name in ["a", "b"] {
            service.client(name, async {
                let mut stream = net::TcpStream::connect(("server", 9000)).await?;
                let mut interval = tokio::time::interval(Duration::from_millis(700));
                for _ in 0..10 {
                    interval.tick().await;
                    stream.write_all(b"x").await?;
                    let mut byte = [0];
                    stream.read_exact(&mut byte).await?;
                    note("pong");
                }
                Ok(())
            });
        }
        service.run().unwrap().trace()
    };
    let first = trace();
    assert_eq!(first, trace());
    assert!(
        first.contains("3.000000000s  server  process-suspend for 4s begins"),
        "{first}"
    );
    assert_eq!(first.matches("pong").count(), 20, "{first}");
}

#[test]
fn a_host_whose_tasks_never_wait_fails_the_run_naming_it() {
    let mut service = Service::new();
    service.host("spinner", || async {
        loop {
            tokio::task::yield_now().await;
        }
    });
    let failure = service.run().unwrap_err().to_string();
    assert!(
        failure.starts_with("host `spinner`'s tasks never all waited at 0.000000000s"),
        "{failure}"
    );
}

#[test]
fn the_work_bound_counts_every_host_step() {
    let ticker = || async {
        let mut interval = tokio::time::interval(Duration::from_millis(10));
        loop {
            interval.tick().await;
        }
    };
    let mut service = Service::new();
    service.run_for(secs(1));
    service.host("a", ticker);
    service.host("b", ticker);
    // Each host starts, then wakes every 10 ms from 10 ms to 990 ms: 2 x (1 + 99) steps. tokio's
    // wheel also wakes its runtime where a timer moves down a level, at the start of a 64 ms
    // slot: at most 16 more a host in a second.
    let steps = service.run().unwrap().steps();
    assert!((200..=232).contains(&steps), "{steps}");
    let mut service = Service::new();
    service.run_for(secs(1));
    service.max_events(150);
    service.host("a", ticker);
    service.host("b", ticker);
    let failure = service.run().unwrap_err().to_string();
    assert!(
        failure.starts_with("the run stepped its hosts more than 150 times by 0."),
        "{failure}"
    );
}

#[test]
fn real_time_blocking_on_a_host_is_a_warning_naming_it() {
    let mut service = Service::new();
    service.run_for(secs(2));
    service.warn_when_blocked_for(Duration::from_millis(20));
    service.host("blocked", || async {
        tokio::time::sleep(secs(1)).await;
        // A real socket's timed receive waits 60 ms of real time in the kernel, unseen.
        let socket = std::net::UdpSocket::bind("127.0.0.1:0")?;
        socket.set_read_timeout(Some(Duration::from_millis(60)))?;
        let _ = socket.recv(&mut [0; 1]);
        Ok(())
    });
    let run = service.run().unwrap();
    // A slow start on a loaded machine may add a warning at 0 s; the block is the one at 1 s.
    let blocked: Vec<&String> = run
        .warnings()
        .iter()
        .filter(|warning| warning.contains("without waiting at 1.000000000s"))
        .collect();
    assert_eq!(blocked.len(), 1, "{:?}", run.warnings());
    assert!(
        blocked[0].starts_with("host `blocked`'s code ran for "),
        "{}",
        blocked[0]
    );
}

const THREE_HOSTS: &str = r#"
about = "three hosts"
platform = "linux"
run_for = "10s"

[model]
kind = "hosts"
network = "events"
latency = "2ms"

[[model.host]]
name = "a"

[[model.host.fault]]
kind = "process-suspend"
at = "2s"
duration = "3s"

[[model.host]]
name = "b"
platform = "windows"

[[model.host]]
name = "c"

[model.heartbeat]
every = "1s"
suspect_after = "3s"
"#;

#[test]
fn a_hosts_file_gives_the_hosts_their_faults_and_network() {
    let mut service = Service::parse("three.toml", THREE_HOSTS).unwrap();
    let beat = || async {
        let socket = net::UdpSocket::bind(("0.0.0.0", 9)).await?;
        socket.send_to(b"x", ("c", 9)).await?;
        std::future::pending::<()>().await;
        Ok(())
    };
    service.host("a", beat);
    service.host("b", beat);
    service.host("c", || async {
        let socket = net::UdpSocket::bind(("0.0.0.0", 9)).await?;
        let mut buf = [0; 1];
        loop {
            let (_, from) = socket.recv_from(&mut buf).await?;
            note(net::reverse_lookup(from.ip()).unwrap());
        }
    });
    let run = service.run().unwrap();
    // The file's 2 ms links; a's freeze (2 s to 5 s) does not touch its send at 0 s.
    let heard: Vec<(u64, &str)> = run
        .notes_on("c")
        .map(|note| (note.at_ns, note.text.as_str()))
        .collect();
    assert_eq!(heard, [(2 * MS, "a"), (2 * MS, "b")]);
    assert!(
        run.trace()
            .contains("2.000000000s  a  process-suspend for 3s begins")
    );
    assert_eq!(run.ended_at_ns(), 10 * S);
}

#[test]
fn a_declaration_that_cannot_run_is_refused_naming_what_is_wrong() {
    let failure = |service: Service| service.run().unwrap_err().to_string();
    let mut service = Service::parse("three.toml", THREE_HOSTS).unwrap();
    service.host("a", || async { Ok(()) });
    service.host("b", || async { Ok(()) });
    assert_eq!(
        failure(service),
        "host `c` was given no code: give it some with `host` or `client`"
    );
    let mut service = Service::parse("three.toml", THREE_HOSTS).unwrap();
    service.host("d", || async { Ok(()) });
    assert_eq!(
        failure(service),
        "three.toml declares no host `d`; its hosts are a, b, c"
    );
    let mut service = Service::new();
    service.host("a", || async { Ok(()) });
    service.host("a", || async { Ok(()) });
    assert_eq!(
        failure(service),
        "host `a` was given code twice; each host runs one"
    );
    let mut service = Service::new();
    service.host("a", || async { Ok(()) });
    service.partition("a", "z", secs(1), secs(1));
    assert_eq!(
        failure(service),
        "a partition or spike names `z`, which is no host"
    );
    let mut service = Service::new();
    service.host("a", || async { Ok(()) }).drift_ppm(2e6);
    assert_eq!(
        failure(service),
        "host `a`: a drift of 2000000 ppm is beyond the 100000 ppm any crystal could be off"
    );
}

#[test]
fn a_file_a_service_cannot_run_is_refused_with_the_loaders_error() {
    let interval = "about = \"a tick\"\nplatform = \"linux\"\nrun_for = \"1s\"\n\n[model]\nkind = \"interval\"\nperiod = \"1s\"\nmissed_tick = \"burst\"\n";
    let error = Service::parse("interval.toml", interval)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("a service runs on the hosts of a `kind = \"hosts\"` scenario"),
        "{error}"
    );
    let machine = THREE_HOSTS.replace(
        "[[model.host]]\nname = \"c\"",
        "[[model.host]]\nname = \"c\"\n\n[model.host.machine]\ncores = 2",
    );
    let error = Service::parse("machine.toml", &machine)
        .unwrap_err()
        .to_string();
    assert!(error.contains("host `c` has a [machine]"), "{error}");
    let typo = THREE_HOSTS.replace("latency = \"2ms\"", "latencyy = \"2ms\"");
    let error = Service::parse("typo.toml", &typo).unwrap_err().to_string();
    assert!(error.contains("typo.toml:9:1"), "{error}");
    assert!(error.contains("latency"), "{error}");
    assert!(Service::load("no/such/file.toml").is_err());
}

#[test]
fn a_lossy_link_loses_datagrams_and_delays_tcp_by_its_retransmission_timeouts() {
    let lossy = |seed: u64| {
        let mut service = Service::new();
        service.run_for(secs(120)).loss(0.25).seed(seed);
        echo_server(&mut service, "server");
        service.host("sink", || async {
            let socket = net::UdpSocket::bind(("0.0.0.0", 7)).await?;
            let mut buf = [0; 4];
            loop {
                socket.recv_from(&mut buf).await?;
                note("datagram");
            }
        });
        service.client("client", async {
            let socket = net::UdpSocket::bind(("0.0.0.0", 0)).await?;
            for _ in 0..400 {
                socket.send_to(b"x", ("sink", 7)).await?;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let mut stream = net::TcpStream::connect(("server", 9000)).await?;
            for round in 0..40u8 {
                let began = tokio::time::Instant::now();
                stream.write_all(&[round]).await?;
                let mut byte = [0];
                stream.read_exact(&mut byte).await?;
                assert_eq!(byte[0], round, "TCP keeps its bytes and their order");
                note(format!("{}", began.elapsed().as_millis()));
            }
            Ok(())
        });
        service.run().unwrap()
    };
    let run = lossy(1);
    let received = run.notes_on("sink").count();
    let lost = run
        .trace()
        .matches("lost a datagram to sink (loss)")
        .count();
    assert_eq!(received + lost, 400);
    // A quarter lost, give or take: 100 expected, with a standard deviation of 8.7.
    assert!((60..=140).contains(&lost), "{lost}");
    // Each way, a copy lost waits 200 ms, then 400 ms, ...: a round trip takes its 2 ms plus a
    // sum of such waits, one for each way.
    let waits: Vec<u64> = (0..6).map(|lost| 200 * ((1 << lost) - 1)).collect();
    let round_trips: Vec<u64> = run
        .notes_on("client")
        .map(|note| note.text.parse().unwrap())
        .collect();
    assert_eq!(round_trips.len(), 40);
    for &rtt in &round_trips {
        let late = rtt - 2;
        assert!(
            waits
                .iter()
                .any(|a| waits.contains(&(late.wrapping_sub(*a)))),
            "{rtt} ms is 2 ms and no two runs of retransmissions"
        );
    }
    assert!(round_trips.iter().any(|&rtt| rtt > 2), "{round_trips:?}");
    assert_eq!(lossy(1).trace(), run.trace());
    assert_ne!(lossy(2).trace(), run.trace());
}

#[test]
fn each_client_returns_once_in_the_trace_and_the_last_ends_the_run() {
    let mut service = Service::new();
    echo_server(&mut service, "server");
    for (name, after_ms) in [("early", 100), ("late", 300)] {
        service.client(name, async move {
            let mut stream = net::TcpStream::connect(("server", 9000)).await?;
            tokio::task::spawn_local(async move {
                // A task of the client's that outlives its code, and keeps its host stepping.
                let mut byte = [0];
                loop {
                    stream.write_all(b"x").await.ok();
                    stream.read_exact(&mut byte).await.ok();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
            tokio::time::sleep(Duration::from_millis(after_ms)).await;
            Ok(())
        });
    }
    let run = service.run().unwrap();
    let trace = run.trace();
    assert_eq!(trace.matches("  early  returned").count(), 1, "{trace}");
    assert_eq!(trace.matches("  late  returned").count(), 1, "{trace}");
    // Connected at 2 ms, then 300 ms of sleep.
    assert_eq!(run.ended_at_ns(), 302 * MS);
}

#[test]
fn a_host_frozen_from_the_start_starts_as_it_thaws_and_no_hosts_is_refused() {
    let mut service = Service::new();
    service.run_for(secs(10));
    service
        .host("late", || async {
            note("up");
            Ok(())
        })
        .process_suspend(Duration::ZERO, secs(5));
    let run = service.run().unwrap();
    assert_eq!(
        run.trace(),
        "0.000000000s  late  process-suspend for 5s begins\n\
         5.000000000s  late  process-suspend for 5s ends\n\
         5.000000000s  late  starts\n\
         5.000000000s  late  instant 5.000000000s  wall 2026-01-01T00:00:05.000000000Z  up\n"
    );
    assert_eq!(
        Service::new().run().unwrap_err().to_string(),
        "the service has no hosts: give it some with `host` or `client`"
    );
}

/// Code blocked for good in the kernel cannot be reached by an error: the process stops, naming
/// the host. The test runs itself again as the process that stops.
#[test]
fn a_host_blocked_for_good_stops_the_process_naming_it() {
    const CHILD: &str = "TICKLAB_TEST_SERVICE_STUCK";
    if std::env::var_os(CHILD).is_some() {
        let mut service = Service::new();
        service.stop_when_stuck_for(Duration::from_millis(500));
        service.host("stuck", || async {
            tokio::time::sleep(secs(3)).await;
            // A real socket's receive, with nothing ever sent to it.
            let socket = std::net::UdpSocket::bind("127.0.0.1:0")?;
            socket.recv(&mut [0; 1])?;
            Ok(())
        });
        let _ = service.run();
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_host_blocked_for_good_stops_the_process_naming_it",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(
            "ticklab::service: host `stuck`'s code has held the thread every host runs on for "
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("since 3.000000000s of physical time"),
        "{stderr}"
    );
}

#[test]
fn a_port_taken_is_refused_and_keeps_its_socket() {
    let mut service = Service::new();
    service.host("server", || async {
        let socket = net::UdpSocket::bind(("0.0.0.0", 7)).await?;
        let again = net::UdpSocket::bind(("0.0.0.0", 7)).await.unwrap_err();
        note(format!("{:?}", again.kind()));
        let listener = net::TcpListener::bind(("0.0.0.0", 7)).await?;
        let twice = net::TcpListener::bind(("0.0.0.0", 7)).await.unwrap_err();
        note(format!("{:?}", twice.kind()));
        let mut buf = [0; 2];
        let (len, _) = socket.recv_from(&mut buf).await?;
        note(String::from_utf8_lossy(&buf[..len]).into_owned());
        drop(listener);
        Ok(())
    });
    service.client("client", async {
        net::UdpSocket::bind(("0.0.0.0", 0))
            .await?
            .send_to(b"hi", ("server", 7))
            .await?;
        tokio::time::sleep(secs(1)).await;
        Ok(())
    });
    let run = service.run().unwrap();
    let texts: Vec<&str> = run
        .notes_on("server")
        .map(|note| note.text.as_str())
        .collect();
    assert_eq!(texts, ["AddrInUse", "AddrInUse", "hi"]);
}
