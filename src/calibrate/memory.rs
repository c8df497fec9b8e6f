//! Memory for fork to copy: how much the host can spare, and mappings touched page by page.

use std::io;
use std::ptr;

/// The page size fork's cost is quoted for (semantics.md section 6).
const PAGE_BYTES: usize = 4096;

/// `MemAvailable` from /proc/meminfo.
pub(super) fn available_bytes() -> io::Result<u64> {
    let text = std::fs::read_to_string("/proc/meminfo")
        .map_err(|error| io::Error::new(error.kind(), format!("/proc/meminfo: {error}")))?;
    parse_mem_available(&text)
        .ok_or_else(|| io::Error::other("/proc/meminfo has no MemAvailable line"))
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// An anonymous private mapping with every page written once, so that each has a page table entry
/// for fork to copy. Unmapped when dropped.
#[derive(Debug)]
pub(super) struct Touched {
    start: *mut libc::c_void,
    bytes: usize,
}

impl Touched {
    /// Maps and touches `bytes` (none for 0).
    pub fn map(bytes: usize) -> io::Result<Touched> {
        if bytes == 0 {
            return Ok(Touched {
                start: ptr::null_mut(),
                bytes,
            });
        }
        // SAFETY: an anonymous mapping at an address the kernel picks aliases no memory of ours.
        let start = unsafe {
            libc::mmap(
                ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if start == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // From here on, dropping `mapping` unmaps it, on every path.
        let mapping = Touched { start, bytes };
        // Huge pages would cut the entries fork copies 512-fold on hosts with transparent huge
        // pages set to `always`; the figure is for ordinary pages. A kernel without transparent
        // huge pages refuses the advice, and its pages are ordinary anyway.
        // SAFETY: the range is exactly the mapping just made; the advice changes no contents.
        unsafe { libc::madvise(start, bytes, libc::MADV_NOHUGEPAGE) };
        for offset in (0..bytes).step_by(PAGE_BYTES) {
            // SAFETY: `offset < bytes`, so the byte lies inside the writable mapping. A volatile
            // write, so that the compiler cannot drop a store nothing reads.
            unsafe { start.cast::<u8>().add(offset).write_volatile(1) };
        }
        Ok(mapping)
    }
}

impl Drop for Touched {
    fn drop(&mut self) {
        if self.bytes > 0 {
            // SAFETY: `start` and `bytes` are a mapping this value made and nothing else unmaps.
            unsafe { libc::munmap(self.start, self.bytes) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let meminfo =
            "MemTotal:       32768000 kB\nMemFree:         1000 kB\nMemAvailable:   23922760 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(23_922_760 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: lots\n"), None);
    }

    #[test]
    fn a_touched_mapping_is_made_and_unmapped() {
        let mapping = Touched::map(3 * PAGE_BYTES + 1).unwrap();
        assert!(!mapping.start.is_null());
        drop(mapping);
        assert!(Touched::map(0).unwrap().start.is_null());
    }
}
