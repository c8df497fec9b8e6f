//! The summary a harness run's trace ends with: what the notes did, overall and per label.

use std::collections::BTreeMap;

use super::run::{Ended, most_within_ns};
use super::timeline::{Recorded, Timeline};
use crate::expect::{Metric, NEVER};
use crate::trace::{Section, Summary};

const SECOND_NS: u64 = 1_000_000_000;

/// The run's metrics, in summary order.
pub(crate) const METRICS: &[Metric] = &[
    Metric::count("notes", "notes the code under test recorded"),
    Metric::count(
        "max_notes_per_second",
        "most notes within any one second of physical time",
    ),
    Metric::time(
        "first_note_at",
        "first_note_at_ns",
        "physical time of the first note",
    ),
    Metric::time(
        "last_note_at",
        "last_note_at_ns",
        "physical time of the last note",
    ),
    Metric::duration(
        "longest_gap",
        "longest_gap_ns",
        "longest physical time between two notes with the same label",
    ),
    Metric::count(
        "resumes",
        "times the process could run again after a suspend",
    ),
    Metric::duration(
        "busy",
        "busy_ns",
        "running time spent in sections marked busy",
    ),
    Metric::duration(
        "slept",
        "slept_ns",
        "running time the runtime thread slept in std::thread::sleep or libc's sleeps",
    ),
    Metric::time(
        "finished_at",
        "finished_at_ns",
        "when the code under test completed; never if the run ended first",
    ),
];

/// The same for the notes of one label.
const LABEL_METRICS: &[Metric] = &[METRICS[0], METRICS[1], METRICS[2], METRICS[3], METRICS[4]];

/// Counts of one set of notes: count, most per second, first, last, longest gap.
fn note_values(times: &[u64], gaps: impl Iterator<Item = u64>) -> [u64; 5] {
    [
        times.len() as u64,
        most_within_ns(times, SECOND_NS) as u64,
        times.first().copied().unwrap_or(NEVER),
        times.last().copied().unwrap_or(NEVER),
        gaps.max().unwrap_or(0),
    ]
}

pub(crate) fn summarise<T>(
    events: &[Recorded],
    timeline: &Timeline,
    end_ns: u64,
    ended: &Ended<T>,
) -> Summary {
    let notes: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Recorded::Note(note) => Some(note),
            _ => None,
        })
        .collect();
    let times: Vec<u64> = notes.iter().map(|note| note.t_ns).collect();
    let [count, per_second, first, last, gap] =
        note_values(&times, notes.iter().filter_map(|note| note.gap_ns));
    let finished_at = match ended {
        Ended::Finished { at_ns, .. } => *at_ns,
        Ended::RanOut => NEVER,
    };
    let values = [
        count,
        per_second,
        first,
        last,
        gap,
        timeline.resumes,
        timeline.busy_ns,
        timeline.slept_ns,
        finished_at,
    ];
    let mut summary = Summary::new(super::KIND, end_ns, METRICS, &values, Vec::new());
    // Labels in alphabetical order, so the summary is the same whatever order they first came.
    let mut by_label: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for note in &notes {
        by_label.entry(note.label).or_default().push(*note);
    }
    summary.groups = by_label
        .into_iter()
        .map(|(label, notes)| {
            let times: Vec<u64> = notes.iter().map(|note| note.t_ns).collect();
            let values = note_values(&times, notes.iter().filter_map(|note| note.gap_ns));
            Section::new("label", label, LABEL_METRICS, &values)
        })
        .collect();
    summary
}
