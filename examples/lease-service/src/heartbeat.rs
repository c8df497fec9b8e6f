//! A heartbeat failure detector: every host sends a beat every `every` to the next `peers`
//! hosts, and suspects a peer it has not heard from for `suspect_after` of its `Instant`. It is
//! the protocol of ticklab's built-in `[model.heartbeat]`, written as a service would write it:
//! a sender task, a receiver, and a watcher task per peer.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ticklab::service::note;
use tokio::sync::Notify;
use tokio::time::{Instant, sleep, sleep_until};

use crate::net::{UdpSocket, reverse_lookup};

/// Where every host listens for beats.
pub const PORT: u16 = 7946;

#[derive(Clone, Copy, Debug)]
pub struct Detector {
    pub every: Duration,
    pub suspect_after: Duration,
    pub peers: usize,
}

/// What a host knows of one peer it watches.
#[derive(Debug)]
struct Watch {
    peer: String,
    last_heard: Instant,
    suspected: bool,
    heard: Rc<Notify>,
}

/// Runs the detector on host `me`, one of `hosts` (in the ring's order), for ever.
pub async fn run(me: String, hosts: Vec<String>, detector: Detector) -> ticklab::service::Result {
    let n = hosts.len();
    let position = hosts
        .iter()
        .position(|host| *host == me)
        .ok_or("not in the ring")?;
    let peers = detector.peers.min(n - 1);
    let targets: Vec<String> = (1..=peers)
        .map(|k| hosts[(position + k) % n].clone())
        .collect();
    let now = Instant::now();
    let watches: Rc<RefCell<Vec<Watch>>> = Rc::new(RefCell::new(
        (1..=peers)
            .map(|k| Watch {
                peer: hosts[(position + n - k) % n].clone(),
                last_heard: now,
                suspected: false,
                heard: Rc::new(Notify::new()),
            })
            .collect(),
    ));
    let socket = Rc::new(UdpSocket::bind(("0.0.0.0", PORT)).await?);
    let sender = Rc::clone(&socket);
    tokio::task::spawn_local(async move {
        loop {
            for target in &targets {
                let _ = sender.send_to(b"beat", (target.as_str(), PORT)).await;
            }
            sleep(detector.every).await;
        }
    });
    for index in 0..peers {
        tokio::task::spawn_local(watch(Rc::clone(&watches), index, detector.suspect_after));
    }
    let mut buf = [0; 16];
    loop {
        let (_, from) = socket.recv_from(&mut buf).await?;
        let Some(from) = reverse_lookup(from.ip()) else {
            continue;
        };
        let mut watches = watches.borrow_mut();
        let Some(watch) = watches.iter_mut().find(|watch| watch.peer == from) else {
            continue;
        };
        watch.last_heard = Instant::now();
        if watch.suspected {
            watch.suspected = false;
            note(format!("hears from {from} again"));
            watch.heard.notify_one();
        }
    }
}

/// Suspects watch `index`'s peer once it has been silent for `suspect_after`, until it is heard
/// from again.
async fn watch(watches: Rc<RefCell<Vec<Watch>>>, index: usize, suspect_after: Duration) {
    loop {
        let deadline = watches.borrow()[index].last_heard + suspect_after;
        sleep_until(deadline).await;
        let heard = {
            let mut watches = watches.borrow_mut();
            let watch = &mut watches[index];
            if watch.last_heard.elapsed() < suspect_after {
                continue;
            }
            watch.suspected = true;
            note(format!("suspects {}", watch.peer));
            Rc::clone(&watch.heard)
        };
        heard.notified().await;
    }
}
