//! Gives the memory a finished run freed back to the system, so the next run starts on it.
//!
//! glibc's allocator keeps an arena per thread and keeps what a thread frees for that thread. A
//! run that held a GiB on one core and ended leaves that GiB in its arena, and the run admitted
//! after it on another core allocates a second one: two full-scale brpc runs one after the other
//! held 1.75 GB together, though the budget never let them overlap. `malloc_trim` returns the free
//! pages of every arena. This is the only module of `ticklab::memory` with unsafe code: one call
//! that takes and returns plain integers.
#![allow(unsafe_code)]

/// Claims below this free too little to be worth walking every arena for.
pub const TRIM_FROM_BYTES: u128 = 64 << 20;

/// Returns the free pages of every arena to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn release_freed_memory() {
    // SAFETY: malloc_trim takes a size and touches only the allocator's own free lists, under
    // the allocator's locks; it is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators return freed memory by their own rules.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release_freed_memory() {}
