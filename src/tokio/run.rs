//! Running the code under test, and what a run leaves: how it ended, its notes and its trace.

use std::future::{Future, poll_fn};
use std::io;
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use std::time::Duration;

use super::context::Entered;
use super::events::Note;
use super::shared::Shared;
use super::summary::summarise;
use super::timeline::{Recorded, Timeline};
use crate::scenario::Conditions;
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
}

/// Runs `body` on a fresh paused current-thread runtime under `conditions`.
pub(crate) fn run<T, Fut: Future<Output = T>>(
    conditions: &Conditions,
    body: impl FnOnce() -> Fut,
) -> Run<T> {
    // The harness runs its own paused runtime; inside another it would fail with tokio's
    // "Cannot start a runtime from within a runtime", which names neither the cause nor the cure.
    assert!(
        tokio::runtime::Handle::try_current().is_err(),
        "ticklab: Harness::run was called inside a tokio runtime (such as under \
         #[tokio::test]); it runs the code on a runtime of its own, whose clock it moves, so \
         call it from a plain #[test]"
    );
    // The park hook needs the run's shared state, which needs the runtime's clock: it finds the
    // state through a slot filled once the runtime exists.
    let shared_slot: Arc<OnceLock<Arc<Shared>>> = Arc::default();
    let hook_slot = Arc::clone(&shared_slot);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .on_thread_park(move || {
            if let Some(shared) = hook_slot.get() {
                shared.on_idle();
            }
        })
        .build()
        .expect("a current-thread runtime builds");
    let shared = {
        let _entered = runtime.enter();
        Shared::new(Timeline::new(conditions), tokio::time::Instant::now())
    };
    shared_slot
        .set(Arc::clone(&shared))
        .expect("set once per run");
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
    let mut body = std::pin::pin!(body());
    let finished = runtime.block_on(poll_fn(|cx| {
        // The end comes first: at the instant the run ends, the body does not run again.
        if shared.poll_over(cx).is_ready() {
            return Poll::Ready(None);
        }
        body.as_mut().poll(cx).map(Some)
    }));
    let mut state = shared.lock();
    if let Some(why) = state.broken.take() {
        drop(state);
        drop(runtime);
        panic!("{why}");
    }
    let ended = match finished {
        Some(value) => {
            // tokio's clock is read through the runtime, so before it goes.
            let _entered = runtime.enter();
            super::context::sync(&shared, &mut state);
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
    drop(runtime);
    Run {
        ended,
        conditions: conditions.clone(),
        events,
        summary,
    }
}

impl<T> Run<T> {
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
