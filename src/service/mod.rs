//! Your own distributed service: several hosts, each running your async code on a tokio runtime
//! of its own, with clocks and faults of its own, talking over a simulated network with
//! turmoil's types.
//!
//! A [`Service`] declares the hosts: each one's code (a server's `main`, a client), its platform,
//! its crystal's drift and wall clock offset, and its faults (system suspend, process freeze,
//! wall steps and slews), and the partitions between hosts. [`Service::run`] runs them all on
//! one physical timeline. While a host's code runs, everything it reads is that host's own:
//! tokio's clock, std's `Instant`, `SystemTime`, and libc's clock functions. Two hosts read
//! different times at the same moment, as real machines do.
//!
//! - A frozen host runs nothing and sends nothing; its clocks go on and its kernel queues what
//!   arrives, and as it thaws every timer that fell due fires at once.
//! - A host whose system sleeps stops its monotonic clock where its platform does, loses
//!   datagrams, and takes TCP's segments once it wakes.
//! - A wall step moves that host's wall clock alone.
//!
//! The network is [`net`]: `TcpListener`, `TcpStream` and `UdpSocket` with turmoil's API, and
//! [`net::lookup`] for a host's address by name. [`note`] records what the code did, with the
//! moment on the physical timeline and on the host's own clocks.
//!
//! ```
//! use std::time::Duration;
//! use ticklab::service::{Service, net, note};
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//!
//! let mut service = Service::new();
//! service.run_for(Duration::from_secs(60));
//! service.host("server", || async {
//!     let listener = net::TcpListener::bind(("0.0.0.0", 9000)).await?;
//!     loop {
//!         let (mut stream, _) = listener.accept().await?;
//!         let mut byte = [0];
//!         stream.read_exact(&mut byte).await?;
//!         note("ping");
//!         stream.write_all(&byte).await?;
//!     }
//! });
//! // The client's process is frozen from 5 s to 25 s: a GC pause.
//! service
//!     .client("client", async {
//!         tokio::time::sleep(Duration::from_secs(10)).await;
//!         let mut stream = net::TcpStream::connect(("server", 9000)).await?;
//!         stream.write_all(b"x").await?;
//!         let mut byte = [0];
//!         stream.read_exact(&mut byte).await?;
//!         note("pong");
//!         Ok(())
//!     })
//!     .process_suspend(Duration::from_secs(5), Duration::from_secs(20));
//! let run = service.run().unwrap();
//! // Its 10 s sleep ended while it was frozen: it connects as it thaws, at 25 s, and the round
//! // trip of the handshake and the ping takes four 1 ms links.
//! assert_eq!(run.first_note("client", "pong").unwrap().at_ns, 25_004_000_000);
//! ```
//!
//! `std::thread::sleep` holds the host's thread in simulated time: the host runs nothing until
//! its own clock reads the sleep's end (or, if it is frozen then, until it thaws), and its clocks
//! and what it sends go on from there.
//!
//! What cannot be brought inside fails the run, naming the host: a thread the code starts
//! (`std::thread::spawn`, `spawn_blocking`, `tokio::fs`) and a clock the machine does not have.
//! A panic in a host's task fails it too, unless [`Service::swallowing_task_panics`].
//! `std::net` sockets are real ones, outside the simulation: use [`net`]'s.

mod clockwork;
mod declare;
mod host;
mod host_settings;
pub mod net;
mod notes;
mod outcome;
mod picture;
mod picture_clocks;
mod queue;
mod record;
mod run;
mod stall;
mod sweep;
mod turmoil_names;

pub use declare::Service;
pub use host::Result;
pub use host_settings::HostSettings;
pub use notes::{HostNote, note};
pub use outcome::{ServiceError, ServiceRun};
pub use sweep::ServiceSweep;
pub use turmoil_names::{elapsed, in_simulation, sim_elapsed, since_epoch};
