//! What every host's kernel holds of the network: listeners, connections and their buffers, and
//! the segments sent since the run last looked.
//!
//! A frozen process's kernel still takes what arrives: a segment is applied to its socket when it
//! arrives, and the task waiting on it runs once the process does. A connection is accepted by
//! the kernel, whether or not the process is running, as a real kernel completes the handshake
//! into the listen backlog.

use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::task::Waker;

/// A connection's end, by its place in [`Fabric::ends`].
pub(crate) type EndId = usize;

/// What a segment carries.
#[derive(Debug)]
pub(crate) enum Body {
    /// A connection request from `client` to a listener on `port`.
    Syn {
        client: EndId,
        port: u16,
    },
    /// The server's kernel accepted `client`'s request into `server`.
    SynAck {
        client: EndId,
        server: EndId,
    },
    /// No listener was there.
    Refused {
        client: EndId,
    },
    Data {
        end: EndId,
        bytes: Vec<u8>,
    },
    /// The sender will write no more.
    Fin {
        end: EndId,
    },
    Datagram {
        from: SocketAddr,
        port: u16,
        bytes: Vec<u8>,
    },
}

/// A segment between hosts.
#[derive(Debug)]
pub(crate) struct Segment {
    pub(crate) from: usize,
    pub(crate) to: usize,
    pub(crate) body: Body,
    /// When it leaves, if later than the step that sent it: a sleep held the sender's thread.
    pub(crate) departs_at_ns: Option<u64>,
}

impl Segment {
    /// TCP's segments arrive, late if they must (the sender's kernel sends them again); a
    /// datagram is lost.
    pub(crate) fn reliable(&self) -> bool {
        !matches!(self.body, Body::Datagram { .. })
    }

    /// The bytes it carries for the code.
    pub(crate) fn payload_len(&self) -> u64 {
        match &self.body {
            Body::Data { bytes, .. } | Body::Datagram { bytes, .. } => bytes.len() as u64,
            _ => 0,
        }
    }
}

/// What the hosts' kernels hold, for the memory bound.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KernelHoldings {
    pub(crate) ends: usize,
    /// Bytes received on connections and not yet read.
    pub(crate) received_bytes: u64,
    pub(crate) datagrams: usize,
    pub(crate) datagram_bytes: u64,
    pub(crate) sockets: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EndState {
    Connecting,
    Open,
    Refused,
}

/// One end of a TCP connection, on one host.
#[derive(Debug)]
pub(crate) struct End {
    pub(crate) host: usize,
    pub(crate) local: SocketAddr,
    pub(crate) peer: SocketAddr,
    pub(crate) peer_end: Option<EndId>,
    pub(crate) state: EndState,
    pub(crate) received: VecDeque<u8>,
    /// The peer will send no more: reads end once `received` is empty.
    pub(crate) peer_closed: bool,
    /// This end has said it will write no more.
    pub(crate) closed: bool,
    pub(crate) waker: Option<Waker>,
}

#[derive(Debug, Default)]
pub(crate) struct Listener {
    pub(crate) accepted: VecDeque<EndId>,
    pub(crate) waker: Option<Waker>,
}

#[derive(Debug, Default)]
pub(crate) struct Datagrams {
    pub(crate) queue: VecDeque<(Vec<u8>, SocketAddr)>,
    pub(crate) waker: Option<Waker>,
}

/// The first port a host hands out for a socket bound to port 0 or a connection: Linux's
/// `ip_local_port_range` starts at 32768.
const FIRST_EPHEMERAL_PORT: u16 = 32768;

#[derive(Debug)]
pub(crate) struct Fabric {
    pub(crate) names: Vec<String>,
    pub(crate) ips: Vec<IpAddr>,
    pub(crate) listeners: BTreeMap<(usize, u16), Listener>,
    pub(crate) datagrams: BTreeMap<(usize, u16), Datagrams>,
    pub(crate) ends: Vec<End>,
    next_port: Vec<u16>,
    /// Segments sent since the run last took them.
    pub(crate) outbox: Vec<Segment>,
}

impl Fabric {
    pub(crate) fn holdings(&self) -> KernelHoldings {
        let queued = self.datagrams.values().flat_map(|socket| &socket.queue);
        let (datagrams, datagram_bytes) = queued.fold((0, 0), |(n, bytes), (datagram, _)| {
            (n + 1, bytes + datagram.len() as u64)
        });
        KernelHoldings {
            ends: self.ends.len(),
            received_bytes: self.ends.iter().map(|end| end.received.len() as u64).sum(),
            datagrams,
            datagram_bytes,
            sockets: self.listeners.len() + self.datagrams.len(),
        }
    }
}

/// Host `index`'s address: `192.168.0.1` for the first, as turmoil numbers its hosts.
pub(crate) fn host_ip(index: usize) -> IpAddr {
    let n = index + 1;
    IpAddr::V4(Ipv4Addr::new(192, 168, (n / 256) as u8, (n % 256) as u8))
}

impl Fabric {
    pub(crate) fn new(names: Vec<String>) -> Fabric {
        let ips = (0..names.len()).map(host_ip).collect();
        let next_port = vec![FIRST_EPHEMERAL_PORT; names.len()];
        Fabric {
            names,
            ips,
            listeners: BTreeMap::new(),
            datagrams: BTreeMap::new(),
            ends: Vec::new(),
            next_port,
            outbox: Vec::new(),
        }
    }

    /// The host at `ip`, if any.
    pub(crate) fn host_at(&self, ip: IpAddr) -> Option<usize> {
        self.ips.iter().position(|&at| at == ip)
    }

    /// A port on `host` no socket of the kind holds, for a bind to port 0 or a connection.
    pub(crate) fn ephemeral_port(&mut self, host: usize) -> u16 {
        loop {
            let port = self.next_port[host];
            self.next_port[host] = port.checked_add(1).unwrap_or(FIRST_EPHEMERAL_PORT);
            let taken = self.listeners.contains_key(&(host, port))
                || self.datagrams.contains_key(&(host, port));
            if !taken {
                return port;
            }
        }
    }

    pub(crate) fn send(&mut self, from: usize, to: usize, body: Body) {
        let departs_at_ns = crate::service::clockwork::departs_at_ns();
        self.outbox.push(Segment {
            from,
            to,
            body,
            departs_at_ns,
        });
    }

    /// Says this end will write no more, once.
    pub(crate) fn close(&mut self, end: EndId) {
        let state = &mut self.ends[end];
        if state.closed || state.state != EndState::Open {
            return;
        }
        state.closed = true;
        if let Some(peer_end) = state.peer_end {
            let (from, to) = (state.host, self.ends[peer_end].host);
            self.send(from, to, Body::Fin { end: peer_end });
        }
    }

    /// A segment arrives at its host's kernel: what it changes, and the wakers of the tasks that
    /// wait for it.
    pub(crate) fn deliver(&mut self, segment: Segment) -> Option<Waker> {
        let Segment { from, to, body, .. } = segment;
        match body {
            Body::Syn { client, port } => {
                self.accept(from, to, client, port);
                None
            }
            Body::SynAck { client, server } => {
                let end = &mut self.ends[client];
                end.state = EndState::Open;
                end.peer_end = Some(server);
                end.waker.take()
            }
            Body::Refused { client } => {
                let end = &mut self.ends[client];
                end.state = EndState::Refused;
                end.waker.take()
            }
            Body::Data { end, bytes } => {
                let end = &mut self.ends[end];
                end.received.extend(bytes);
                end.waker.take()
            }
            Body::Fin { end } => {
                let end = &mut self.ends[end];
                end.peer_closed = true;
                end.waker.take()
            }
            Body::Datagram { from, port, bytes } => {
                let socket = self.datagrams.get_mut(&(to, port))?;
                socket.queue.push_back((bytes, from));
                socket.waker.take()
            }
        }
    }

    /// The server's kernel answers a connection request: into the listener's backlog, or refused.
    fn accept(&mut self, from: usize, to: usize, client: EndId, port: u16) {
        if !self.listeners.contains_key(&(to, port)) {
            self.send(to, from, Body::Refused { client });
            return;
        }
        let server = self.ends.len();
        self.ends.push(End {
            host: to,
            local: SocketAddr::new(self.ips[to], port),
            peer: self.ends[client].local,
            peer_end: Some(client),
            state: EndState::Open,
            received: VecDeque::new(),
            peer_closed: false,
            closed: false,
            waker: None,
        });
        self.send(to, from, Body::SynAck { client, server });
        let listener = self.listeners.get_mut(&(to, port)).expect("checked above");
        listener.accepted.push_back(server);
        if let Some(waker) = listener.waker.take() {
            waker.wake();
        }
    }
}
