//! The network between a service's hosts, with turmoil's types and their API: code written
//! against `turmoil::net` runs unchanged with `use ticklab::service::net` in its place, or with
//! turmoil's name given to this module in the one place the code picks its network.
//!
//! A segment takes the link's latency, in the order it was sent on its connection. A partition
//! holds TCP's segments until it heals (the sender's kernel sends them again) and loses UDP's. A
//! host whose system is asleep loses datagrams and takes TCP's segments once it wakes; a frozen
//! process's kernel takes everything as it arrives, for the process to read when it thaws.

mod addr;
pub(crate) mod fabric;
mod tcp;
mod udp;

use std::cell::RefCell;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

pub use addr::{ToIpAddr, ToSocketAddrs};
pub use tcp::{OwnedReadHalf, OwnedWriteHalf, TcpListener, TcpStream};
pub use udp::UdpSocket;

use fabric::Fabric;

/// The network as the run and every socket share it.
#[derive(Clone, Debug)]
pub(crate) struct SharedFabric(pub(crate) Arc<Mutex<Fabric>>);

impl SharedFabric {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Fabric> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Resolves `addr` for a socket on `host`: a name of the run, an address, or this host's own
    /// (`0.0.0.0`, `localhost`).
    fn socket_addr(&self, host: usize, addr: impl ToSocketAddrs) -> io::Result<SocketAddr> {
        let fabric = self.lock();
        let own = fabric.ips[host];
        let resolve = |name: &str| match name {
            "localhost" => Some(own),
            _ => fabric
                .names
                .iter()
                .position(|known| known == name)
                .map(|index| fabric.ips[index]),
        };
        let mut addr = addr.to_socket_addr(&resolve)?;
        if addr.ip().is_unspecified() || addr.ip().is_loopback() {
            addr.set_ip(own);
        }
        Ok(addr)
    }
}

/// Which of a host's port tables a socket binds in.
#[derive(Clone, Copy, Debug)]
enum Protocol {
    Tcp,
    Udp,
}

/// Binds `addr` on the host whose code runs now, for `what` (named in a misuse's panic): the
/// network, the host and the address bound, port 0 given a free port.
fn bind(
    what: &str,
    addr: impl ToSocketAddrs,
    protocol: Protocol,
) -> io::Result<(SharedFabric, usize, SocketAddr)> {
    let (fabric, host) = current(what);
    let mut addr = fabric.socket_addr(host, addr)?;
    let mut state = fabric.lock();
    if addr.ip() != state.ips[host] {
        return Err(io::Error::new(
            io::ErrorKind::AddrNotAvailable,
            format!("{} is not this host's address", addr.ip()),
        ));
    }
    if addr.port() == 0 {
        addr.set_port(state.ephemeral_port(host));
    }
    let key = (host, addr.port());
    let taken = match protocol {
        Protocol::Tcp => state.listeners.contains_key(&key),
        Protocol::Udp => state.datagrams.contains_key(&key),
    };
    if taken {
        return Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            format!("{addr} is already bound"),
        ));
    }
    match protocol {
        Protocol::Tcp => drop(state.listeners.insert(key, Default::default())),
        Protocol::Udp => drop(state.datagrams.insert(key, Default::default())),
    }
    drop(state);
    Ok((fabric, host, addr))
}

thread_local! {
    /// The network, and the host whose code runs now.
    static CURRENT: RefCell<Option<(SharedFabric, usize)>> = const { RefCell::new(None) };
}

/// Makes `host` the one whose code runs, until dropped.
#[derive(Debug)]
pub(crate) struct OnHost(());

impl OnHost {
    pub(crate) fn enter(fabric: &SharedFabric, host: usize) -> OnHost {
        CURRENT.set(Some((fabric.clone(), host)));
        OnHost(())
    }
}

impl Drop for OnHost {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|current| current.replace(None));
    }
}

/// The network and this host, for a socket made now.
fn current(what: &str) -> (SharedFabric, usize) {
    CURRENT
        .with_borrow(|current| current.clone())
        .unwrap_or_else(|| {
            panic!(
                "ticklab::service::net::{what} was used outside a service host's code; sockets \
             exist only inside `Service::run`"
            )
        })
}

/// The address of the host named `name` (or written out), as `turmoil::lookup` gives it.
///
/// # Panics
///
/// Outside a service host's code, or if no host has that name.
pub fn lookup(name: impl ToIpAddr) -> IpAddr {
    let (fabric, _) = current("lookup");
    let fabric = fabric.lock();
    let resolve = |wanted: &str| {
        fabric
            .names
            .iter()
            .position(|known| known == wanted)
            .map(|index| fabric.ips[index])
    };
    name.to_ip_addr(&resolve)
        .unwrap_or_else(|error| panic!("ticklab::service::net::lookup: {error}"))
}

/// The name of the host at `ip`, if one is there.
pub fn reverse_lookup(ip: IpAddr) -> Option<String> {
    let (fabric, _) = current("reverse_lookup");
    let fabric = fabric.lock();
    fabric.host_at(ip).map(|host| fabric.names[host].clone())
}
