//! A lock service with leases, a storage service, and clients that write under a lease: the
//! recipe whose flaw Kleppmann's "How to do distributed locking" describes. A client checks its
//! lease, then writes; a pause between the two (a GC, SIGSTOP) lets the lease expire and pass to
//! another client, and the late write lands after the new holder's. Fencing tokens (the lock
//! service's grant counter, which storage refuses to see go back) stop it.

use std::cell::{Cell, RefCell};
use std::time::{Duration, SystemTime};

use ticklab::service::note;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::{Instant, sleep};

use crate::net::{TcpListener, TcpStream};

pub const LOCK_PORT: u16 = 7000;
pub const STORAGE_PORT: u16 = 7001;

/// Sends one line and reads the one-line answer, on a connection of its own.
async fn ask(host: &str, port: u16, line: String) -> std::io::Result<String> {
    let stream = TcpStream::connect((host, port)).await?;
    let (read, mut write) = stream.into_split();
    write.write_all(line.as_bytes()).await?;
    let mut answer = String::new();
    BufReader::new(read).read_line(&mut answer).await?;
    Ok(answer.trim_end().to_string())
}

/// Answers each connection's one line with `answer`.
async fn serve(
    port: u16,
    mut answer: impl FnMut(&str) -> String + 'static,
) -> ticklab::service::Result {
    let listener = TcpListener::bind(("0.0.0.0", port)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let (read, mut write) = stream.into_split();
        let mut line = String::new();
        BufReader::new(read).read_line(&mut line).await?;
        let reply = answer(line.trim_end());
        write.write_all(format!("{reply}\n").as_bytes()).await?;
    }
}

/// The lock service: `ACQUIRE <client>` is granted, with the next fencing token, while no
/// lease is held or the last one has expired by the service's own `Instant`.
pub async fn lock_service(ttl: Duration) -> ticklab::service::Result {
    let holder: RefCell<Option<Instant>> = RefCell::new(None);
    let tokens = Cell::new(0u64);
    serve(LOCK_PORT, move |line| {
        let client = line.strip_prefix("ACQUIRE ").unwrap_or("?");
        let now = Instant::now();
        if holder.borrow().is_some_and(|expires| now < expires) {
            return "BUSY".to_string();
        }
        *holder.borrow_mut() = Some(now + ttl);
        tokens.set(tokens.get() + 1);
        note(format!("grants {client} token {}", tokens.get()));
        format!("GRANTED {}", tokens.get())
    })
    .await
}

/// Storage: `WRITE <client> <token>` is accepted, unless it is fenced and a later token has
/// been seen.
pub async fn storage(fenced: bool) -> ticklab::service::Result {
    let highest = Cell::new(0u64);
    serve(STORAGE_PORT, move |line| {
        let mut words = line.split(' ').skip(1);
        let client = words.next().unwrap_or("?").to_string();
        let token: u64 = words.next().and_then(|t| t.parse().ok()).unwrap_or(0);
        if fenced && token < highest.get() {
            note(format!("rejects {client} token {token}"));
            return "REJECTED".to_string();
        }
        highest.set(highest.get().max(token));
        note(format!("accepts {client} token {token}"));
        "OK".to_string()
    })
    .await
}

/// Asks for the lease until it is granted (again a second after each refusal): its token.
async fn acquire(name: &str) -> std::io::Result<String> {
    loop {
        let answer = ask("lock", LOCK_PORT, format!("ACQUIRE {name}\n")).await?;
        if let Some(token) = answer.strip_prefix("GRANTED ") {
            return Ok(token.to_string());
        }
        sleep(Duration::from_secs(1)).await;
    }
}

/// Holds the lease for `ttl` by this host's `Instant` from when the grant came, noting when it
/// takes it and when it gives it up.
pub async fn hold(name: &str, ttl: Duration) -> ticklab::service::Result {
    let token = acquire(name).await?;
    let expires = Instant::now() + ttl;
    note(format!("holds the lease with token {token}"));
    tokio::time::sleep_until(expires).await;
    note("gives the lease up");
    Ok(())
}

/// As [`client`], with the lease timed on the wall clock (`SystemTime`), as a client that
/// compares the lock service's expiry time with its own clock does.
pub async fn wall_clock_client(
    name: &str,
    ttl: Duration,
    work: Duration,
) -> ticklab::service::Result {
    let token = acquire(name).await?;
    let expires = SystemTime::now() + ttl;
    sleep(work).await;
    if SystemTime::now() >= expires {
        note("lost its lease, and does not write");
        return Ok(());
    }
    let answer = ask("storage", STORAGE_PORT, format!("WRITE {name} {token}\n")).await?;
    note(format!("wrote with token {token}: {answer}"));
    Ok(())
}

/// A client: takes the lease once it is free (asking again every second), works for `work`
/// while its lease lasts by its own `Instant`, checks it still holds it, spends `prepare`
/// getting the write ready, and writes.
pub async fn client(
    name: &str,
    ttl: Duration,
    work: Duration,
    prepare: Duration,
) -> ticklab::service::Result {
    let token = acquire(name).await?;
    // The lease runs from when the answer came, on this host's own clock.
    let expires = Instant::now() + ttl;
    sleep(work).await;
    if Instant::now() >= expires {
        note("lost its lease, and does not write");
        return Ok(());
    }
    sleep(prepare).await;
    let answer = ask("storage", STORAGE_PORT, format!("WRITE {name} {token}\n")).await?;
    note(format!("wrote with token {token}: {answer}"));
    Ok(())
}
