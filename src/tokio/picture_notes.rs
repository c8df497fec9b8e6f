//! What a harness run's plot keeps of its notes and busy sections: per label, how many notes fell
//! in each column, and the longest gap between two of them; bounded whatever the run's length.

use std::any::Any;

use super::events::{Busy, Note};
use crate::plot::collect::{COLUMNS, Collected, KindPlot, column_at};
use crate::trace::ModelEvent;

/// The notes of one label, column by column.
#[derive(Clone, Debug)]
pub struct NoteRow {
    pub label: String,
    pub counts: Vec<u64>,
    pub total: u64,
    pub first_ns: u64,
    pub last_ns: u64,
    /// The longest physical time between two notes of this label: when the later one came, and
    /// how long after the one before.
    pub longest_gap: Option<(u64, u64)>,
}

impl NoteRow {
    fn new(label: &str) -> Self {
        NoteRow {
            label: label.to_string(),
            counts: vec![0; COLUMNS],
            total: 0,
            first_ns: 0,
            last_ns: 0,
            longest_gap: None,
        }
    }

    /// The longest gap, if it stands out: at least [`GAP_FACTOR`] times the label's mean spacing
    /// (the gap after a suspend among evenly spaced beats, not the spacing of two lone notes).
    pub fn outstanding_gap(&self) -> Option<(u64, u64)> {
        let (at_ns, gap_ns) = self.longest_gap?;
        let spacings = self.total.checked_sub(1).filter(|&n| n > 1)?;
        let mean_ns = (self.last_ns - self.first_ns) / spacings;
        (gap_ns >= mean_ns.saturating_mul(GAP_FACTOR) && gap_ns > 0).then_some((at_ns, gap_ns))
    }
}

/// A gap this many times the mean spacing of its label's notes stands out, and is drawn.
pub const GAP_FACTOR: u64 = 10;

/// Every label's notes, in the order each label first appeared, and the busy sections.
#[derive(Clone, Debug, Default)]
pub struct NoteRows {
    pub rows: Vec<NoteRow>,
    /// Columns a busy section covered any part of.
    pub busy: Vec<bool>,
    pub busy_sections: u64,
}

impl KindPlot for NoteRows {
    fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected) {
        let event = event.as_any();
        if let Some(note) = event.downcast_ref::<Note>() {
            common.clock_reading(note.t_ns, note.instant_ns, note.wall, false);
            common.count_on_wall(note.t_ns, note.wall.0);
            self.note(
                note.label,
                common.column_of(note.t_ns),
                note.t_ns,
                note.gap_ns,
            );
        } else if let Some(busy) = event.downcast_ref::<Busy>() {
            common.clock_reading(busy.t_ns, busy.instant_ns, busy.wall, false);
            self.busy_span(busy.t_ns, busy.took_ns, common.run_for_ns());
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl NoteRows {
    /// A note labelled `label` at `t_ns`, in `column`, `gap_ns` after the one before it with
    /// that label.
    fn note(&mut self, label: &str, column: usize, t_ns: u64, gap_ns: Option<u64>) {
        let rows = &mut self.rows;
        let index = match rows.iter().position(|row| row.label == label) {
            Some(index) => index,
            None => {
                rows.push(NoteRow::new(label));
                rows.len() - 1
            }
        };
        let row = &mut rows[index];
        if row.total == 0 {
            row.first_ns = t_ns;
        }
        row.total += 1;
        row.last_ns = t_ns;
        row.counts[column] += 1;
        if let Some(gap_ns) = gap_ns
            && row
                .longest_gap
                .is_none_or(|(_, longest_ns)| gap_ns > longest_ns)
        {
            row.longest_gap = Some((t_ns, gap_ns));
        }
    }

    /// A busy section that began at `t_ns` and took `took_ns` of physical time.
    fn busy_span(&mut self, t_ns: u64, took_ns: u64, run_for_ns: u64) {
        let busy = &mut self.busy;
        if busy.is_empty() {
            busy.resize(COLUMNS, false);
        }
        let last_ns = (t_ns + took_ns).saturating_sub(1).max(t_ns);
        let (from, to) = (column_at(t_ns, run_for_ns), column_at(last_ns, run_for_ns));
        busy[from..=to].iter_mut().for_each(|column| *column = true);
        self.busy_sections += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_of(times_ns: &[u64]) -> NoteRow {
        let mut rows = NoteRows::default();
        let mut previous = None;
        for &t_ns in times_ns {
            rows.note("beat", 0, t_ns, previous.map(|before| t_ns - before));
            previous = Some(t_ns);
        }
        rows.rows.remove(0)
    }

    #[test]
    fn a_gap_far_longer_than_the_usual_spacing_stands_out() {
        let mut times: Vec<u64> = (0..20).collect();
        times.extend(400..420);
        let row = row_of(&times);
        assert_eq!(row.outstanding_gap(), Some((400, 381)));
        let even: Vec<u64> = (0..40).map(|t| t * 10).collect();
        assert_eq!(row_of(&even).outstanding_gap(), None, "no gap is unusual");
        assert_eq!(row_of(&[5, 900]).outstanding_gap(), None, "two notes");
    }
}
