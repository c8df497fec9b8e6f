//! Schedule + unschedule pairs per second on real threads: each timer design, tokio's timer, and a
//! no-timer baseline, at 1, 2, 4 and 8 threads, in two loops:
//!
//! - `pure`: nothing but arming a timeout and cancelling it, to compare the designs' costs;
//! - `rpc`: each call also does a fixed amount of its own work (hashing a 256-byte request), as
//!   an RPC would, to compare with the same loop without timers (brpc's "close to off").
//!
//! Every timeout is 1 ms ahead, and each thread keeps its last 64 calls in flight: a call's timer is
//! cancelled 64 calls after it was armed, as responses cancel RPC timeouts a little later. (Cancelling
//! at once would leave the timer thread's heap empty after every round, so the next schedule would
//! always have to wake it: a pattern real RPC loads do not show.) The designs' timer threads run
//! meanwhile, draining and freeing. After the measurements the bench prints pairs/s and the ratios
//! that BENCHMARKS.md quotes, from this run's own means.
//!
//! Run with `cargo bench --bench timer_pairs`.

mod common;

use std::future::{Future, poll_fn};
use std::hint::black_box;
use std::sync::Barrier;
use std::task::Poll;
use std::time::{Duration, Instant, SystemTime};

use common::{mean_ns, output_directory};
use criterion::{BenchmarkId, Criterion, Throughput};
use ticklab::timer::threads::ThreadedTimers;
use ticklab_models::sync::StdPrimitives;
use ticklab_models::timer::{
    Bucketed, GlobalHeap, GoTimeout, GoTimers, GoVersion, Hashed, Reclaim, ScheduleError,
    TimerClock, TimerDesign, TokioWheel,
};

const TIMEOUT_NS: i64 = 1_000_000;
const THREADS: [usize; 4] = [1, 2, 4, 8];
/// Slots for the timers armed, and cancelled, between two drains. When more threads than cores
/// starve the timer thread, schedulers find no free slot; they yield and retry, so the rate
/// measured is the one the timer thread can sustain.
const CAPACITY: usize = 1 << 20;
const HASHED_THREADS: usize = 4;
/// Calls each thread keeps in flight: a timer is cancelled this many calls after it was armed.
const IN_FLIGHT: usize = 64;

/// An RPC's own work: an FNV-1a hash of a 256-byte request.
fn rpc_work(call: u64) -> u64 {
    let mut request = [0u8; 256];
    request[..8].copy_from_slice(&call.to_le_bytes());
    black_box(&mut request);
    request.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Runs `body(caller, call, in_flight)` `calls` times on each of `threads` threads, started
/// together, each with its own ring of in-flight timers; returns the wall time until the last
/// thread finishes.
fn on_threads<T: Send>(
    threads: usize,
    calls: u64,
    body: impl Fn(u64, u64, &mut InFlight<T>) + Sync,
) -> Duration {
    let start_line = Barrier::new(threads + 1);
    std::thread::scope(|scope| {
        for caller in 0..threads as u64 {
            let (start_line, body) = (&start_line, &body);
            scope.spawn(move || {
                let mut in_flight = InFlight::default();
                start_line.wait();
                for call in 0..calls {
                    body(caller, call, &mut in_flight);
                }
            });
        }
        start_line.wait();
        let started = Instant::now();
        // Leaving the scope joins every thread.
        started
    })
    .elapsed()
}

/// A thread's calls in flight: pushing a new one past the window hands back the oldest.
struct InFlight<T> {
    calls: std::collections::VecDeque<T>,
}

impl<T> Default for InFlight<T> {
    fn default() -> Self {
        InFlight {
            calls: std::collections::VecDeque::with_capacity(IN_FLIGHT + 1),
        }
    }
}

impl<T> InFlight<T> {
    fn push(&mut self, call: T) -> Option<T> {
        self.calls.push_back(call);
        (self.calls.len() > IN_FLIGHT)
            .then(|| self.calls.pop_front())
            .flatten()
    }
}

fn design_pairs<D: TimerDesign<u64> + 'static>(
    timers: &ThreadedTimers<D, u64>,
    threads: usize,
    calls: u64,
    rpc: bool,
) -> Duration {
    on_threads(threads, calls, |caller, call, in_flight| {
        if rpc {
            black_box(rpc_work(call));
        }
        let deadline_ns = timers.now_ns() + TIMEOUT_NS;
        let id = loop {
            match timers.schedule(deadline_ns, call, caller) {
                Ok(scheduled) => break scheduled.id,
                Err(ScheduleError::Full) => std::thread::yield_now(),
                Err(ScheduleError::Stopped) => {
                    unreachable!("the timers run until the benchmark ends")
                }
            }
        };
        if let Some(oldest) = in_flight.push(id) {
            black_box(timers.unschedule(oldest));
        }
    })
}

fn baseline_pairs(threads: usize, calls: u64, rpc: bool) -> Duration {
    let origin = Instant::now();
    on_threads(threads, calls, |_, call, in_flight| {
        if rpc {
            black_box(rpc_work(call));
        }
        // The deadline is still computed and the call still tracked; only the timer calls are gone.
        let deadline_ns = origin.elapsed().as_nanos() as i64 + TIMEOUT_NS;
        black_box(in_flight.push(deadline_ns));
    })
}

/// tokio's timer: each call registers a `sleep` with one poll, and drops it once it leaves the
/// in-flight window, on `threads` worker threads of a multi-thread runtime.
fn tokio_pairs(
    runtime: &tokio::runtime::Runtime,
    threads: usize,
    calls: u64,
    rpc: bool,
) -> Duration {
    runtime.block_on(async move {
        let started = Instant::now();
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                tokio::spawn(async move {
                    let mut in_flight = InFlight::default();
                    for call in 0..calls {
                        if rpc {
                            black_box(rpc_work(call));
                        }
                        let mut sleep =
                            Box::pin(tokio::time::sleep(Duration::from_nanos(TIMEOUT_NS as u64)));
                        poll_fn(|cx| {
                            let _ = sleep.as_mut().poll(cx);
                            Poll::Ready(())
                        })
                        .await;
                        drop(in_flight.push(sleep));
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.await.expect("a tokio worker panicked");
        }
        started.elapsed()
    })
}

const CONTENDERS: [&str; 8] = [
    "baseline",
    "global-heap",
    "bucketed",
    "bucketed-reclaim",
    "hashed",
    "tokio-wheel",
    "go-timers",
    "tokio",
];
/// Go's Ps: each P's heap has its own lock, and one P polls for the others.
const GO_PROCS: usize = 4;

fn bench_design<D: TimerDesign<u64> + 'static>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    make: impl Fn() -> D,
    rpc: bool,
) {
    for threads in THREADS {
        let timers = ThreadedTimers::start(make(), |_: u64| {});
        group.throughput(Throughput::Elements(threads as u64));
        group.bench_with_input(BenchmarkId::new(name, threads), &threads, |b, &threads| {
            b.iter_custom(|calls| design_pairs(&timers, threads, calls, rpc));
        });
        timers.stop();
    }
}

fn bench_loop(criterion: &mut Criterion, rpc: bool) {
    let mut group = criterion.benchmark_group(group_name(rpc));
    for threads in THREADS {
        group.throughput(Throughput::Elements(threads as u64));
        group.bench_with_input(
            BenchmarkId::new("baseline", threads),
            &threads,
            |b, &threads| {
                b.iter_custom(|calls| baseline_pairs(threads, calls, rpc));
            },
        );
    }
    bench_designs(&mut group, rpc);
    bench_tokio(&mut group, rpc);
    group.finish();
}

/// Every built-in timer design, each on its own timer threads.
fn bench_designs(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rpc: bool,
) {
    bench_design(
        group,
        "global-heap",
        || GlobalHeap::<StdPrimitives, u64>::new(CAPACITY, TimerClock::Monotonic),
        rpc,
    );
    bench_design(
        group,
        "bucketed",
        || Bucketed::<StdPrimitives, u64>::new(13, CAPACITY, TimerClock::Monotonic),
        rpc,
    );
    bench_design(
        group,
        "bucketed-reclaim",
        || {
            Bucketed::<StdPrimitives, u64>::with_reclaim(
                13,
                CAPACITY,
                TimerClock::Monotonic,
                Reclaim {
                    max_wakeup_interval_ns: Some(1_000_000_000),
                    ..Reclaim::BRPC_DEFAULTS
                },
            )
        },
        rpc,
    );
    bench_design(
        group,
        "tokio-wheel",
        || TokioWheel::<StdPrimitives, u64>::new(CAPACITY, TimerClock::Monotonic),
        rpc,
    );
    bench_design(
        group,
        "go-timers",
        || {
            GoTimers::<StdPrimitives, u64>::new(
                GO_PROCS,
                CAPACITY,
                TimerClock::Monotonic,
                GoVersion::Go1_23,
                GoTimeout::Context,
            )
        },
        rpc,
    );
    bench_design(
        group,
        "hashed",
        || Hashed::<StdPrimitives, u64>::new(HASHED_THREADS, CAPACITY, TimerClock::Monotonic),
        rpc,
    );
}

/// tokio's own timer, on a multi-threaded runtime of as many workers as calling threads.
fn bench_tokio(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rpc: bool,
) {
    for threads in THREADS {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_time()
            .build()
            .unwrap();
        group.throughput(Throughput::Elements(threads as u64));
        group.bench_with_input(
            BenchmarkId::new("tokio", threads),
            &threads,
            |b, &threads| {
                b.iter_custom(|calls| tokio_pairs(&runtime, threads, calls, rpc));
            },
        );
    }
}

fn group_name(rpc: bool) -> &'static str {
    if rpc {
        "timer_pairs_rpc"
    } else {
        "timer_pairs_pure"
    }
}

/// Pairs per second of `contender` at `threads`, from this run.
fn rate(rpc: bool, contender: &str, threads: usize, since: SystemTime) -> Option<f64> {
    let mean = mean_ns(group_name(rpc), &format!("{contender}/{threads}"), since)?;
    Some(threads as f64 / (mean / 1e9))
}

fn report(rpc: bool, since: SystemTime) {
    println!(
        "\n{}: million schedule+unschedule pairs per second (all threads together)",
        group_name(rpc)
    );
    println!("{:<18}{:>10}{:>10}{:>10}{:>10}", "threads", 1, 2, 4, 8);
    for contender in CONTENDERS {
        let cells: String = THREADS
            .iter()
            .map(|threads| match rate(rpc, contender, *threads, since) {
                Some(rate) => format!("{:>10.2}", rate / 1e6),
                None => format!("{:>10}", "-"),
            })
            .collect();
        println!("{contender:<18}{cells}");
    }
    let ratio = |a: &str, b: &str, threads: usize| {
        Some(rate(rpc, a, threads, since)? / rate(rpc, b, threads, since)?)
    };
    for (a, b) in [
        ("bucketed", "global-heap"),
        ("bucketed", "tokio"),
        ("bucketed", "baseline"),
        ("bucketed", "hashed"),
        ("bucketed-reclaim", "bucketed"),
        ("tokio-wheel", "tokio"),
        ("tokio-wheel", "global-heap"),
        ("go-timers", "global-heap"),
        ("go-timers", "baseline"),
    ] {
        let cells: String = THREADS
            .iter()
            .map(|threads| {
                ratio(a, b, *threads).map_or(format!("{:>10}", "-"), |r| format!("{r:>9.2}x"))
            })
            .collect();
        println!("{:<34}{cells}", format!("{a} / {b}"));
    }
}

fn main() {
    let started = SystemTime::now();
    let mut criterion = Criterion::default()
        .output_directory(&output_directory())
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    for rpc in [false, true] {
        bench_loop(&mut criterion, rpc);
    }
    criterion.final_summary();
    for rpc in [false, true] {
        report(rpc, started);
    }
}
