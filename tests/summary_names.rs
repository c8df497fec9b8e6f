//! Every figure a text summary prints can be bounded in `[expect]` under the name it is printed
//! with: a user who reads `cpu_busy_in_worst_second 546us` off a run and writes
//! `max_cpu_busy_in_worst_second = "1ms"` is understood. One shipped scenario per kind is run,
//! and its summary read back.

use ticklab::run::{RunOptions, run_scenario};
use ticklab::trace::TextSink;

/// One scenario of each kind, short to run, with a CPU figure where the kind has one.
const SCENARIOS: &[&str] = &[
    "interval/windows-sleep-naive-cpu.toml",
    "timer/linux-wheel-process-freeze-callers-first.toml",
    "executor/tokio-4730-lifo-slot.toml",
    "lock/forklock-growing-heap-fork.toml",
    "idle/event-loop-bursts.toml",
    "hosts/heartbeat-busy-peer-one-core.toml",
];

/// The figures of a text summary, each as the `[expect]` table that would bound it (`None`
/// for the whole run, or the name of a part), its key and what it shows. A part's line is its
/// kind and name, then its figures, `metric value` separated by commas.
fn summary_figures(trace: &str) -> Vec<(Option<String>, String, String)> {
    let mut figures = Vec::new();
    let lines = trace
        .lines()
        .skip_while(|line| !line.starts_with("--- summary"))
        .skip(1)
        .take_while(|line| !line.starts_with("expect"));
    for line in lines {
        let (key, shown) = line.split_once(' ').unwrap();
        let shown = shown.trim();
        if !PART_KINDS.contains(&key) {
            figures.push((None, key.to_string(), shown.to_string()));
            continue;
        }
        // A thread's, a core's or a worker's line is CPU accounting (busy time, the worst second,
        // runs and steals), which the summary reports per simulated thread and `[expect]` does
        // not bound: the whole run's and each named part's figures are what it bounds.
        if ACCOUNTING.contains(&key) {
            continue;
        }
        let (part, rest) = shown.split_once(' ').unwrap();
        for figure in rest.trim().split(", ") {
            let (metric, value) = figure.split_once(' ').unwrap();
            figures.push((
                Some(part.to_string()),
                metric.to_string(),
                value.to_string(),
            ));
        }
    }
    figures
}

/// The kinds of part a summary lists after the whole run's figures.
const PART_KINDS: &[&str] = &["thread", "core", "group", "worker", "strategy", "label"];
/// The kinds of those that are the accounting of a simulated thread or core.
const ACCOUNTING: &[&str] = &["thread", "core", "worker"];

/// `[expect]`'s table bounding `key` by the value as it was printed.
fn bound(part: &Option<String>, key: &str, shown: &str) -> String {
    let table = match part {
        None => "[expect]".to_string(),
        Some(part) => format!("[expect.{part}]"),
    };
    if shown.chars().all(|c| c.is_ascii_digit()) {
        format!("{table}\nmax_{key} = {shown}\n")
    } else {
        format!("{table}\nmax_{key} = \"{shown}\"\n")
    }
}

#[test]
fn every_printed_figure_is_an_expect_name() {
    for file in SCENARIOS {
        let path = format!("{}/scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let scenario = ticklab::loader::parse(&path, &text).unwrap();
        let mut trace = Vec::new();
        run_scenario(
            &scenario,
            &RunOptions::default(),
            &mut TextSink::new(&mut trace),
        )
        .unwrap();
        let figures = summary_figures(&String::from_utf8(trace).unwrap());
        assert!(figures.len() > 3, "{file}: {figures:?}");
        let (model, _) = text.split_once("\n[expect]").unwrap_or((&text, ""));
        for (part, key, shown) in figures {
            let bounded = format!("{model}\n{}", bound(&part, &key, &shown));
            if let Err(error) = ticklab::loader::parse(&path, &bounded) {
                panic!(
                    "{file}: the summary prints `{key} {shown}` ({}), which [expect] refuses: \
                     {error}",
                    part.as_deref().unwrap_or("the whole run")
                );
            }
        }
    }
}
