//! TCP with turmoil's API: a listener, a stream, and the stream's owned halves.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::fabric::{Body, End, EndId, EndState};
use super::{Protocol, SharedFabric, ToSocketAddrs, bind, current};

/// A TCP listener on a host of the service, as `turmoil::net::TcpListener`.
#[derive(Debug)]
pub struct TcpListener {
    fabric: SharedFabric,
    host: usize,
    addr: SocketAddr,
}

impl TcpListener {
    /// Listens on `addr` of this host: port 0 takes a free port.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        let (fabric, host, addr) = bind("TcpListener::bind", addr, Protocol::Tcp)?;
        Ok(TcpListener { fabric, host, addr })
    }

    /// The next connection its host's kernel accepted, and the peer's address.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        poll_fn(|cx| {
            let mut state = self.fabric.lock();
            let key = (self.host, self.addr.port());
            let listener = state.listeners.get_mut(&key).expect("bound while it lives");
            let Some(end) = listener.accepted.pop_front() else {
                listener.waker = Some(cx.waker().clone());
                return Poll::Pending;
            };
            let peer = state.ends[end].peer;
            let stream = TcpStream {
                fabric: self.fabric.clone(),
                end,
                split: false,
            };
            Poll::Ready(Ok((stream, peer)))
        })
        .await
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.addr)
    }
}

impl Drop for TcpListener {
    fn drop(&mut self) {
        self.fabric
            .lock()
            .listeners
            .remove(&(self.host, self.addr.port()));
    }
}

/// A TCP connection between hosts of the service, as `turmoil::net::TcpStream`. What is written
/// is sent at once (the send buffer has no bound); dropping it, or its write half, closes its
/// side, and the peer then reads to the end of what was sent.
#[derive(Debug)]
pub struct TcpStream {
    fabric: SharedFabric,
    end: EndId,
    /// Its halves own the connection now.
    split: bool,
}

impl TcpStream {
    /// Connects to `addr`: a round trip, which ends refused if nothing listens there.
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        let (fabric, host) = current("TcpStream::connect");
        let peer = fabric.socket_addr(host, addr)?;
        let end = {
            let mut state = fabric.lock();
            let Some(to) = state.host_at(peer.ip()) else {
                return Err(io::Error::new(
                    io::ErrorKind::HostUnreachable,
                    format!("no host of the service is at {}", peer.ip()),
                ));
            };
            let local = SocketAddr::new(state.ips[host], state.ephemeral_port(host));
            let end = state.ends.len();
            state.ends.push(End {
                host,
                local,
                peer,
                peer_end: None,
                state: EndState::Connecting,
                received: VecDeque::new(),
                peer_closed: false,
                closed: false,
                waker: None,
            });
            let port = peer.port();
            state.send(host, to, Body::Syn { client: end, port });
            end
        };
        poll_fn(|cx| {
            let mut state = fabric.lock();
            let state = &mut state.ends[end];
            match state.state {
                EndState::Open => Poll::Ready(Ok(())),
                EndState::Refused => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::ConnectionRefused,
                    format!("nothing listens on {peer}"),
                ))),
                EndState::Connecting => {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await?;
        Ok(TcpStream {
            fabric,
            end,
            split: false,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.fabric.lock().ends[self.end].local)
    }

    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.fabric.lock().ends[self.end].peer)
    }

    /// Nagle's algorithm has no part in the simulated network.
    pub fn set_nodelay(&self, _nodelay: bool) -> io::Result<()> {
        Ok(())
    }

    /// The two halves, each of which may go to a task of its own.
    pub fn into_split(mut self) -> (OwnedReadHalf, OwnedWriteHalf) {
        // The write half closes the connection's side now; the stream itself no longer does.
        self.split = true;
        let read = OwnedReadHalf {
            fabric: self.fabric.clone(),
            end: self.end,
        };
        let write = OwnedWriteHalf {
            fabric: self.fabric.clone(),
            end: self.end,
        };
        (read, write)
    }
}

impl Drop for TcpStream {
    fn drop(&mut self) {
        if !self.split {
            self.fabric.lock().close(self.end);
        }
    }
}

/// The read half of a [`TcpStream`].
#[derive(Debug)]
pub struct OwnedReadHalf {
    fabric: SharedFabric,
    end: EndId,
}

/// The write half of a [`TcpStream`]: dropping it closes the stream's side.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    fabric: SharedFabric,
    end: EndId,
}

impl OwnedReadHalf {
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.fabric.lock().ends[self.end].peer)
    }
}

impl OwnedWriteHalf {
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.fabric.lock().ends[self.end].peer)
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        self.fabric.lock().close(self.end);
    }
}

fn poll_read(
    fabric: &SharedFabric,
    end: EndId,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
) -> Poll<io::Result<()>> {
    let mut state = fabric.lock();
    let state = &mut state.ends[end];
    if state.received.is_empty() {
        if state.peer_closed {
            return Poll::Ready(Ok(()));
        }
        state.waker = Some(cx.waker().clone());
        return Poll::Pending;
    }
    let take = buf.remaining().min(state.received.len());
    let (front, back) = state.received.as_slices();
    let from_front = take.min(front.len());
    buf.put_slice(&front[..from_front]);
    buf.put_slice(&back[..take - from_front]);
    state.received.drain(..take);
    Poll::Ready(Ok(()))
}

fn poll_write(fabric: &SharedFabric, end: EndId, bytes: &[u8]) -> Poll<io::Result<usize>> {
    let mut state = fabric.lock();
    let this = &state.ends[end];
    if this.closed {
        return Poll::Ready(Err(io::Error::new(
            io::ErrorKind::BrokenPipe,
            "this side of the stream was shut down",
        )));
    }
    let (Some(peer_end), EndState::Open) = (this.peer_end, this.state) else {
        return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
    };
    let (from, to) = (this.host, state.ends[peer_end].host);
    let body = Body::Data {
        end: peer_end,
        bytes: bytes.to_vec(),
    };
    state.send(from, to, body);
    Poll::Ready(Ok(bytes.len()))
}

fn poll_shutdown(fabric: &SharedFabric, end: EndId) -> Poll<io::Result<()>> {
    fabric.lock().close(end);
    Poll::Ready(Ok(()))
}

impl AsyncRead for TcpStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        poll_read(&self.fabric, self.end, cx, buf)
    }
}

impl AsyncRead for OwnedReadHalf {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        poll_read(&self.fabric, self.end, cx, buf)
    }
}

impl AsyncWrite for TcpStream {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        poll_write(&self.fabric, self.end, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        poll_shutdown(&self.fabric, self.end)
    }
}

impl AsyncWrite for OwnedWriteHalf {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        poll_write(&self.fabric, self.end, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        poll_shutdown(&self.fabric, self.end)
    }
}
