//! One process's figures: ns per `Instant::now()` and per `SystemTime::now()`, and whether the
//! program's `clock_gettime` is libc's own. The same code is compiled into both binaries that
//! benches/os_clock_cost.rs compares (this crate's, and the bench's own, which links ticklab), so
//! that only what the clock reads call differs between them.

use std::ffi::{c_char, c_int, c_void};
use std::hint::black_box;
use std::time::{Instant, SystemTime};

/// Reads timed together, so that the timer's own read is a small part of each batch.
const READS_PER_BATCH: u32 = 200_000;
/// Batches of each clock, taken in turn; a process's figure is the median batch.
const BATCHES: usize = 15;

/// What one process measured.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub instant_ns: f64,
    pub system_time_ns: f64,
    /// Whether `clock_gettime` in this program is another library's or the program's own
    /// instead of libc's (as it is when ticklab's os-clocks are linked in).
    pub overridden: bool,
}

impl Figures {
    pub fn measure() -> Figures {
        // Warm up: the first reads resolve symbols and fault in the vDSO's pages.
        batch_ns(|| {
            black_box(Instant::now());
        });
        batch_ns(|| {
            black_box(SystemTime::now());
        });
        let mut instant = Vec::with_capacity(BATCHES);
        let mut system_time = Vec::with_capacity(BATCHES);
        for _ in 0..BATCHES {
            instant.push(batch_ns(|| {
                black_box(Instant::now());
            }));
            system_time.push(batch_ns(|| {
                black_box(SystemTime::now());
            }));
        }
        Figures {
            instant_ns: median(&mut instant),
            system_time_ns: median(&mut system_time),
            overridden: clock_gettime_overridden(),
        }
    }

    /// The line this process prints, which [`Figures::parse`] reads back.
    pub fn line(&self) -> String {
        format!(
            "instant_ns={:.3} system_time_ns={:.3} overridden={}",
            self.instant_ns, self.system_time_ns, self.overridden
        )
    }

    #[allow(dead_code)] // Only the bench reads lines back.
    pub fn parse(line: &str) -> Option<Figures> {
        let mut fields = line.split_whitespace().map(|field| field.split_once('='));
        let mut next = || fields.next().flatten().map(|(_, value)| value);
        Some(Figures {
            instant_ns: next()?.parse().ok()?,
            system_time_ns: next()?.parse().ok()?,
            overridden: next()?.parse().ok()?,
        })
    }
}

/// ns per call of `read`, over one batch.
fn batch_ns(read: impl Fn()) -> f64 {
    let began = Instant::now();
    for _ in 0..READS_PER_BATCH {
        read();
    }
    began.elapsed().as_nanos() as f64 / f64::from(READS_PER_BATCH)
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
}

#[allow(unsafe_code)] // Declaring libc's dl functions, which std links already.
unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// glibc's `RTLD_DEFAULT`, `RTLD_LAZY` and `RTLD_NOLOAD`.
const RTLD_DEFAULT: *mut c_void = std::ptr::null_mut();
const RTLD_LAZY: c_int = 1;
const RTLD_NOLOAD: c_int = 4;

/// Whether the first `clock_gettime` the dynamic linker finds is not libc's: a binary that
/// defines the function exports it, so that libc's own callers bind to it as well.
#[allow(unsafe_code)]
fn clock_gettime_overridden() -> bool {
    // SAFETY: the names are NUL-terminated; libc.so.6 is loaded already (NOLOAD opens it only
    // then), and a null handle from it makes dlsym look in the default scope, which is harmless.
    unsafe {
        let libc = dlopen(c"libc.so.6".as_ptr(), RTLD_LAZY | RTLD_NOLOAD);
        let first = dlsym(RTLD_DEFAULT, c"clock_gettime".as_ptr());
        !libc.is_null() && first != dlsym(libc, c"clock_gettime".as_ptr())
    }
}
