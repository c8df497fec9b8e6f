//! Exploring shuttle schedules with each one recorded, and replaying a failing one: a failure
//! writes its schedule to a file and prints one line that replays it, such as
//! `replay: SHUTTLE_REPLAY=<file> cargo test --test shuttle -- --exact <test> --include-ignored`.
//!
//! shuttle exports neither the type of a schedule's step nor a way to write a schedule out, so
//! the recording is kept here, by a scheduler that wraps the real one.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use shuttle::scheduler::{
    PctScheduler, RandomScheduler, ReplayScheduler, Schedule, Scheduler, Task,
    TaskId as ShuttleTask,
};
use shuttle::{Config, FailurePersistence, Runner};

/// The default seed of both schedulers ("ticklab" in ASCII); `SHUTTLE_RANDOM_SEED` overrides
/// it inside shuttle.
const SEED: u64 = 0x0074_6963_6b6c_6162;
/// PCT's bug depth: the number of ordering constraints a bug it hunts needs.
const PCT_DEPTH: usize = 3;

#[derive(Clone, Copy, Debug)]
pub enum Strategy {
    Random,
    Pct,
}

/// Runs `check` under `strategy` for `iterations` schedules (or `SHUTTLE_ITERATIONS`). On a
/// failure, writes the schedule to a file and prints one line that replays it: `command` is what
/// runs one test of this binary, such as `cargo test --test shuttle --`. If `SHUTTLE_REPLAY` names
/// a schedule of `test`, replays that instead.
pub fn explore(
    test: &str,
    command: &str,
    strategy: Strategy,
    iterations: usize,
    check: impl Fn() + Send + Sync + 'static,
) {
    explore_part(test, None, command, strategy, iterations, check);
}

/// [`explore`] for one `part` of a test that explores several checks in turn, as the battery
/// runs its setups under both schedulers in one test: a failure's schedule names the part, and
/// its replay runs that part alone, skipping the test's other parts.
pub(crate) fn explore_part(
    test: &str,
    part: Option<&str>,
    command: &str,
    strategy: Strategy,
    iterations: usize,
    check: impl Fn() + Send + Sync + 'static,
) {
    let owner = match part {
        Some(part) => format!("{test} @ {part}"),
        None => test.to_string(),
    };
    match recording_to_replay(test, &owner) {
        Replay::This(recording) => {
            let schedule = recording.schedule();
            Runner::new(ReplayScheduler::new_from_schedule(schedule), config()).run(check);
            return;
        }
        Replay::AnotherPart => return,
        Replay::None => {}
    }
    let iterations = std::env::var("SHUTTLE_ITERATIONS")
        .map(|value| value.parse().expect("SHUTTLE_ITERATIONS is a number"))
        .unwrap_or(iterations);
    let recording = Rc::new(RefCell::new(Recording::default()));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match strategy {
        Strategy::Random => {
            let scheduler = RandomScheduler::new_from_seed(SEED, iterations);
            run_recorded(scheduler, &recording, check);
        }
        Strategy::Pct => {
            let scheduler = PctScheduler::new_from_seed(SEED, PCT_DEPTH, iterations);
            run_recorded(scheduler, &recording, check);
        }
    }));
    if let Err(failure) = outcome {
        let path = schedule_file(&owner);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create the folder");
        std::fs::write(&path, recording.borrow().encode(&owner)).expect("write the schedule");
        let path = shlex::try_quote(path.to_str().expect("a UTF-8 path")).expect("quotable");
        crate::output::note(format_args!(
            "replay: SHUTTLE_REPLAY={path} {command} --exact {test} --include-ignored"
        ));
        std::panic::resume_unwind(failure);
    }
}

/// Runs `check` under `scheduler`, keeping the current execution's schedule in `recording`.
fn run_recorded<S: Scheduler + 'static>(
    scheduler: S,
    recording: &Rc<RefCell<Recording>>,
    check: impl Fn() + Send + Sync + 'static,
) {
    Runner::new(Recorded::new(scheduler, recording), config()).run(check);
}

fn config() -> Config {
    let mut config = Config::new();
    // The one replay line above replaces shuttle's own report of the schedule.
    config.failure_persistence = FailurePersistence::None;
    // shuttle warns that it runs weaker orderings as SeqCst; loom checks them instead.
    config.silence_warnings = true;
    config
}

/// Beside the test binary, under the target folder, so a schedule outlives the run. The name
/// keeps letters, digits, `-` and `_` of the test and part it belongs to.
fn schedule_file(owner: &str) -> PathBuf {
    let binary = std::env::current_exe().expect("the test binary");
    let folder = binary
        .parent()
        .map_or_else(std::env::temp_dir, PathBuf::from);
    let name: String = owner
        .replace("::", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    folder
        .join("shuttle-schedules")
        .join(format!("{name}.schedule"))
}

/// What `SHUTTLE_REPLAY` asks of one part of a test.
enum Replay {
    /// Nothing: explore as usual.
    None,
    /// Replay this recording.
    This(Recording),
    /// The recording is another part's of the same test: skip this one.
    AnotherPart,
}

/// What the recording `SHUTTLE_REPLAY` holds means for `owner`, a part of `test`.
fn recording_to_replay(test: &str, owner: &str) -> Replay {
    let Some(path) = std::env::var_os("SHUTTLE_REPLAY") else {
        return Replay::None;
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("SHUTTLE_REPLAY={}: {error}", path.display()));
    let (recorded, recording) = Recording::decode(&text);
    if recorded == owner {
        crate::output::note(format_args!("replaying {} for {owner}", path.display()));
        Replay::This(recording)
    } else if recorded.starts_with(&format!("{test} @ ")) {
        Replay::AnotherPart
    } else {
        Replay::None
    }
}

/// One execution's scheduling decisions, as shuttle's `Schedule` holds them, kept here
/// because shuttle exports neither the type of a step nor a way to write a schedule out.
#[derive(Debug, Default)]
struct Recording {
    seed: u64,
    steps: Vec<Step>,
}

#[derive(Debug)]
enum Step {
    Task(usize),
    /// A random number drawn from the scheduler.
    Random,
}

impl Recording {
    /// Three lines: the test's name, the seed, and the steps (task numbers, `r` for a
    /// random draw).
    fn encode(&self, test: &str) -> String {
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|step| match step {
                Step::Task(task) => task.to_string(),
                Step::Random => "r".to_string(),
            })
            .collect();
        format!("{test}\n{}\n{}\n", self.seed, steps.join(" "))
    }

    /// The test's name and its recording.
    fn decode(text: &str) -> (&str, Recording) {
        let mut lines = text.lines();
        let (Some(test), Some(seed), Some(steps)) = (lines.next(), lines.next(), lines.next())
        else {
            panic!("a schedule file has three lines: test, seed, steps");
        };
        let steps = steps
            .split_whitespace()
            .map(|step| match step {
                "r" => Step::Random,
                task => Step::Task(task.parse().expect("a step is a task number or r")),
            })
            .collect();
        let seed = seed.parse().expect("the seed is a number");
        (test, Recording { seed, steps })
    }

    fn schedule(&self) -> Schedule {
        let mut schedule = Schedule::new(self.seed);
        for step in &self.steps {
            match step {
                Step::Task(task) => schedule.push_task(ShuttleTask::from(*task)),
                Step::Random => schedule.push_random(),
            }
        }
        schedule
    }
}

/// A scheduler that records the current execution's schedule as it decides it.
struct Recorded<S> {
    /// `None` only once dropped during a failure (see `Drop`).
    inner: Option<S>,
    recording: Rc<RefCell<Recording>>,
}

impl<S: Scheduler> Recorded<S> {
    fn new(inner: S, recording: &Rc<RefCell<Recording>>) -> Self {
        Recorded {
            inner: Some(inner),
            recording: recording.clone(),
        }
    }

    fn inner(&mut self) -> &mut S {
        self.inner.as_mut().expect("a scheduler")
    }
}

impl<S: Scheduler> Scheduler for Recorded<S> {
    fn new_execution(&mut self) -> Option<Schedule> {
        let schedule = self.inner().new_execution()?;
        *self.recording.borrow_mut() = Recording {
            seed: schedule.seed,
            steps: Vec::new(),
        };
        Some(schedule)
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<ShuttleTask>,
        is_yielding: bool,
    ) -> Option<ShuttleTask> {
        let next = self.inner().next_task(runnable, current, is_yielding)?;
        self.recording
            .borrow_mut()
            .steps
            .push(Step::Task(next.into()));
        Some(next)
    }

    fn next_u64(&mut self) -> u64 {
        self.recording.borrow_mut().steps.push(Step::Random);
        self.inner().next_u64()
    }
}

impl<S> Drop for Recorded<S> {
    /// shuttle's random scheduler prints a seed to replay with when it is dropped during a
    /// failure. The replay line is the one way to replay here, so a failing run leaks the
    /// scheduler instead of printing a second, different instruction.
    fn drop(&mut self) {
        if std::thread::panicking() {
            std::mem::forget(self.inner.take());
        }
    }
}

/// The test running now and the command that runs one test of its binary, for a replay line:
/// libtest names each test's thread after the test, which is what a replay must select.
pub(crate) fn this_test() -> (String, String) {
    let test = std::thread::current()
        .name()
        .unwrap_or("battery")
        .to_string();
    let binary = std::env::current_exe().expect("the test binary");
    let command = shlex::try_quote(&binary.display().to_string())
        .map(|quoted| quoted.into_owned())
        .unwrap_or_else(|_| binary.display().to_string());
    (test, command)
}

/// What a caught panic said, or a pointer to the panic above it.
pub(crate) fn panic_text(failure: &(dyn std::any::Any + Send)) -> &str {
    failure
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| failure.downcast_ref::<&str>().copied())
        .unwrap_or("see the panic above")
}
