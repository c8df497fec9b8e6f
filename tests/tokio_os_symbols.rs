//! A binary that links ticklab with the `os-clocks` feature (a default one) defines libc's clock,
//! sleep and thread functions itself, and every call in the process comes to ticklab first; a
//! binary built without the feature leaves them all to libc. The book (harness.md) says both, and
//! this test binary, which links ticklab as a user's test would, checks whichever it was built as:
//! `cargo test --test tokio_os_symbols` with the default features, and
//! `cargo test --no-default-features --features tokio --test tokio_os_symbols` without.

// The harness is the `tokio` feature's; libc.so.6 and the definitions are glibc's.
#![cfg(all(feature = "tokio", target_os = "linux", target_env = "gnu"))]

use std::ffi::{CStr, c_void};
use std::time::Duration;

use ticklab::sim::Platform;
use ticklab::tokio::Harness;

/// Whether this build defines the functions: what `src/tokio/os/mod.rs` compiles them under.
const DEFINED: bool = cfg!(all(
    feature = "os-clocks",
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
));

const FUNCTIONS: [&CStr; 9] = [
    c"clock_gettime",
    c"gettimeofday",
    c"time",
    c"timespec_get",
    c"nanosleep",
    c"clock_nanosleep",
    c"sleep",
    c"usleep",
    c"pthread_create",
];

/// The first definition of `name` the dynamic linker finds, and libc's own.
#[allow(unsafe_code)]
fn first_and_libcs(name: &CStr) -> (*mut c_void, *mut c_void) {
    // SAFETY: the names are NUL-terminated; libc.so.6 is loaded already, which RTLD_NOLOAD
    // requires, and dlsym only looks the name up.
    unsafe {
        let libc = libc::dlopen(c"libc.so.6".as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
        assert!(!libc.is_null(), "libc.so.6 is loaded");
        (
            libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()),
            libc::dlsym(libc, name.as_ptr()),
        )
    }
}

#[test]
fn libcs_clock_functions_are_ticklabs_exactly_when_os_clocks_is_built_in() {
    // What a user's test does with ticklab, so that the link is the one a user gets.
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(1))
        .build()
        .expect("the harness builds")
        .allowing_unseen_os_clocks();
    harness.run(|| async {});
    for name in FUNCTIONS {
        let (first, libcs) = first_and_libcs(name);
        assert!(!libcs.is_null(), "libc defines {name:?}");
        assert_eq!(
            first != libcs,
            DEFINED,
            "{name:?} is defined in this binary exactly when os-clocks is built in ({DEFINED})"
        );
    }
}
