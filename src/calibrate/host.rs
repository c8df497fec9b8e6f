//! The host a profile was measured on, for its header and `about` line.

use std::io;

use super::memory;

/// What `uname` says about this host, its CPUs and its available memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// `Linux`.
    pub system: String,
    /// The host name.
    pub node: String,
    /// The kernel release, such as `6.8.0-45-generic`.
    pub release: String,
    /// `x86_64`, `aarch64`.
    pub machine: String,
    /// CPUs this process may run on.
    pub cpus: usize,
    /// `MemAvailable` from /proc/meminfo when the measurements started.
    pub mem_available_bytes: u64,
}

impl Host {
    pub fn read() -> io::Result<Host> {
        // SAFETY: utsname is arrays of `c_char`, for which all-zero bytes are a valid value.
        let mut names: libc::utsname = unsafe { std::mem::zeroed() };
        // SAFETY: `names` is a valid, writable utsname that uname fills in.
        if unsafe { libc::uname(&mut names) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Host {
            system: text(&names.sysname),
            node: text(&names.nodename),
            release: text(&names.release),
            machine: text(&names.machine),
            cpus: std::thread::available_parallelism().map_or(1, usize::from),
            mem_available_bytes: memory::available_bytes()?,
        })
    }

    /// One line, such as `Linux 6.8.0-45-generic x86_64 on build-7, 2 CPUs`.
    pub fn describe(&self) -> String {
        let cpus = if self.cpus == 1 { "CPU" } else { "CPUs" };
        format!(
            "{} {} {} on {}, {} {cpus}",
            self.system, self.release, self.machine, self.node, self.cpus
        )
    }
}

/// A NUL-terminated uname field as text. Control characters are dropped: the text goes into TOML
/// comments, where a line break would end the comment.
fn text(field: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = field
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes)
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_ends_at_its_nul_and_loses_line_breaks() {
        let field: Vec<libc::c_char> = b"vm\nhost\0junk"
            .iter()
            .map(|&b| b as libc::c_char)
            .collect();
        assert_eq!(text(&field), "vmhost");
    }

    #[test]
    fn this_host_has_a_kernel_and_a_cpu() {
        let host = Host::read().unwrap();
        assert_eq!(host.system, "Linux");
        assert!(!host.release.is_empty());
        assert!(host.cpus >= 1);
        assert!(host.describe().starts_with("Linux "), "{}", host.describe());
    }
}
