//! The echo code of `src/echo.rs`, unchanged, on ticklab::service (the crate's `turmoil` is
//! ticklab) and on turmoil itself (the same source, included where `turmoil` names turmoil).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use turmoil::service::Service;
use turmoil_code::echo;

/// The same source, on turmoil itself.
mod on_turmoil {
    extern crate real_turmoil as turmoil;
    include!("../src/echo.rs");
}

const MS: Duration = Duration::from_millis(1);
const ROUNDS: u32 = 10;

/// (line, sent at, round trip) of each answer.
type Seen = Vec<(String, Duration, Duration)>;

/// The code on ticklab, the server's process frozen for `(at, for)` if given.
fn on_ticklab(server_pause: Option<(Duration, Duration)>) -> Seen {
    let seen = Arc::new(Mutex::new(Seen::new()));
    let mut service = Service::new();
    service.run_for(Duration::from_secs(60));
    let server = service.host("server", echo::server);
    if let Some((at, duration)) = server_pause {
        server.process_suspend(at, duration);
    }
    let out = Arc::clone(&seen);
    service.client("client", async move {
        let answers = echo::client("server", ROUNDS).await?;
        let answers = answers
            .into_iter()
            .map(|a| (a.line, a.sent_at, a.round_trip));
        *out.lock().unwrap() = answers.collect();
        Ok(())
    });
    service.run().unwrap();
    seen.lock().unwrap().clone()
}

fn on_turmoil() -> Seen {
    let seen = Arc::new(Mutex::new(Seen::new()));
    let mut sim = real_turmoil::Builder::new()
        .simulation_duration(Duration::from_secs(60))
        .tick_duration(MS)
        .min_message_latency(MS)
        .max_message_latency(MS)
        .build();
    sim.host("server", on_turmoil::server);
    let out = Arc::clone(&seen);
    sim.client("client", async move {
        let answers = on_turmoil::client("server", ROUNDS).await?;
        let answers = answers
            .into_iter()
            .map(|a| (a.line, a.sent_at, a.round_trip));
        *out.lock().unwrap() = answers.collect();
        Ok(())
    });
    sim.run().unwrap();
    seen.lock().unwrap().clone()
}

#[test]
fn the_same_code_answers_alike_on_turmoil_and_on_ticklab() {
    let ticklab = on_ticklab(None);
    let turmoil = on_turmoil();
    let lines = |seen: &Seen| seen.iter().map(|a| a.0.clone()).collect::<Vec<_>>();
    assert_eq!(lines(&ticklab), lines(&turmoil));
    assert_eq!(lines(&ticklab)[9], "ping 9");
    // Every round trip is two 1 ms links on both.
    for answer in ticklab.iter().chain(&turmoil) {
        assert_eq!(answer.2, 2 * MS, "{answer:?}");
    }
    // The client's first tick comes once it has connected. ticklab's connect takes the
    // handshake's round trip (SYN, SYN-ACK: 2 ms); turmoil's returns after the SYN's one link.
    for (round, (on_ticklab, on_turmoil)) in ticklab.iter().zip(&turmoil).enumerate() {
        let round = Duration::from_secs(round as u64);
        assert_eq!(on_ticklab.1, round + 2 * MS);
        assert_eq!(on_turmoil.1, round + MS);
    }
}

#[test]
fn a_gc_pause_on_the_server_shows_in_one_round_trip() {
    // What turmoil cannot do: the server's process is frozen from 3.5 s to 5.5 s.
    let seen = on_ticklab(Some((Duration::from_millis(3_500), Duration::from_secs(2))));
    // Round 4 leaves at 4.002 s and reaches the frozen server's kernel at 4.003 s; the server
    // echoes it as it thaws at 5.5 s, and the answer arrives at 5.501 s: 1.499 s.
    assert_eq!(seen[4].1, Duration::from_millis(4_002));
    assert_eq!(seen[4].2, Duration::from_millis(1_499));
    // Round 5's tick fell due at 5.002 s, while the client waited: tokio's interval fires it at
    // once, at 5.501 s, and the rounds after keep their schedule.
    assert_eq!(seen[5].1, Duration::from_millis(5_501));
    assert_eq!(seen[5].2, 2 * MS);
    assert_eq!(seen[6].1, Duration::from_millis(6_002));
    let slow: Vec<usize> = (0..seen.len()).filter(|&r| seen[r].2 > 2 * MS).collect();
    assert_eq!(slow, [4], "one round trip took the pause");
}
