//! UDP with turmoil's API.

use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::task::Poll;

use super::fabric::Body;
use super::{Protocol, SharedFabric, ToSocketAddrs, bind};

/// A UDP socket on a host of the service, as `turmoil::net::UdpSocket`. A datagram is lost
/// across a partition and to a host whose system is asleep, as on a real network.
#[derive(Debug)]
pub struct UdpSocket {
    fabric: SharedFabric,
    host: usize,
    addr: SocketAddr,
    /// Where `send` and `recv` talk to, once connected.
    peer: std::sync::Mutex<Option<SocketAddr>>,
}

impl UdpSocket {
    /// Binds `addr` of this host: port 0 takes a free port.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        let (fabric, host, addr) = bind("UdpSocket::bind", addr, Protocol::Udp)?;
        Ok(UdpSocket {
            fabric,
            host,
            addr,
            peer: std::sync::Mutex::new(None),
        })
    }

    /// Sends and receives with `addr` alone from now on.
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        let addr = self.fabric.socket_addr(self.host, addr)?;
        *self.peer.lock().unwrap_or_else(|p| p.into_inner()) = Some(addr);
        Ok(())
    }

    /// Sends `buf` to `target`; it is on its way once this returns.
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], target: A) -> io::Result<usize> {
        self.try_send_to(buf, target)
    }

    pub fn try_send_to<A: ToSocketAddrs>(&self, buf: &[u8], target: A) -> io::Result<usize> {
        let target = self.fabric.socket_addr(self.host, target)?;
        let mut state = self.fabric.lock();
        let Some(to) = state.host_at(target.ip()) else {
            return Err(io::Error::new(
                io::ErrorKind::HostUnreachable,
                format!("no host of the service is at {}", target.ip()),
            ));
        };
        let body = Body::Datagram {
            from: self.addr,
            port: target.port(),
            bytes: buf.to_vec(),
        };
        state.send(self.host, to, body);
        Ok(buf.len())
    }

    /// Sends `buf` to the address it is connected to.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        let peer = *self.peer.lock().unwrap_or_else(|p| p.into_inner());
        let peer = peer.ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))?;
        self.try_send_to(buf, peer)
    }

    /// The next datagram, cut to `buf`'s length, and who sent it.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| match self.take(buf) {
            Some(got) => Poll::Ready(Ok(got)),
            None => {
                let mut state = self.fabric.lock();
                let socket = state
                    .datagrams
                    .get_mut(&(self.host, self.addr.port()))
                    .expect("bound while it lives");
                socket.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await
    }

    /// The next datagram from the address it is connected to.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let (len, from) = self.recv_from(buf).await?;
            let peer = *self.peer.lock().unwrap_or_else(|p| p.into_inner());
            if peer.is_none_or(|peer| peer == from) {
                return Ok(len);
            }
        }
    }

    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.take(buf)
            .ok_or_else(|| io::Error::from(io::ErrorKind::WouldBlock))
    }

    fn take(&self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        let mut state = self.fabric.lock();
        let socket = state
            .datagrams
            .get_mut(&(self.host, self.addr.port()))
            .expect("bound while it lives");
        let (bytes, from) = socket.queue.pop_front()?;
        let len = bytes.len().min(buf.len());
        buf[..len].copy_from_slice(&bytes[..len]);
        Some((len, from))
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.addr)
    }
}

impl Drop for UdpSocket {
    fn drop(&mut self) {
        self.fabric
            .lock()
            .datagrams
            .remove(&(self.host, self.addr.port()));
    }
}
