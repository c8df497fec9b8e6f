//! Harness runs (`ticklab::tokio`): one row per note label over the faults' bands, each column
//! that holds notes drawn as a mark that grows with their number, a lone note ringed, and a gap
//! that stands out spanned and labelled; then the `Instant` and wall clocks against physical
//! time.

use std::io;
use std::path::Path;

use plotters::prelude::*;
use ticklab_sim::Approx;

use super::picture_notes::{NoteRow, NoteRows};
use crate::plot::collect::Collected;
use crate::plot::error::PlotError;
use crate::plot::style::{
    self, Area, FONT, PANEL_HEIGHT_PX, WIDTH_PX, Y_LABEL_AREA_PX, YAxis, run_seconds, series_color,
    time_panel_on,
};
use crate::plot::svg_stream;
use crate::trace::TraceSink;

/// What the run kept of its notes; none if it kept nothing.
fn kept(collected: &Collected) -> &NoteRows {
    static NONE: NoteRows = NoteRows {
        rows: Vec::new(),
        busy: Vec::new(),
        busy_sections: 0,
    };
    collected.own::<NoteRows>().unwrap_or(&NONE)
}

/// Height of one label's row.
const ROW_HEIGHT_PX: u32 = 34;
const MARGINS_PX: u32 = 90;
/// Labels beyond this many are left out, the busiest first, and the caption says so.
pub const MAX_ROWS: usize = 24;
/// A column whose nearest neighbour with notes is further than this is a lone mark, and ringed.
const LONE_COLUMNS: usize = 3;
const BUSY_COLOR: RGBColor = RGBColor(40, 40, 40);
const GAP_COLOR: RGBColor = RGBColor(200, 0, 0);

/// Marks an SVG document as drawn here, in a comment after its opening tag, so that
/// [`write_svg`] may replace it and nothing else.
const DRAWN_HERE: &str = "drawn by ticklab from a harness run";

/// A harness run drawn as one SVG document: `trace` streams the run's trace into a sink.
pub fn svg_of(trace: impl FnOnce(&mut dyn TraceSink) -> io::Result<()>) -> String {
    let mut collected = Collected::new(Some(Box::new(NoteRows::default())));
    trace(&mut collected).expect("collecting into memory cannot fail");
    let mut svg = Vec::new();
    let size_px = (WIDTH_PX, height_px(&collected));
    svg_stream::draw_svg(&mut svg, size_px, Some(DRAWN_HERE), |root| {
        draw(root, &collected)
    })
    .expect("drawing into memory cannot fail");
    String::from_utf8(svg).expect("the SVG is written from UTF-8 text")
}

/// Writes `svg` to `path` atomically. A file already there is replaced only if it was drawn here
/// too (an earlier run of the same test), never one the user wrote.
pub fn write_svg(path: &Path, svg: &str) -> io::Result<()> {
    crate::plot::svg_file::write_drawn(path, svg, DRAWN_HERE, "a harness run")
}

fn height_px(collected: &Collected) -> u32 {
    style::title_height_px(collected) + notes_height_px(collected) + PANEL_HEIGHT_PX
}

fn notes_height_px(collected: &Collected) -> u32 {
    MARGINS_PX + ROW_HEIGHT_PX * rows(collected) as u32
}

/// Rows drawn: the labels shown, and the busy sections if any.
fn rows(collected: &Collected) -> usize {
    let busy = usize::from(kept(collected).busy_sections > 0);
    (shown(collected).len() + busy).max(1)
}

/// The labels drawn, in the order they first appeared: all of them, or the [`MAX_ROWS`] with the
/// fewest notes, since a rare label is the unusual one.
fn shown(collected: &Collected) -> Vec<&NoteRow> {
    let rows = &kept(collected).rows;
    if rows.len() <= MAX_ROWS {
        return rows.iter().collect();
    }
    let mut by_count: Vec<usize> = (0..rows.len()).collect();
    by_count.sort_by_key(|&index| (rows[index].total, index));
    by_count.truncate(MAX_ROWS);
    by_count.sort_unstable();
    by_count.into_iter().map(|index| &rows[index]).collect()
}

fn draw(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let body = style::layout(root, collected, 1)?.remove(0);
    let (notes_area, clocks_area) = body.split_vertically(notes_height_px(collected));
    notes(&notes_area, collected)?;
    crate::plot::timeline::clocks(&clocks_area, collected)
}

fn notes(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let shown = shown(collected);
    let rows = rows(collected);
    let total: u64 = kept(collected).rows.iter().map(|row| row.total).sum();
    let mut caption = format!(
        "notes by label ({total} in all): a mark per column, taller for more; a lone note ringed; a gap that stands out in red"
    );
    let left_out = kept(collected).rows.len() - shown.len();
    if left_out > 0 {
        caption.push_str(&format!(" ({left_out} busier labels not shown)"));
    }
    let no_labels = |_: &f64| String::new();
    // A line at each row's edge, none through its marks.
    let y_axis = YAxis {
        range: 0.0..rows as f64,
        desc: "",
        format: &no_labels,
        label_area_px: Y_LABEL_AREA_PX,
        lines: rows + 1,
    };
    let mut chart = time_panel_on(area, collected, &caption, y_axis, true)?;
    for (index, row) in shown.iter().enumerate() {
        let bottom = (rows - index - 1) as f64;
        draw_row(&mut chart, collected, row, bottom, series_color(index))?;
    }
    if kept(collected).busy_sections > 0 {
        draw_busy(&mut chart, collected)?;
    }
    Ok(())
}

/// One label's row: marks rise from `bottom` to at most 0.6 of the row, under its name.
fn draw_row(
    chart: &mut style::TimeChart<'_, '_>,
    collected: &Collected,
    row: &NoteRow,
    bottom: f64,
    color: RGBColor,
) -> Result<(), PlotError> {
    let most = row.counts.iter().copied().max().unwrap_or(0);
    let height = |count: u64| {
        let share = ((1 + count) as f64).ln() / ((1 + most.max(1)) as f64).ln();
        0.25 + 0.35 * share
    };
    let filled: Vec<usize> = (0..row.counts.len())
        .filter(|&column| row.counts[column] > 0)
        .collect();
    chart.draw_series(filled.iter().map(|&column| {
        let x = collected.column_seconds(column);
        let top = bottom + 0.08 + height(row.counts[column]);
        PathElement::new(vec![(x, bottom + 0.08), (x, top)], color.stroke_width(2))
    }))?;
    let lone = filled.iter().enumerate().filter(|&(at, &column)| {
        let before = at.checked_sub(1).map(|before| column - filled[before]);
        let after = filled.get(at + 1).map(|&next| next - column);
        [before, after]
            .into_iter()
            .all(|distance| distance.is_none_or(|columns| columns > LONE_COLUMNS))
    });
    chart.draw_series(lone.map(|(_, &column)| {
        let x = collected.column_seconds(column);
        Circle::new((x, bottom + 0.3), 5, color.stroke_width(2))
    }))?;
    if let Some((at_ns, gap_ns)) = row.outstanding_gap() {
        let (from, to) = ((at_ns - gap_ns) as f64 / 1e9, at_ns as f64 / 1e9);
        let y = bottom + 0.2;
        chart.draw_series([PathElement::new(
            vec![(from, y), (to, y)],
            GAP_COLOR.stroke_width(2),
        )])?;
        chart.draw_series([Text::new(
            format!("gap {}", Approx(gap_ns)),
            (from + (to - from) * 0.02, y + 0.55),
            (FONT, 11).into_font().color(&GAP_COLOR),
        )])?;
    }
    let name = format!("{} ({})", row.label, row.total);
    chart.draw_series([Text::new(
        name,
        (0.0, bottom + 0.97),
        (FONT, 11).into_font().color(&BLACK),
    )])?;
    Ok(())
}

/// The bottom row: every column a section marked busy covered.
fn draw_busy(chart: &mut style::TimeChart<'_, '_>, collected: &Collected) -> Result<(), PlotError> {
    let width_s = run_seconds(collected) / kept(collected).busy.len() as f64;
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (column, _) in kept(collected).busy.iter().enumerate().filter(|(_, b)| **b) {
        match spans.last_mut() {
            Some((_, end)) if *end == column => *end = column + 1,
            _ => spans.push((column, column + 1)),
        }
    }
    chart.draw_series(spans.iter().map(|&(from, to)| {
        Rectangle::new(
            [(from as f64 * width_s, 0.1), (to as f64 * width_s, 0.55)],
            BUSY_COLOR.mix(0.7).filled(),
        )
    }))?;
    let name = format!(
        "busy or asleep (sections: {})",
        kept(collected).busy_sections
    );
    chart.draw_series([Text::new(
        name,
        (0.0, 0.97),
        (FONT, 11).into_font().color(&BLACK),
    )])?;
    Ok(())
}
