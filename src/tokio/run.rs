//! Running the code under test, and what a run leaves: how it ended, its notes and its trace.

use std::future::{Future, poll_fn};
use std::io::{self, Write};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use ticklab_sim::Approx;

use super::context::Entered;
use super::events::Note;
use super::harness::RunOptions;
use super::os::{self, answer::Role, answer::RunClocks, answer::Scope};
use super::runtime::{Live, build_runtime};
use super::shared::Shared;
use super::stall_watch::StallWatch;
use super::standstill::WHY_IT_NEVER_ENDS;
use super::summary::summarise;
use super::timeline::{Recorded, Timeline};
use crate::scenario::setting::Conditions;
use crate::trace::{Event, JsonlSink, StartEvent, Summary, TextSink, TraceSink, Wall};

/// How the code under test ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended<T> {
    /// Its future completed at `at_ns` of physical time, with `value`.
    Finished { value: T, at_ns: u64 },
    /// The run's physical time ran out first, and its future was dropped.
    RanOut,
}

/// A finished harness run.
#[derive(Debug)]
pub struct Run<T> {
    pub ended: Ended<T>,
    conditions: Conditions,
    events: Vec<Recorded>,
    summary: Summary,
    warnings: Vec<String>,
}

/// Runs `body` on a fresh paused current-thread runtime under `conditions`.
pub(crate) fn run<T, Fut: Future<Output = T>>(
    conditions: &Conditions,
    options: &RunOptions,
    body: impl FnOnce() -> Fut,
) -> Run<T> {
    check_can_run(options);
    os::keep_linked();
    super::panics::install_hook();
    // From here on this thread reads the simulated clocks: tokio's paused clock takes its base
    // from std's `Instant` as the runtime is built, so both start at the same reading.
    let clocks = RunClocks::new(conditions.wall_start_ns);
    let mut live = Live {
        watch: None,
        scope: Some(Scope::enter(&clocks, Role::Runtime)),
        runtime: Some(build_runtime(&clocks)),
        clocks: Arc::clone(&clocks),
        wait_for_blocking: Duration::from_nanos(options.stop_after_real_ns),
    };
    let shared = {
        let runtime = live.runtime();
        let _entered = runtime.enter();
        Shared::new(
            Timeline::new(conditions),
            tokio::time::Instant::now(),
            options,
        )
    };
    clocks
        .shared
        .set(Arc::clone(&shared))
        .expect("set once per run");
    live.watch = Some(StallWatch::start(&shared));
    let runtime = live.runtime();
    if let Some(why) = clocks.take_early_failure() {
        shared.fail(why);
    }
    {
        // Faults at the very start come before any task runs.
        let _entered = runtime.enter();
        let mut state = shared.lock();
        if state.timeline.next_event_ns() == Some(0) {
            super::shared::advance_clock(state.timeline.run_to(0));
        }
    }
    let _current = Entered::enter(&shared);
    runtime.spawn(super::driver::drive(Arc::clone(&shared)));
    // Built inside the runtime, as the code under test expects of any tokio code.
    let body = {
        let _entered = runtime.enter();
        body()
    };
    let mut body = std::pin::pin!(body);
    let finished = runtime.block_on(poll_fn(|cx| {
        // The end comes first: at the instant the run ends, the body does not run again.
        if shared.poll_over(cx).is_ready() {
            return Poll::Ready(None);
        }
        poll_body(&shared, body.as_mut(), cx).map(Some)
    }));
    finish(conditions, &shared, live, finished)
}

/// Panics, naming the cure, where the harness cannot run: inside a tokio runtime, or where the
/// OS clocks cannot be brought into the simulation and the test has not said that is fine.
fn check_can_run(options: &RunOptions) {
    // The harness runs its own paused runtime; inside another it would fail with tokio's
    // "Cannot start a runtime from within a runtime", which names neither the cause nor the cure.
    assert!(
        tokio::runtime::Handle::try_current().is_err(),
        "ticklab: Harness::run was called inside a tokio runtime (such as under \
         #[tokio::test]); it runs the code on a runtime of its own, whose clock it moves, so \
         call it from a plain #[test]"
    );
    assert!(
        os::INTERCEPTED || options.unseen_os_clocks_allowed,
        "ticklab: this build cannot bring std::time::Instant, SystemTime and thread::sleep \
         inside the simulation (that needs Linux with glibc and the `os-clocks` feature), so \
         code that reads them would run on the real clock. If the code under test reads only \
         tokio's clock and ticklab::tokio::wall_now, call `allowing_unseen_os_clocks()` on the \
         harness"
    );
}

/// Polls the body once; with tokio's task hooks, which see only spawned tasks, the poll is timed
/// like theirs.
fn poll_body<Fut: Future>(
    shared: &Shared,
    body: std::pin::Pin<&mut Fut>,
    cx: &mut std::task::Context<'_>,
) -> Poll<Fut::Output> {
    if cfg!(not(tokio_unstable)) {
        return body.poll(cx);
    }
    shared
        .stretches
        .begin_poll("the body given to Harness::run was polled".to_string());
    let polled = body.poll(cx);
    let state = shared.lock();
    shared.stretches.end(&state.timeline);
    polled
}

/// What the run left, once `block_on` has returned; panics if it failed.
fn finish<T>(
    conditions: &Conditions,
    shared: &Arc<Shared>,
    mut live: Live,
    finished: Option<T>,
) -> Run<T> {
    let mut state = shared.lock();
    // The last stretch ends with the body, not with a park.
    shared.stretches.end(&state.timeline);
    if let Some(why) = state.broken.take() {
        drop(state);
        // The failure is known: a blocking task that has not finished must not hold it back.
        live.wait_for_blocking = Duration::ZERO;
        drop(live);
        panic!("{why}");
    }
    let ended = match finished {
        Some(value) => {
            // tokio's clock is read through the runtime, so before it goes.
            let _entered = live.runtime().enter();
            super::context::sync(shared, &mut state);
            Ended::Finished {
                value,
                at_ns: state.timeline.now_ns(),
            }
        }
        None => Ended::RanOut,
    };
    let end_ns = match ended {
        Ended::Finished { at_ns, .. } => at_ns,
        Ended::RanOut => conditions.run_for_ns,
    };
    let events = std::mem::take(&mut state.timeline.events);
    let summary = summarise(&events, &state.timeline, end_ns, &ended);
    drop(state);
    let left_behind = live.shut_down();
    assert!(
        left_behind == 0,
        "ticklab::tokio: {left_behind} spawn_blocking thread(s) still ran {} of real time after \
         the run ended, and were left behind: {WHY_IT_NEVER_ENDS}",
        Approx(live.wait_for_blocking.as_nanos() as u64),
    );
    let mut warnings = Vec::new();
    for (warning, printed) in shared.stretches.take_warnings() {
        if !printed {
            let _ = writeln!(std::io::stderr(), "ticklab::tokio warning: {warning}");
        }
        warnings.push(warning);
    }
    Run {
        ended,
        conditions: conditions.clone(),
        events,
        summary,
        warnings,
    }
}

impl<T> Run<T> {
    /// What the body returned, if it finished before the run's time ran out.
    pub fn value(&self) -> Option<&T> {
        match &self.ended {
            Ended::Finished { value, .. } => Some(value),
            Ended::RanOut => None,
        }
    }

    /// Every note, in order.
    pub fn notes(&self) -> impl Iterator<Item = &Note> {
        self.events.iter().filter_map(|event| match event {
            Recorded::Note(note) => Some(note),
            _ => None,
        })
    }

    /// The notes labelled `label`, in order.
    pub fn notes_of<'a>(&'a self, label: &'a str) -> impl Iterator<Item = &'a Note> + 'a {
        self.notes().filter(move |note| note.label == label)
    }

    /// The most notes labelled `label` within any `window` of physical time.
    pub fn most_within(&self, label: &str, window: Duration) -> usize {
        let times: Vec<u64> = self.notes_of(label).map(|note| note.t_ns).collect();
        most_within_ns(&times, window.as_nanos() as u64)
    }

    /// The most notes labelled `label` within any `window` of tokio's `Instant`: what the code
    /// under test measures its own rates and timeouts with. It stands still through a suspend
    /// that `Instant` does not count, so notes on either side of one can share a window.
    pub fn most_within_instant(&self, label: &str, window: Duration) -> usize {
        let times: Vec<u64> = self
            .notes_of(label)
            .map(|note| u64::try_from(note.instant_ns).unwrap_or(0))
            .collect();
        most_within_ns(&times, window.as_nanos() as u64)
    }

    /// What the run saw but could not simulate, such as a task that held the runtime thread for
    /// long in real time. Warnings never change the run; they are also printed to stderr.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The summary every trace ends with.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Streams the whole trace into `sink`, as `ticklab run` streams a scenario's.
    pub fn write_trace(&self, sink: &mut dyn TraceSink) -> io::Result<()> {
        sink.record(&Event::Start(&self.start_event()))?;
        for event in &self.events {
            event.write(sink)?;
        }
        sink.record(&Event::Summary(&self.summary))?;
        sink.finish()
    }

    /// The whole trace as text, one line per event.
    pub fn text(&self) -> String {
        let mut sink = TextSink::new(Vec::new());
        self.write_trace(&mut sink).expect("writing to memory");
        String::from_utf8(sink.into_inner()).expect("traces are UTF-8")
    }

    /// The whole trace as JSON lines.
    pub fn jsonl(&self) -> String {
        let mut sink = JsonlSink::new(Vec::new());
        self.write_trace(&mut sink).expect("writing to memory");
        String::from_utf8(sink.into_inner()).expect("traces are UTF-8")
    }

    /// What to snapshot-test: the text trace with long runs of notes elided (a note that stands
    /// out is kept, as are faults, resumes and the summary), then the size and SHA-256 of the
    /// whole JSON-lines trace, so that a change in an elided note changes the snapshot too.
    pub fn snapshot(&self) -> String {
        let mut text = TextSink::new(Vec::new()).eliding_after(SNAPSHOT_KEPT);
        self.write_trace(&mut text).expect("writing to memory");
        let whole = self.jsonl();
        let digest = <sha2::Sha256 as sha2::Digest>::digest(whole.as_bytes());
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        format!(
            "{}# the whole trace as JSON lines: {} bytes, sha256 {hex}\n",
            String::from_utf8(text.into_inner()).expect("traces are UTF-8"),
            whole.len()
        )
    }

    /// The run drawn as `ticklab plot` draws a scenario, as an SVG document: a row per note label
    /// over the faults' bands (suspends and freezes shaded, wall steps as red lines), each note
    /// a mark at its physical time, then the `Instant` and wall clocks against physical time.
    /// A lone note is ringed, and a gap that stands out among a label's notes is drawn in red.
    ///
    /// ```
    /// use std::time::Duration;
    /// use ticklab::sim::Platform;
    /// use ticklab::tokio::{Harness, note};
    ///
    /// let harness = Harness::on(Platform::Linux)
    ///     .system_suspend(Duration::from_secs(10), Duration::from_secs(30))
    ///     .build()
    ///     .unwrap();
    /// let run = harness.run(|| async {
    ///     let mut interval = tokio::time::interval(Duration::from_secs(1));
    ///     loop {
    ///         interval.tick().await;
    ///         note("beat");
    ///     }
    /// });
    /// let svg = run.svg();
    /// assert!(svg.contains("system-suspend"));
    /// assert!(svg.contains(&format!("beat ({})", run.notes_of("beat").count())));
    /// ```
    pub fn svg(&self) -> String {
        super::picture::svg_of(|sink| self.write_trace(sink))
    }

    /// Writes [`Run::svg`] to `path`, atomically. It replaces a plot an earlier run wrote there,
    /// and refuses to replace any other file.
    pub fn write_svg(&self, path: impl AsRef<std::path::Path>) -> io::Result<()> {
        super::picture::write_svg(path.as_ref(), &self.svg())
    }

    fn start_event(&self) -> StartEvent {
        let conditions = &self.conditions;
        let overridden = conditions.instant_clock != conditions.platform.instant_clock();
        StartEvent {
            t_ns: 0,
            about: conditions.about.clone(),
            source: conditions.source.clone(),
            model: super::KIND,
            platform: conditions.platform.name(),
            instant_clock: conditions.instant_clock.name(),
            instant_source: (!overridden).then(|| conditions.platform.instant_source()),
            seed: conditions.seed,
            run_for_ns: conditions.run_for_ns,
            wall: Wall(conditions.wall_start_ns),
            profile: None,
            notes: Vec::new(),
        }
    }
}

/// Snapshots keep the first and last few notes of each run of them between other events.
const SNAPSHOT_KEPT: usize = 3;

/// The most of `times` (sorted) within any half-open window of `window_ns`.
pub(crate) fn most_within_ns(times: &[u64], window_ns: u64) -> usize {
    let mut most = 0;
    let mut first = 0;
    for (last, &t_ns) in times.iter().enumerate() {
        while t_ns - times[first] >= window_ns.max(1) {
            first += 1;
        }
        most = most.max(last - first + 1);
    }
    most
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_at_one_instant_all_fall_in_one_window() {
        assert_eq!(most_within_ns(&[0, 5, 5, 5, 10, 20], 10), 4);
        assert_eq!(most_within_ns(&[0, 10, 20], 10), 1);
        assert_eq!(most_within_ns(&[], 10), 0);
    }
}
