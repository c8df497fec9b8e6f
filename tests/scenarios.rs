//! Every scenario under `scenarios/`: its trace matches the reviewed snapshot. New scenario files
//! are picked up without code changes.
//!
//! A snapshot shows the elided text trace a reviewer reads, and ends with the size and SHA-256 of
//! the whole JSON-lines trace, so that a change anywhere in the run (mid-run timing with the same
//! totals, say) changes the snapshot too. A committed snapshot was written by another process, so
//! a match is also the scenario's determinism check; a trace that differs from its snapshot (or
//! has none yet) is run again, and two runs that differ are reported as not deterministic before
//! any snapshot is written.
//!
//! Scenarios under a `full-scale/` folder (brpc #3383's 40 M calls, the 10,000-host hour) have
//! traces of gigabytes and take many minutes in a debug build, so the debug tests leave them out.
//! Their snapshot is the summary, which `ticklab check` also reads, and
//! `full_scale_scenarios_match_their_snapshots` (ignored by a plain `cargo test`) compares it:
//! `.ci/run` runs each once with the release binary `.ci/crate-user.sh` installs from the
//! package (`ticklab run FILE --summary-only`, which checks its [expect] too), and this test,
//! with `FULL_SCALE_SUMMARIES` naming the folder of those summaries, compares them; without it, the test runs the scenarios
//! itself (`cargo test --release --test scenarios -- --ignored`). The snapshot was written by
//! another process, so a match is also their determinism check.
//!
//! Which scenarios are full scale is decided by the folder alone. A scenario outside one whose
//! trace passes [`LIGHT_TRACE_BYTES`] fails the debug tests, and a `.ci/run` without the
//! full-scale step fails them too, so that no scenario is left out of both.

use std::hash::{DefaultHasher, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use ticklab::loader;
use ticklab::run::{RunOptions, run_scenario};
use ticklab::scenario::Scenario;
use ticklab::trace::{JsonlSink, TextSink};

/// Snapshots keep the first and last few ticks of each run between faults; the summary carries
/// the totals, so a changed burst still changes the snapshot.
const SNAPSHOT_TICKS_KEPT: usize = 3;

fn load(path: &Path) -> Scenario {
    let relative = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path);
    let text = std::fs::read_to_string(path).unwrap();
    loader::parse(&relative.display().to_string(), &text).unwrap_or_else(|error| panic!("{error}"))
}

fn is_full_scale(path: &Path) -> bool {
    path.components()
        .any(|part| part.as_os_str() == "full-scale")
}

/// The largest whole JSON-lines trace a scenario outside `full-scale/` may write. The debug tests
/// write each such trace four times, and the largest shipped one is 285 MB (brpc #3383 at small
/// scale); one past this belongs in a `full-scale/` folder, which is run in release.
const LIGHT_TRACE_BYTES: u64 = 512 << 20;

/// The scenarios the debug tests run: all but those under `full-scale/`.
fn light_scenario_files() -> Vec<(String, PathBuf)> {
    let mut files = scenario_files();
    files.retain(|(_, path)| !is_full_scale(path));
    files
}

fn summary_trace(scenario: &Scenario) -> String {
    let mut sink = ticklab::trace::SummaryOnly(TextSink::new(Vec::new()));
    run_scenario(scenario, &RunOptions::default(), &mut sink).unwrap();
    String::from_utf8(sink.0.into_inner()).unwrap()
}

fn text_trace(scenario: &Scenario) -> String {
    let mut sink = TextSink::new(Vec::new()).eliding_after(SNAPSHOT_TICKS_KEPT);
    run_scenario(scenario, &RunOptions::default(), &mut sink).unwrap();
    String::from_utf8(sink.into_inner()).unwrap()
}

/// Hashes everything written with SHA-256, which stays the same on every toolchain and machine.
#[derive(Default)]
struct Sha256Writer {
    hasher: sha2::Sha256,
    bytes: u64,
}

impl Write for Sha256Writer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        sha2::Digest::update(&mut self.hasher, buf);
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The snapshot: the elided text trace, then one line standing for the whole JSON-lines trace;
/// and the size of that trace in bytes.
fn snapshot(scenario: &Scenario) -> (String, u64) {
    let mut sink = JsonlSink::new(Sha256Writer::default());
    run_scenario(scenario, &RunOptions::default(), &mut sink).unwrap();
    let whole = sink.into_inner();
    let digest = sha2::Digest::finalize(whole.hasher);
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    let snapshot = format!(
        "{}# the whole trace as JSON lines: {} bytes, sha256 {hex}\n",
        text_trace(scenario),
        whole.bytes
    );
    (snapshot, whole.bytes)
}

/// Every scenario file, sorted, as (snapshot name, path): `interval/matrix/linux-…-naive.toml`
/// is named `interval__matrix__linux-…-naive`.
fn scenario_files() -> Vec<(String, PathBuf)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&folder)
        .follow_links(true)
        .sort_by_file_name()
    {
        let path = entry.unwrap().into_path();
        if path.extension().is_some_and(|ext| ext == "toml") {
            let relative = path.strip_prefix(&folder).unwrap().with_extension("");
            let name = relative
                .iter()
                .map(|part| part.to_string_lossy())
                .collect::<Vec<_>>()
                .join("__");
            files.push((name, path));
        }
    }
    files
}

/// Compares each (name, path, trace) with its snapshot, and fails naming every one that differs,
/// so that one run reports (and writes) all changed snapshots. A trace that differs is made again
/// by `rerun`: if the two runs differ, the scenario is reported as not deterministic and no
/// snapshot is written for it.
fn assert_snapshots(traces: Vec<(String, PathBuf, String)>, rerun: impl Fn(&Path) -> String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let mut mismatches = Vec::new();
    let mut nondeterministic = Vec::new();
    for (name, path, trace) in traces {
        if !matches_snapshot(&name, &trace) && rerun(&path) != trace {
            nondeterministic.push(name);
            continue;
        }
        settings.set_input_file(&path);
        let assert = || settings.bind(|| insta::assert_snapshot!(name.as_str(), trace));
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(assert));
        if checked.is_err() {
            mismatches.push(name);
        }
    }
    assert!(
        nondeterministic.is_empty(),
        "two runs of the same scenario and seed gave different traces: {nondeterministic:?}"
    );
    assert!(
        mismatches.is_empty(),
        "traces differ from their snapshots: {mismatches:?}"
    );
}

/// Whether `trace` is the committed snapshot `name`, read without insta, which would write one.
fn matches_snapshot(name: &str, trace: &str) -> bool {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(format!("{name}.snap"));
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    // insta's header (between two `---` lines) comes first, then the snapshot itself.
    let body = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or("", |(_, body)| body);
    body.trim_end() == trace.trim_end()
}

#[test]
fn every_scenario_but_full_scale_matches_its_snapshot() {
    use rayon::prelude::*;
    let files = light_scenario_files();
    assert!(files.len() >= 60, "only {} scenarios found", files.len());
    // The runs, on every core; the comparisons one by one (insta's settings belong to a thread).
    let traces = files
        .into_par_iter()
        .map(|(name, path)| {
            let (trace, bytes) = snapshot(&load(&path));
            assert!(
                bytes <= LIGHT_TRACE_BYTES,
                "{}: its trace is {bytes} bytes, more than the debug tests run \
                 ({LIGHT_TRACE_BYTES}): move it under a full-scale/ folder, which .ci/run checks \
                 in release",
                path.display(),
            );
            (name, path, trace)
        })
        .collect();
    assert_snapshots(traces, |path| snapshot(&load(path)).0);
}

/// Where `.ci/run` wrote the summaries of the full-scale scenarios, with the release binary.
const SUMMARIES: &str = "FULL_SCALE_SUMMARIES";

/// The summary trace of a full-scale scenario: the file `ticklab run FILE --summary-only` wrote
/// under `$FULL_SCALE_SUMMARIES` (at the scenario's path, `.toml` replaced by `.txt`), or else a
/// run of it here.
fn full_scale_summary(name: &str, path: &Path) -> String {
    let Some(folder) = std::env::var_os(SUMMARIES) else {
        return summary_trace(&load(path));
    };
    let relative = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap()
        .with_extension("txt");
    let written = Path::new(&folder).join(relative);
    std::fs::read_to_string(&written).unwrap_or_else(|error| {
        panic!(
            "{name}: no summary at {} ({error}); write it with `ticklab run {} --summary-only \
             --out {}`, as .ci/run does",
            written.display(),
            path.display(),
            written.display()
        )
    })
}

/// The full-scale scenarios' summaries against their snapshots; those runs happen in parallel, as
/// most of the time goes to the largest, and the comparisons one by one (insta's settings belong
/// to a thread).
#[test]
#[ignore = "full scale: .ci/run compares the summaries its release build writes"]
fn full_scale_scenarios_match_their_snapshots() {
    use rayon::prelude::*;
    let mut files = scenario_files();
    files.retain(|(_, path)| is_full_scale(path));
    assert!(!files.is_empty(), "no scenario under a full-scale/ folder");
    let traces = files
        .into_par_iter()
        .map(|(name, path)| {
            let trace = full_scale_summary(&name, &path);
            (name, path, trace)
        })
        .collect();
    assert_snapshots(traces, |path| {
        full_scale_summary("a full-scale scenario", path)
    });
}

/// The debug tests leave out `full-scale/`, trusting `.ci/run` to run those scenarios in release:
/// with the binary `.ci/crate-user.sh` installs, it runs each once, checking its [expect] and
/// writing its summary for `full_scale_scenarios_match_their_snapshots`. Without these lines,
/// nothing would check them.
#[test]
fn ci_compares_the_full_scale_scenarios_with_their_snapshots() {
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    for line in [
        "ticklab=target/crate-user/install/bin/ticklab",
        "find scenarios -path '*/full-scale/*' -name '*.toml' | sort | xargs -n 1 -P 2 bash -c 'run_full_scale \"$0\"'",
        "\"$ticklab\" run \"$file\" --summary-only --out \"$summaries/${file%.toml}.txt\" --force",
        "FULL_SCALE_SUMMARIES=\"$PWD/$summaries\" cargo test --test scenarios -- --ignored",
    ] {
        assert!(
            script.lines().any(|each| each.contains(line)),
            ".ci/run no longer runs `{line}`: the full-scale scenarios' snapshots would go unchecked"
        );
    }
}

/// Counts and hashes bytes, so that huge traces can be compared without holding them.
#[derive(Default)]
struct Fingerprint {
    hasher: DefaultHasher,
    bytes: u64,
}

impl Write for Fingerprint {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.hasher.write(buf);
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_different_seed_changes_a_seeded_trace() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/interval/load-1000-intervals.toml");
    let scenario = load(&path);
    let with_seed = |seed| {
        let mut sink = JsonlSink::new(Fingerprint::default());
        run_scenario(
            &scenario,
            &RunOptions {
                seed: Some(seed),
                ..RunOptions::default()
            },
            &mut sink,
        )
        .unwrap();
        sink.into_inner().hasher.finish()
    };
    assert_ne!(with_seed(1), with_seed(2));
    assert_eq!(with_seed(1), with_seed(1));
}

#[test]
fn every_snapshot_belongs_to_a_scenario() {
    let names: Vec<String> = scenario_files().into_iter().map(|(name, _)| name).collect();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    let orphans: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|file| file.strip_suffix(".snap").map(str::to_string))
        .filter(|name| !names.contains(name))
        .collect();
    assert!(
        orphans.is_empty(),
        "snapshots without a scenario (delete them): {orphans:?}"
    );
}

#[test]
fn every_registered_timer_design_has_a_shipped_scenario() {
    let registry = ticklab::Registry::builtin();
    let named: Vec<String> = scenario_files()
        .iter()
        .filter_map(|(_, path)| {
            let scenario = load(path);
            let config = scenario.model.config::<ticklab::timer::TimerConfig>()?;
            Some(config.design.name.to_string())
        })
        .collect();
    for design in registry.timer_designs() {
        assert!(
            named.iter().any(|name| name == design.name),
            "no scenario under scenarios/timer/ names the design `{}`",
            design.name
        );
    }
}

#[test]
fn a_committed_snapshot_is_read_as_insta_wrote_it() {
    let (name, path) = light_scenario_files()
        .into_iter()
        .next()
        .expect("a light scenario");
    let (trace, _) = snapshot(&load(&path));
    assert!(matches_snapshot(&name, &trace), "{name}");
    assert!(!matches_snapshot(&name, &format!("{trace}one more line\n")));
    assert!(!matches_snapshot("no-such-scenario", &trace));
}

/// A planted scenario whose second run differs from its first is reported as not deterministic,
/// and no snapshot is written for it.
#[test]
fn a_trace_that_changes_between_two_runs_is_reported_as_not_deterministic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/planted-nondeterminism.toml");
    let traces = vec![(
        "planted-nondeterminism".to_string(),
        path,
        "first run\n".to_string(),
    )];
    let failure = std::panic::catch_unwind(|| assert_snapshots(traces, |_| "second run\n".into()))
        .expect_err("a trace that differs between runs must fail");
    let message = failure
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("two runs of the same scenario and seed gave different traces")
            && message.contains("planted-nondeterminism"),
        "{message}"
    );
    let written = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    assert!(!written.join("planted-nondeterminism.snap").exists());
    assert!(!written.join("planted-nondeterminism.snap.new").exists());
}
