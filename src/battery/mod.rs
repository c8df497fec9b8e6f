//! A ready-made model-checking battery for any timer design: the checks ticklab runs on its own
//! designs, for a design from any crate.
//!
//! A design that implements [`BuildTimerDesign`] on the [sync facade](crate::models::sync) runs
//! unchanged under loom, which explores every interleaving of a small model within a preemption
//! bound, and under shuttle, which samples random and PCT schedules of larger ones. In a plain
//! `cargo test`:
//!
//! ```no_run
//! # use ticklab::models::timer::builtin::BucketedDesign as MyDesign;
//! #[test]
//! fn my_design_passes_the_loom_battery() {
//!     ticklab::battery::loom::<MyDesign>();
//! }
//!
//! #[test]
//! fn my_design_passes_the_shuttle_battery() {
//!     ticklab::battery::shuttle::<MyDesign>();
//! }
//! ```
//!
//! Each setup starts the design's timer threads, which sleep on its signal count as a futex
//! would, while other threads schedule and cancel timers. The checks, in every interleaving:
//! - every scheduled, never-cancelled due timer runs exactly once, and no timer runs before it
//!   is due;
//! - a timer `unschedule` called `Cancelled` never runs; `Running` means it runs once; `NotFound`
//!   means it ran, with the callback's work visible to the canceller;
//! - an earlier timer wakes a thread asleep for a later one: a lost wake-up leaves every thread
//!   asleep with no deadline, which loom reports as a deadlock and shuttle as threads that never
//!   finish, or asleep until the later deadline, which runs the earlier timer late;
//! - every timer runs no earlier than its deadline and no later than its design's promise
//!   ([`BuildTimerDesign::PROMISE`]). The battery has one clock, and the main thread moves it
//!   while schedulers and cancellers still run, so a round that fires after its deadline races
//!   their every step; once they are done, it moves to the deadline a thread sleeps until, as a
//!   futex wait's timeout runs out, so a design that fires at its next tick is checked as it
//!   really runs. A timer is held to its promise from the moment it is settled (its schedule has
//!   returned and no other schedule is in flight), for its deadline less the clock its scheduler
//!   read, plus its timer thread's lag when the promise is a share of the timeout;
//! - after `stop`, the timer threads exit and every slot is free again.
//!
//! Bounds suit CI: loom at 2 preemptions unless `LOOM_MAX_PREEMPTIONS` says otherwise, shuttle
//! at 1,000 schedules per scheduler unless `SHUTTLE_ITERATIONS` does. A shuttle failure prints one
//! line that replays its schedule. [`failure_of`] runs a test in a child process and reports how
//! it failed, so a crate can prove that the battery catches a bug planted on purpose.

mod explore;
mod harness;
mod races;
pub mod scheduler;
mod setups;

use ticklab_models::sync::{LoomPrimitives, ShuttlePrimitives};
use ticklab_models::timer::{BuildTimerDesign, TimerClock, TimerParams};

pub use explore::{Strategy, explore};

/// What loom prints when every thread is blocked: a lost wake-up.
pub const DEADLOCK: &str = "deadlock; threads = ";

/// What the battery says of a timer run later than its design promises, as a thread asleep until
/// a later deadline runs it: a lost wake-up too.
pub const LATE: &str = "a thread slept past it";

/// The parameters every design is built with in the battery: few slots, buckets and threads keep
/// loom's state space small while still letting schedulers miss each other, and a heap of two
/// already gets swept, so that a design with brpc's reclaim fix has its sweep explored too.
pub fn battery_params() -> TimerParams {
    use ticklab_models::timer::KeyValue::Count;
    use ticklab_models::timer::builtin::{BUCKETS, HEAP_SWEEP_MIN_SIZE, TIMER_THREADS};
    use ticklab_models::timer::go_timers::GOMAXPROCS;
    use ticklab_models::timer::tokio_alt::WORKERS as ALT_TIMER_WORKERS;
    let mut params = TimerParams::new(TimerClock::Monotonic, 8);
    params.cores = 2;
    params
        .with(&BUCKETS, Count(2))
        .with(&TIMER_THREADS, Count(2))
        .with(&GOMAXPROCS, Count(2))
        .with(&ALT_TIMER_WORKERS, Count(2))
        .with(&HEAP_SWEEP_MIN_SIZE, Count(2))
}

/// Runs every setup of the battery under loom on design `B`. Panics, naming the setup, if loom
/// finds an interleaving that breaks a check.
pub fn loom<B: BuildTimerDesign>() {
    for setup in setups::SETUPS {
        eprintln!("battery: loom, {} on {}", setup.name, B::NAME);
        setups::run_loom::<B>(*setup);
    }
}

/// Runs one setup of the battery under loom, by name (see [`setup_names`]).
pub fn loom_setup<B: BuildTimerDesign>(name: &str) {
    setups::run_loom::<B>(setups::by_name(name));
}

/// Runs every setup of the battery under shuttle's random and PCT schedulers on design `B`,
/// with more threads and timers than loom can explore.
pub fn shuttle<B: BuildTimerDesign>() {
    for setup in setups::SETUPS {
        for strategy in [Strategy::Random, Strategy::Pct] {
            eprintln!(
                "battery: shuttle ({strategy:?}), {} on {}",
                setup.name,
                B::NAME
            );
            setups::run_shuttle::<B>(*setup, strategy);
        }
    }
}

/// The names of the battery's setups, in the order [`loom`](fn@loom) and
/// [`shuttle`](fn@shuttle) run them.
pub fn setup_names() -> impl Iterator<Item = &'static str> {
    setups::SETUPS.iter().map(|setup| setup.name)
}

/// The design on loom's primitives, with the battery's parameters.
fn on_loom<B: BuildTimerDesign>() -> B::Design<LoomPrimitives, usize> {
    B::build::<LoomPrimitives, usize>(&battery_params())
}

/// The design on shuttle's primitives, with room for the larger setups.
fn on_shuttle<B: BuildTimerDesign>() -> B::Design<ShuttlePrimitives, usize> {
    let mut params = battery_params();
    params.capacity = 64;
    B::build::<ShuttlePrimitives, usize>(&params)
}

/// How a test run in a child process by [`failure_of`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    /// The message of its first panic: later ones are the checker unwinding the failed model.
    pub message: String,
    /// The command its failure printed to replay it (shuttle's schedules), if any.
    pub replay: Option<String>,
}

/// Runs the ignored test `test` of the current test binary in a child process, and says how it
/// failed, or `None` if it passed. A model checker's failure can abort the process, so proving
/// that the battery catches a planted bug needs a process of its own:
///
/// ```no_run
/// #[test]
/// #[ignore = "run in a child process by the test below"]
/// fn planted_bug_under_loom() {
///     // ticklab::battery::loom::<MyDesignWithAPlantedBug>();
/// }
///
/// #[test]
/// fn the_loom_battery_catches_the_planted_bug() {
///     let failed = ticklab::battery::failure_of("planted_bug_under_loom").expect("caught");
///     assert!(failed.message.contains(ticklab::battery::DEADLOCK), "{failed:?}");
/// }
/// ```
pub fn failure_of(test: &str) -> Option<Failed> {
    failure_of_command(
        std::process::Command::new(std::env::current_exe().expect("the test binary")).args([
            "--exact",
            test,
            "--ignored",
            "--test-threads=1",
        ]),
        test,
    )
}

/// Runs a replay command that a failure printed (`SHUTTLE_REPLAY=<file> <binary> --exact <test>
/// --include-ignored`) and says how it failed, or `None` if it passed.
pub fn failure_of_replay(replay: &str) -> Option<Failed> {
    let words = shlex::split(replay).expect("a replay command is a shell command");
    let (assignment, command) = words.split_first().expect("a replay command");
    let (variable, value) = assignment
        .split_once('=')
        .expect("a replay command starts with its schedule");
    let test = command
        .iter()
        .skip_while(|word| *word != "--exact")
        .nth(1)
        .cloned()
        .unwrap_or_default();
    failure_of_command(
        std::process::Command::new(&command[0])
            .args(&command[1..])
            .env(variable, value),
        &test,
    )
}

fn failure_of_command(command: &mut std::process::Command, test: &str) -> Option<Failed> {
    let output = command
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("the test binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        text.contains("running 1 test"),
        "the child did not run `{test}`: {text}"
    );
    if output.status.success() {
        return None;
    }
    let mut lines = text
        .lines()
        .skip_while(|line| !line.contains("panicked at"));
    let message = lines.nth(1).unwrap_or("").to_string();
    let replay = text
        .lines()
        .find_map(|line| line.strip_prefix("replay: "))
        .map(str::to_string);
    Some(Failed { message, replay })
}
