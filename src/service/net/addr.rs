//! Addresses as turmoil's network types take them: a host's name and a port, an address, or
//! `"name:port"`. A name is a host of the run, or an address written out.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

/// How a host's name becomes its address; hidden from users, who never call it.
#[doc(hidden)]
pub type Resolve<'a> = &'a dyn Fn(&str) -> Option<IpAddr>;

fn resolve_name(name: &str, resolve: Resolve<'_>) -> io::Result<IpAddr> {
    if let Ok(ip) = name.parse::<IpAddr>() {
        return Ok(ip);
    }
    resolve(name).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("no host of the service is named `{name}`"),
        )
    })
}

/// What names a host, as turmoil's `ToIpAddr` does: its name, or its address.
pub trait ToIpAddr {
    #[doc(hidden)]
    fn to_ip_addr(&self, resolve: Resolve<'_>) -> io::Result<IpAddr>;
}

impl ToIpAddr for &str {
    fn to_ip_addr(&self, resolve: Resolve<'_>) -> io::Result<IpAddr> {
        resolve_name(self, resolve)
    }
}

impl ToIpAddr for String {
    fn to_ip_addr(&self, resolve: Resolve<'_>) -> io::Result<IpAddr> {
        resolve_name(self, resolve)
    }
}

impl ToIpAddr for IpAddr {
    fn to_ip_addr(&self, _: Resolve<'_>) -> io::Result<IpAddr> {
        Ok(*self)
    }
}

impl ToIpAddr for Ipv4Addr {
    fn to_ip_addr(&self, _: Resolve<'_>) -> io::Result<IpAddr> {
        Ok(IpAddr::V4(*self))
    }
}

impl ToIpAddr for Ipv6Addr {
    fn to_ip_addr(&self, _: Resolve<'_>) -> io::Result<IpAddr> {
        Ok(IpAddr::V6(*self))
    }
}

/// What names a socket's address, as turmoil's `ToSocketAddrs` does: `("server", 9000)`,
/// `"server:9000"`, or a [`SocketAddr`].
pub trait ToSocketAddrs {
    #[doc(hidden)]
    fn to_socket_addr(&self, resolve: Resolve<'_>) -> io::Result<SocketAddr>;
}

impl ToSocketAddrs for (&str, u16) {
    fn to_socket_addr(&self, resolve: Resolve<'_>) -> io::Result<SocketAddr> {
        Ok(SocketAddr::new(resolve_name(self.0, resolve)?, self.1))
    }
}

impl ToSocketAddrs for (String, u16) {
    fn to_socket_addr(&self, resolve: Resolve<'_>) -> io::Result<SocketAddr> {
        Ok(SocketAddr::new(resolve_name(&self.0, resolve)?, self.1))
    }
}

impl ToSocketAddrs for (IpAddr, u16) {
    fn to_socket_addr(&self, _: Resolve<'_>) -> io::Result<SocketAddr> {
        Ok(SocketAddr::new(self.0, self.1))
    }
}

impl ToSocketAddrs for (Ipv4Addr, u16) {
    fn to_socket_addr(&self, _: Resolve<'_>) -> io::Result<SocketAddr> {
        Ok(SocketAddr::new(IpAddr::V4(self.0), self.1))
    }
}

impl ToSocketAddrs for SocketAddr {
    fn to_socket_addr(&self, _: Resolve<'_>) -> io::Result<SocketAddr> {
        Ok(*self)
    }
}

impl ToSocketAddrs for SocketAddrV4 {
    fn to_socket_addr(&self, _: Resolve<'_>) -> io::Result<SocketAddr> {
        Ok(SocketAddr::V4(*self))
    }
}

impl ToSocketAddrs for SocketAddrV6 {
    fn to_socket_addr(&self, _: Resolve<'_>) -> io::Result<SocketAddr> {
        Ok(SocketAddr::V6(*self))
    }
}

impl ToSocketAddrs for str {
    fn to_socket_addr(&self, resolve: Resolve<'_>) -> io::Result<SocketAddr> {
        if let Ok(addr) = self.parse::<SocketAddr>() {
            return Ok(addr);
        }
        let (name, port) = self.rsplit_once(':').ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{self}` is not `name:port`"),
            )
        })?;
        let port = port.parse::<u16>().map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{port}` in `{self}` is not a port"),
            )
        })?;
        Ok(SocketAddr::new(resolve_name(name, resolve)?, port))
    }
}

impl ToSocketAddrs for String {
    fn to_socket_addr(&self, resolve: Resolve<'_>) -> io::Result<SocketAddr> {
        self.as_str().to_socket_addr(resolve)
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {
    fn to_socket_addr(&self, resolve: Resolve<'_>) -> io::Result<SocketAddr> {
        (**self).to_socket_addr(resolve)
    }
}
