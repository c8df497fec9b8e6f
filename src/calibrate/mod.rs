//! `ticklab calibrate`: what system calls cost on this host, measured with real calls and given as
//! a cost profile in the format of `profiles/reference.toml`.
//!
//! Every figure is a p50 and a p99 over many runs, timed on the monotonic clock. The measuring
//! modules make the system calls through `libc`, so they are the only ones allowed unsafe code.
//! Linux only: the figures are Linux system calls (`prctl`, `epoll`, `clone`).

#[allow(unsafe_code)]
mod host;
#[allow(unsafe_code)]
mod memory;
mod render;
#[allow(unsafe_code)]
mod spawn;
mod stats;
#[allow(unsafe_code)]
mod timing;

use std::collections::BTreeMap;
use std::fmt;
use std::io;

use indicatif::{ProgressBar, ProgressStyle};

use crate::profile::{Cost, Costs};
pub use host::Host;
use render::duration;
use stats::{Samples, least_squares_slope, valid_cost};

const MIB: u64 = 1024 * 1024;

/// How thoroughly to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Far fewer runs and less memory: a rough profile in a few seconds.
    Quick,
    /// Enough runs for a steady p99, and fork up to 1 GiB: under a minute.
    Full,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Quick => "quick",
            Mode::Full => "full",
        }
    }

    fn plan(self) -> Plan {
        match self {
            Mode::Quick => QUICK,
            Mode::Full => FULL,
        }
    }
}

/// How many runs each figure takes.
#[derive(Clone, Copy, Debug)]
struct Plan {
    yields: u64,
    sleep_batches: u64,
    sleep_calls_per_batch: u64,
    spin_batches: u64,
    spin_iterations_per_batch: u64,
    condvar_timeouts: u64,
    condvar_wakes: u64,
    epoll_timeouts: u64,
    /// Extra memory mapped and touched for the fork figures, smallest first.
    fork_sizes_mib: [u64; 3],
    forks_per_size: u64,
    vforks: u64,
    spawns: u64,
}

const FULL: Plan = Plan {
    yields: 200_000,
    sleep_batches: 200,
    sleep_calls_per_batch: 100,
    spin_batches: 2_000,
    spin_iterations_per_batch: 100_000,
    condvar_timeouts: 3_000,
    condvar_wakes: 5_000,
    epoll_timeouts: 3_000,
    fork_sizes_mib: [0, 256, 1024],
    forks_per_size: 200,
    vforks: 2_000,
    spawns: 1_000,
};

const QUICK: Plan = Plan {
    yields: 20_000,
    sleep_batches: 20,
    sleep_calls_per_batch: 50,
    spin_batches: 200,
    spin_iterations_per_batch: 10_000,
    condvar_timeouts: 300,
    condvar_wakes: 500,
    epoll_timeouts: 300,
    fork_sizes_mib: [0, 32, 128],
    forks_per_size: 50,
    vforks: 300,
    spawns: 200,
};

/// A measured profile.
#[derive(Clone, Debug)]
pub struct Calibration {
    pub mode: Mode,
    pub host: Host,
    pub costs: Costs,
    /// Comment lines written above each figure, by its name in the profile: what was measured,
    /// how often, and fork's raw points.
    pub notes: BTreeMap<&'static str, Vec<String>>,
}

/// Why a calibration could not finish.
#[derive(Debug)]
pub enum CalibrateError {
    /// A system call failed while measuring `what`.
    Measuring { what: String, error: io::Error },
    /// Too little memory for fork at two sizes, which `fork_per_gib` needs.
    NotEnoughMemory {
        available_bytes: u64,
        needed_mib: u64,
    },
}

impl fmt::Display for CalibrateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalibrateError::Measuring { what, error } => {
                write!(f, "cannot measure {what}: {error}")
            }
            CalibrateError::NotEnoughMemory {
                available_bytes,
                needed_mib,
            } => write!(
                f,
                "MemAvailable is {} MiB, but fork_per_gib needs fork timed with +{needed_mib} MiB \
                 mapped, which may take at most half of it; free some memory, or pass --quick, \
                 which maps less",
                available_bytes / MIB
            ),
        }
    }
}

impl std::error::Error for CalibrateError {}

fn failed(what: impl Into<String>) -> impl FnOnce(io::Error) -> CalibrateError {
    move |error| CalibrateError::Measuring {
        what: what.into(),
        error,
    }
}

/// Measures every figure, showing a progress bar for each on stderr when it is a terminal.
pub fn calibrate(mode: Mode) -> Result<Calibration, CalibrateError> {
    let plan = mode.plan();
    let host = Host::read().map_err(failed("the host"))?;
    let fork_sizes_mib = fork_sizes_mib(&plan, host.mem_available_bytes)?;
    let mut notes = Notes::new();

    let (sched_yield, nanosleep_zero, nanosleep_zero_cpu) =
        measure_yield_and_sleep(&plan, &mut notes)?;
    let timer_slack_ns = timing::timer_slack_ns().map_err(failed("timer_slack"))?;
    notes.insert(
        "timer_slack",
        vec!["prctl(PR_GET_TIMERSLACK) of the measuring thread.".to_string()],
    );

    let spin_iteration = measure_spin(&plan, &mut notes)?;
    let (condvar_timeout_overshoot, condvar_signal_to_wake, epoll_timeout_overshoot) =
        measure_waits(&plan, &mut notes)?;
    let processes = measure_processes(&plan, &fork_sizes_mib)?;
    notes.extend(processes.notes());

    Ok(Calibration {
        mode,
        host,
        costs: Costs {
            sched_yield,
            nanosleep_zero,
            nanosleep_zero_cpu,
            timer_slack_ns,
            spin_iteration,
            condvar_timeout_overshoot,
            condvar_signal_to_wake,
            epoll_timeout_overshoot,
            fork_base: processes.forks[0].cost,
            fork_per_gib: processes.fork_per_gib(),
            vfork: processes.vfork_largest.cost,
            posix_spawn: processes.posix_spawn.cost,
        },
        notes,
    })
}

/// What each figure is, in words, by its name.
type Notes = BTreeMap<&'static str, Vec<String>>;

/// The costs of giving up the CPU: `sched_yield`, and `nanosleep(0)` in wall and CPU time.
fn measure_yield_and_sleep(
    plan: &Plan,
    notes: &mut Notes,
) -> Result<(Cost, Cost, Cost), CalibrateError> {
    let sched_yield = measure("sched_yield", plan.yields, |bar| {
        timing::sched_yield(plan.yields, bar)
    })?;
    notes.insert(
        "sched_yield",
        vec![format!(
            "Wall time per sched_yield() call from one thread; {} calls.",
            sched_yield.len()
        )],
    );

    let sleep_zero = measure("nanosleep_zero", plan.sleep_batches, |bar| {
        timing::nanosleep_zero(plan.sleep_batches, plan.sleep_calls_per_batch, bar)
    })?;
    notes.insert(
        "nanosleep_zero",
        vec![format!(
            "Wall time per nanosleep() with a zero timespec; {} calls.",
            sleep_zero.wall.len()
        )],
    );
    notes.insert(
        "nanosleep_zero_cpu",
        vec![format!(
            "CPU time (user + system, getrusage(RUSAGE_THREAD)) per nanosleep(0) call, over \
             batches of {} calls; {} batches.",
            plan.sleep_calls_per_batch,
            sleep_zero.cpu.len()
        )],
    );
    Ok((
        sched_yield.cost(),
        sleep_zero.wall.cost(),
        sleep_zero.cpu.cost(),
    ))
}

/// The cost of one iteration of an empty loop, the unit of simulated spinning.
fn measure_spin(plan: &Plan, notes: &mut Notes) -> Result<Cost, CalibrateError> {
    let spin = measure("spin_iteration", plan.spin_batches, |bar| {
        Ok(timing::spin_iteration(
            plan.spin_batches,
            plan.spin_iterations_per_batch,
            bar,
        ))
    })?;
    notes.insert(
        "spin_iteration",
        vec![format!(
            "One iteration of an empty loop through std::hint::black_box, over batches of {} \
             iterations; {} batches. 1ns is the least a profile can say.",
            plan.spin_iterations_per_batch,
            spin.len()
        )],
    );
    Ok(spin.cost())
}

/// How late timed waits end, and how soon a signalled waiter runs: condition variables and
/// `epoll_wait`.
fn measure_waits(plan: &Plan, notes: &mut Notes) -> Result<(Cost, Cost, Cost), CalibrateError> {
    let condvar_timeout = measure("condvar_timeout_overshoot", plan.condvar_timeouts, |bar| {
        Ok(timing::condvar_timeout_overshoot(
            plan.condvar_timeouts,
            bar,
        ))
    })?;
    notes.insert(
        "condvar_timeout_overshoot",
        vec![format!(
            "std::sync::Condvar::wait_timeout of 1 ms that nobody signals: elapsed minus 1 ms; \
             {} waits.",
            condvar_timeout.len()
        )],
    );

    let condvar_wake = measure("condvar_signal_to_wake", plan.condvar_wakes, |bar| {
        timing::condvar_signal_to_wake(plan.condvar_wakes, bar)
    })?;
    notes.insert(
        "condvar_signal_to_wake",
        vec![format!(
            "From Condvar::notify_one to the sleeping waiter running; {} wakes.",
            condvar_wake.len()
        )],
    );

    let epoll_timeout = measure("epoll_timeout_overshoot", plan.epoll_timeouts, |bar| {
        timing::epoll_timeout_overshoot(plan.epoll_timeouts, bar)
    })?;
    notes.insert(
        "epoll_timeout_overshoot",
        vec![format!(
            "epoll_wait with a 1 ms timeout on an empty epoll set: elapsed minus 1 ms; {} waits.",
            epoll_timeout.len()
        )],
    );
    Ok((
        condvar_timeout.cost(),
        condvar_wake.cost(),
        epoll_timeout.cost(),
    ))
}

/// The sizes fork is timed at: those of the plan that take at most half the available memory,
/// so that calibrating never pushes the host into swapping or the OOM killer.
fn fork_sizes_mib(plan: &Plan, available_bytes: u64) -> Result<Vec<u64>, CalibrateError> {
    let mut sizes = Vec::new();
    for &mib in &plan.fork_sizes_mib {
        if mib * MIB > available_bytes / 2 {
            crate::output::note(format_args!(
                "calibrate: skipping fork at +{mib} MiB: MemAvailable is {} MiB, and a size may \
                 take at most half of it",
                available_bytes / MIB
            ));
        } else {
            sizes.push(mib);
        }
    }
    if sizes.len() < 2 {
        return Err(CalibrateError::NotEnoughMemory {
            available_bytes,
            needed_mib: plan.fork_sizes_mib[1],
        });
    }
    Ok(sizes)
}

/// One figure measured at one size of extra memory.
#[derive(Clone, Copy, Debug)]
struct Point {
    mib: u64,
    cost: Cost,
    runs: u64,
}

impl Point {
    fn new(mib: u64, samples: &Samples) -> Self {
        Point {
            mib,
            cost: samples.cost(),
            runs: samples.len(),
        }
    }

    fn describe(&self, runs_of: &str) -> String {
        format!(
            "+{} MiB: p50 {}, p99 {} ({} {runs_of})",
            self.mib,
            duration(self.cost.p50_ns),
            duration(self.cost.p99_ns),
            self.runs
        )
    }
}

/// The process-starting figures.
#[derive(Debug)]
struct Processes {
    /// fork at each size, smallest first.
    forks: Vec<Point>,
    vfork_smallest: Point,
    vfork_largest: Point,
    posix_spawn: Point,
}

fn measure_processes(plan: &Plan, sizes_mib: &[u64]) -> Result<Processes, CalibrateError> {
    let mut forks = Vec::new();
    let mut vforks = Vec::new();
    let mut posix_spawn = None;
    for (index, &mib) in sizes_mib.iter().enumerate() {
        let bytes = usize::try_from(mib * MIB).expect("fork sizes fit the address space");
        let _memory =
            memory::Touched::map(bytes).map_err(failed(format!("fork: mapping {mib} MiB")))?;
        let samples = measure(&format!("fork +{mib} MiB"), plan.forks_per_size, |bar| {
            spawn::fork(plan.forks_per_size, bar)
        })?;
        forks.push(Point::new(mib, &samples));
        // vfork copies no memory, so it is timed at both ends to show that it stays flat.
        if index == 0 || index == sizes_mib.len() - 1 {
            let samples = measure(&format!("vfork +{mib} MiB"), plan.vforks, |bar| {
                spawn::vfork(plan.vforks, bar)
            })?;
            vforks.push(Point::new(mib, &samples));
        }
        if index == 0 {
            let samples = measure("posix_spawn", plan.spawns, |bar| {
                spawn::posix_spawn(plan.spawns, bar)
            })?;
            posix_spawn = Some(Point::new(mib, &samples));
        }
    }
    Ok(Processes {
        forks,
        vfork_smallest: vforks[0],
        vfork_largest: vforks[vforks.len() - 1],
        posix_spawn: posix_spawn.expect("posix_spawn is timed at the first size"),
    })
}

impl Processes {
    /// The least-squares slopes of fork's p50 and p99 against GiB mapped.
    fn fork_per_gib(&self) -> Cost {
        let slope_ns = |percentile: fn(&Cost) -> u64| {
            let points: Vec<(f64, f64)> = self
                .forks
                .iter()
                .map(|point| (point.mib as f64 / 1024.0, percentile(&point.cost) as f64))
                .collect();
            // Negative (noise with little memory) and undefined slopes become 0, then 1 ns.
            least_squares_slope(&points).map_or(0, |slope| slope.round().max(0.0) as u64)
        };
        valid_cost(slope_ns(|cost| cost.p50_ns), slope_ns(|cost| cost.p99_ns))
    }

    fn notes(&self) -> Vec<(&'static str, Vec<String>)> {
        let smallest = &self.forks[0];
        let mut per_gib = vec![
            "Least-squares slope of fork's p50 (and of its p99) against GiB mapped and touched in \
             4 KiB pages, through these points:"
                .to_string(),
        ];
        per_gib.extend(
            self.forks
                .iter()
                .map(|point| format!("  fork {}", point.describe("forks"))),
        );
        vec![
            (
                "fork_base",
                vec![format!(
                    "fork() until it returns in the parent, whose child calls _exit(0) at once, \
                     at +{} MiB mapped; {} forks.",
                    smallest.mib, smallest.runs
                )],
            ),
            ("fork_per_gib", per_gib),
            (
                "vfork",
                vec![
                    "clone(CLONE_VM | CLONE_VFORK | SIGCHLD) until it returns in the parent, at \
                     the largest size; it copies no memory, so it stays flat:"
                        .to_string(),
                    format!("  vfork {}", self.vfork_smallest.describe("clones")),
                    format!("  vfork {}", self.vfork_largest.describe("clones")),
                ],
            ),
            (
                "posix_spawn",
                vec![format!(
                    "posix_spawn of /bin/true until it returns in the parent; {} spawns.",
                    self.posix_spawn.runs
                )],
            ),
        ]
    }
}

/// Runs one measurement of `runs` steps under a progress bar, which shows the result when done.
fn measure<T, F>(label: &str, runs: u64, run: F) -> Result<T, CalibrateError>
where
    T: Shown,
    F: FnOnce(&ProgressBar) -> io::Result<T>,
{
    let bar = ProgressBar::new(runs);
    bar.set_style(
        ProgressStyle::with_template("{prefix:<26} [{bar:30}] {pos:>6}/{len:6} {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());
    let measured = run(&bar).map_err(failed(label))?;
    bar.finish_with_message(measured.shown());
    Ok(measured)
}

/// What a finished progress bar says.
trait Shown {
    fn shown(&self) -> String;
}

fn percentiles(cost: Cost) -> String {
    format!(
        "p50 {}, p99 {}",
        duration(cost.p50_ns),
        duration(cost.p99_ns)
    )
}

impl Shown for Samples {
    fn shown(&self) -> String {
        percentiles(self.cost())
    }
}

impl Shown for timing::SleepZero {
    fn shown(&self) -> String {
        format!(
            "{}; CPU {}",
            percentiles(self.wall.cost()),
            percentiles(self.cpu.cost())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_above_half_the_available_memory_are_skipped() {
        assert_eq!(
            fork_sizes_mib(&FULL, 64 * 1024 * MIB).unwrap(),
            [0, 256, 1024]
        );
        assert_eq!(fork_sizes_mib(&FULL, 1024 * MIB).unwrap(), [0, 256]);
        assert_eq!(fork_sizes_mib(&QUICK, 100 * MIB).unwrap(), [0, 32]);
    }

    #[test]
    fn too_little_memory_for_two_sizes_is_an_error_that_suggests_quick() {
        let error = fork_sizes_mib(&FULL, 300 * MIB).unwrap_err();
        assert!(
            matches!(
                error,
                CalibrateError::NotEnoughMemory {
                    needed_mib: 256,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(error.to_string().contains("--quick"), "{error}");
    }

    fn point(mib: u64, p50_ns: u64, p99_ns: u64) -> Point {
        Point {
            mib,
            cost: Cost { p50_ns, p99_ns },
            runs: 10,
        }
    }

    fn processes(forks: Vec<Point>) -> Processes {
        let vfork = point(0, 30_000, 50_000);
        Processes {
            forks,
            vfork_smallest: vfork,
            vfork_largest: vfork,
            posix_spawn: point(0, 110_000, 150_000),
        }
    }

    #[test]
    fn fork_per_gib_is_the_slope_through_each_percentile() {
        // semantics.md section 6: 56 us, 5.6 ms at 256 MB, 27 ms at 1 GB.
        let fork = processes(vec![
            point(0, 56_000, 80_000),
            point(256, 5_600_000, 7_000_000),
            point(1024, 27_000_000, 33_000_000),
        ]);
        let per_gib = fork.fork_per_gib();
        // Least squares through (0, 0.056), (0.25, 5.6) and (1, 27) ms: about 27.3 ms per GiB.
        assert!(
            (26_500_000..27_500_000).contains(&per_gib.p50_ns),
            "{per_gib:?}"
        );
        assert!(per_gib.p99_ns > per_gib.p50_ns, "{per_gib:?}");
    }

    #[test]
    fn a_fork_cost_that_falls_with_memory_still_gives_a_valid_figure() {
        let fork = processes(vec![point(0, 90_000, 400_000), point(32, 80_000, 90_000)]);
        assert_eq!(fork.fork_per_gib(), Cost::fixed(1));
        let notes = fork.notes();
        let (name, lines) = &notes[1];
        assert_eq!(*name, "fork_per_gib");
        assert_eq!(lines[1], "  fork +0 MiB: p50 90us, p99 400us (10 forks)");
    }
}
