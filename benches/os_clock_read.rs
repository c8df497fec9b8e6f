//! What bringing the OS clocks inside a harness run costs a clock read: std's `Instant::now()` on
//! a thread outside any run (handed on to libc by ticklab's `clock_gettime`), libc's own
//! `clock_gettime` called directly (the rival at its fastest, the vDSO with nothing in between),
//! and `Instant::now()` inside a run, answered from the simulated machine.
//!
//! Run with `cargo bench --bench os_clock_read`.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

use common::mean_ns;
use criterion::Criterion;
use ticklab::sim::Platform;
use ticklab::tokio::Harness;

const GROUP: &str = "os_clock_read";
/// Reads per harness run, so that building the run's runtime is a small part of each.
const READS_PER_RUN: u64 = 100_000;

type ClockGettime = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int;

/// libc's own `clock_gettime`, the definition after this program's.
#[allow(unsafe_code)]
fn libc_clock_gettime() -> ClockGettime {
    // SAFETY: the name is NUL-terminated, and the symbol is libc's clock_gettime, whose type
    // `ClockGettime` is.
    unsafe {
        let address = libc::dlsym(libc::RTLD_NEXT, c"clock_gettime".as_ptr());
        assert!(!address.is_null(), "libc's clock_gettime is found");
        std::mem::transmute::<*mut libc::c_void, ClockGettime>(address)
    }
}

#[allow(unsafe_code)]
fn read_directly(clock_gettime: ClockGettime) -> libc::timespec {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write.
    unsafe { clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("instant_now_outside_a_run", |b| b.iter(Instant::now));
    let direct = libc_clock_gettime();
    group.bench_function("libc_clock_gettime_directly", |b| {
        b.iter(|| read_directly(black_box(direct)))
    });
    let harness = Harness::on(Platform::Linux)
        .run_for(Duration::from_secs(60))
        .build()
        .expect("the harness builds");
    group.bench_function("instant_now_inside_a_run", |b| {
        b.iter_custom(|iters| {
            let runs = iters.div_ceil(READS_PER_RUN);
            let began = Instant::now();
            for _ in 0..runs {
                harness.run(|| async {
                    for _ in 0..READS_PER_RUN {
                        black_box(Instant::now());
                    }
                });
            }
            began
                .elapsed()
                .mul_f64(iters as f64 / (runs * READS_PER_RUN) as f64)
        })
    });
    group.finish();
}

fn report(since: SystemTime) {
    let mean = |id: &str| mean_ns(GROUP, id, since);
    let (Some(outside), Some(direct), Some(inside)) = (
        mean("instant_now_outside_a_run"),
        mean("libc_clock_gettime_directly"),
        mean("instant_now_inside_a_run"),
    ) else {
        return;
    };
    println!(
        "\nInstant::now() outside a run: {outside:.1} ns, {:.2}x libc's clock_gettime called \
         directly ({direct:.1} ns); inside a run: {inside:.1} ns, {:.1}x",
        outside / direct,
        inside / direct
    );
}

fn main() {
    let since = SystemTime::now();
    let mut criterion = Criterion::default()
        .output_directory(&common::output_directory())
        .configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
    report(since);
}
