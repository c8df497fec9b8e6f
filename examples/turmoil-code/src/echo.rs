// An echo server, and a client that sends a line every second and times each answer: plain
// turmoil code. (Comments here are plain `//`: a test includes this file on turmoil itself.)

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use turmoil::net::{TcpListener, TcpStream};

pub const PORT: u16 = 1738;

/// Echoes every line on every connection.
pub async fn server() -> turmoil::Result {
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let (read, mut write) = stream.into_split();
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if write
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
            }
        });
    }
}

/// One answer: what came back, when the client sent it by its own clock, and how long it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub line: String,
    pub sent_at: Duration,
    pub round_trip: Duration,
}

/// Sends `rounds` lines to `server`, one a second, and times each answer on the client's own
/// clock (`turmoil::elapsed`).
pub async fn client(server: &str, rounds: u32) -> turmoil::Result<Vec<Answer>> {
    let address = (turmoil::lookup(server), PORT);
    let stream = TcpStream::connect(address).await?;
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut answers = Vec::new();
    let mut every = tokio::time::interval(Duration::from_secs(1));
    for round in 0..rounds {
        every.tick().await;
        let sent_at = turmoil::elapsed();
        write
            .write_all(format!("ping {round}\n").as_bytes())
            .await?;
        let line = lines
            .next_line()
            .await?
            .ok_or("the server closed the connection")?;
        answers.push(Answer {
            line,
            sent_at,
            round_trip: turmoil::elapsed() - sent_at,
        });
    }
    Ok(answers)
}
