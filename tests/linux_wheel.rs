//! The Linux kernel's timer wheel in the simulator: its promise is right both ways, and what
//! runs first when a frozen process thaws decides whether its base lags, which the run excuses
//! for the timers armed while it does and for no others.

use ticklab::models::sync::Primitives;
use ticklab::models::timer::{
    BuildTimerDesign, LinuxWheel, LinuxWheelDesign, Promise, TimerParams,
};
use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::{NoTrace, Summary};

const MS: u64 = 1_000_000;

/// The kernel's wheel held to an eighth of its timeouts, as its promise was once given.
struct HeldToAnEighth;

impl BuildTimerDesign for HeldToAnEighth {
    const NAME: &'static str = "linux-wheel-held-to-an-eighth";
    const ABOUT: &'static str = "the Linux kernel's wheel, promising an eighth of its timeouts";
    const PROMISE: Promise = Promise::ShareOfTimeout {
        ppm: 125_000,
        at_least_ns: 2 * MS,
    };
    type Design<S: Primitives, P: Send + 'static> = LinuxWheel<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> LinuxWheel<S, P> {
        LinuxWheelDesign::build(params)
    }
}

/// The kernel's wheel promising a fixed 2 ms, as a wheel of fixed ticks would: no share of the
/// timeout, so no lag grows it.
struct HeldToTwoJiffies;

impl BuildTimerDesign for HeldToTwoJiffies {
    const NAME: &'static str = "linux-wheel-held-to-two-jiffies";
    const ABOUT: &'static str = "the Linux kernel's wheel, promising 2 ms whatever the timeout";
    const PROMISE: Promise = Promise::Within { late_ns: 2 * MS };
    type Design<S: Primitives, P: Send + 'static> = LinuxWheel<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> LinuxWheel<S, P> {
        LinuxWheelDesign::build(params)
    }
}

fn registry() -> ticklab::Registry {
    ticklab::Registry::builtin()
        .with_timer_design::<HeldToAnEighth>()
        .with_timer_design::<HeldToTwoJiffies>()
}

/// A shipped scenario with its design replaced by `design`, and its `[expect]` by the
/// invariants alone (it may bound the wheel's own metrics), run to its summary.
fn run_shipped(file: &str, design: &str) -> Summary {
    let path = format!("{}/scenarios/timer/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let (model, _) = text.split_once("[expect]").unwrap();
    let text = format!("{model}[expect]\ninvariants = true\n").replace(
        "design = \"linux-wheel\"",
        &format!("design = \"{design}\""),
    );
    let scenario = registry().parse(&path, &text).unwrap();
    run_scenario(&scenario, &RunOptions::default(), &mut NoTrace)
        .unwrap()
        .summary
}

#[test]
fn the_wheel_keeps_its_promise_at_level_starts_where_an_eighth_is_broken() {
    for file in ["linux-wheel-rpc-64ms.toml", "linux-wheel-rpc-505ms.toml"] {
        let held = run_shipped(file, "linux-wheel");
        assert_eq!(
            held.get("invariant_violations"),
            Some(0),
            "{file}: {held:?}"
        );
        let eighth = run_shipped(file, "linux-wheel-held-to-an-eighth");
        let missed = eighth.get("missed").unwrap();
        assert!(missed > 10, "{file}: an eighth is enough? {eighth:?}");
        assert_eq!(eighth.get("timeouts"), held.get("timeouts"), "{file}");
    }
}

#[test]
fn a_timer_armed_while_the_base_lags_is_excused_for_its_timeout_plus_the_lag() {
    let summary = run_shipped(
        "linux-wheel-process-freeze-callers-first.toml",
        "linux-wheel",
    );
    assert_eq!(summary.get("filed_behind"), Some(50), "{summary:?}");
    assert_eq!(summary.get("invariant_violations"), Some(0), "{summary:?}");
    // Later than the wheel promises a 100 ms timeout: only the lag excuses it.
    let promised_ns = LinuxWheelDesign::PROMISE.late_ns(100 * MS);
    assert!(summary.get("max_lateness").unwrap() > promised_ns + 20 * MS);
}

#[test]
fn the_lag_grows_only_a_promise_that_is_a_share_of_the_timeout() {
    let summary = run_shipped(
        "linux-wheel-process-freeze-callers-first.toml",
        "linux-wheel-held-to-two-jiffies",
    );
    assert!(summary.get("missed").unwrap() > 0, "{summary:?}");
}

#[test]
fn run_first_the_timer_thread_catches_up_before_any_timer_is_filed() {
    let summary = run_shipped(
        "linux-wheel-process-freeze-timers-first.toml",
        "linux-wheel",
    );
    assert_eq!(summary.get("filed_behind"), Some(0), "{summary:?}");
    assert_eq!(summary.get("invariant_violations"), Some(0), "{summary:?}");
}

/// The trace's lines in the first milliseconds of the thaw, from the resume on, without the
/// memory sample.
fn at_the_thaw(file: &str) -> Vec<String> {
    let path = format!("{}/scenarios/timer/{file}", env!("CARGO_MANIFEST_DIR"));
    let scenario = ticklab::loader::load(std::path::Path::new(&path)).unwrap();
    let mut trace = Vec::new();
    let mut sink = ticklab::trace::TextSink::new(&mut trace);
    run_scenario(&scenario, &RunOptions::default(), &mut sink).unwrap();
    String::from_utf8(trace)
        .unwrap()
        .lines()
        .skip_while(|line| !line.contains(" resume "))
        .take_while(|line| line.trim_start().starts_with("7.400"))
        .filter(|line| !line.contains(" memory "))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_thaw_order_puts_the_timer_threads_round_before_or_after_the_calls() {
    let first = |lines: &[String], what: &str| {
        lines
            .iter()
            .position(|line| line.contains(what))
            .unwrap_or_else(|| panic!("no {what} at the thaw: {lines:#?}"))
    };
    let timers_first = at_the_thaw("linux-wheel-process-freeze-timers-first.toml");
    // A round traces what it fired, then itself.
    assert!(first(&timers_first, " round ") < first(&timers_first, " call "));
    let callers_first = at_the_thaw("linux-wheel-process-freeze-callers-first.toml");
    assert!(first(&callers_first, " call ") < first(&callers_first, " round "));
}
