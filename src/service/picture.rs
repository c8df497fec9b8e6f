//! A service run drawn as one SVG document: a row per host with its own faults, wall steps,
//! the partitions and spikes that struck it, and a mark per note, coloured by the note's first
//! word; then every host's `Instant` and wall clock against physical time
//! ([`super::picture_clocks`]).

use plotters::prelude::*;

use super::notes::HostNote;
use super::picture_clocks;
use super::record::{HostRecord, Record};
use crate::plot::collect::Collected;
use crate::plot::error::PlotError;
use crate::plot::style::{
    Area, FONT, TITLE_HEIGHT_PX, TimeChart, WALL_STEP, WIDTH_PX, YAxis, fault_color, series_color,
    time_panel_on,
};
use crate::plot::{row_names, svg_stream};
use crate::trace::{StartEvent, Wall};

/// Marks an SVG document as drawn here, so that a later run's plot may replace it.
pub(crate) const DRAWN_HERE: &str = "drawn by ticklab from a service run";

const ROW_HEIGHT_PX: u32 = 26;
const MARGINS_PX: u32 = 70;
/// Hosts beyond this many are left out, quiet ones first, and the caption says so.
const MAX_ROWS: usize = 40;
/// Marks drawn per host: every one in a test's run, bounded for long ones (the legend still
/// counts them all).
const MAX_MARKS: usize = 5_000;
/// A note label this rare stands out: its marks get a dot on top.
const RARE: usize = 3;
const LEGEND_LINE_PX: u32 = 18;
const LEGEND_CHAR_PX: u32 = 7;

/// What the picture draws of a run.
pub(crate) struct Picture<'a> {
    pub(crate) record: &'a Record,
    pub(crate) notes: &'a [HostNote],
    pub(crate) ended_at_ns: u64,
}

/// The word a note is grouped by: its first.
fn label(note: &HostNote) -> &str {
    note.text.split_whitespace().next().unwrap_or("")
}

impl Picture<'_> {
    pub(crate) fn svg(&self) -> String {
        let labels = self.labels();
        let entries = self.legend_entries(&labels);
        let legend_px = legend_height_px(&entries);
        let rows_px = MARGINS_PX + ROW_HEIGHT_PX * self.shown().len().max(1) as u32;
        let clocks_px = picture_clocks::height_px();
        let height_px = TITLE_HEIGHT_PX + legend_px + rows_px + clocks_px;
        let mut svg = Vec::new();
        svg_stream::draw_svg(&mut svg, (WIDTH_PX, height_px), Some(DRAWN_HERE), |root| {
            root.fill(&WHITE)?;
            let (title, body) = root.split_vertically(TITLE_HEIGHT_PX);
            self.title(&title)?;
            let (legend, body) = body.split_vertically(legend_px);
            draw_legend(&legend, &entries)?;
            let (rows, clocks) = body.split_vertically(rows_px);
            let collected = self.collected();
            self.rows(&rows, &collected, &labels)?;
            picture_clocks::draw(&clocks, &collected, self.record)
        })
        .expect("drawing into memory cannot fail");
        String::from_utf8(svg).expect("the SVG is written from UTF-8 text")
    }

    /// What the shared time panels read: the run's length.
    fn collected(&self) -> Collected {
        let mut collected = Collected::new(None);
        collected.start = Some(StartEvent {
            t_ns: 0,
            about: String::new(),
            source: "service".to_string(),
            model: "service",
            platform: "each host's own",
            instant_clock: "each host's own",
            instant_source: None,
            seed: self.record.seed,
            run_for_ns: self.ended_at_ns,
            wall: Wall(self.record.wall_start_ns),
            profile: None,
            notes: Vec::new(),
        });
        collected
    }

    fn title(&self, area: &Area<'_>) -> Result<(), PlotError> {
        let hosts = &self.record.hosts;
        let heading = format!(
            "a service of {} host{} (seed {}), to {}",
            hosts.len(),
            if hosts.len() == 1 { "" } else { "s" },
            self.record.seed,
            ticklab_sim::Compact(self.ended_at_ns as i64)
        );
        area.draw_text(
            &heading,
            &(FONT, 18).into_font().style(FontStyle::Bold).color(&BLACK),
            (10, 6),
        )?;
        let platforms: Vec<String> = hosts
            .iter()
            .take(12)
            .map(|host| format!("{} on {}", host.name, host.platform))
            .collect();
        let more = hosts.len().saturating_sub(platforms.len());
        let mut line = platforms.join(", ");
        if more > 0 {
            line.push_str(&format!(" and {more} more"));
        }
        area.draw_text(&line, &(FONT, 13).into_font().color(&BLACK), (10, 30))?;
        Ok(())
    }

    /// Every note label with its count, in the order each first appears.
    fn labels(&self) -> Vec<(&str, usize)> {
        let mut labels: Vec<(&str, usize)> = Vec::new();
        for note in self.notes {
            let word = label(note);
            match labels.iter_mut().find(|(known, _)| *known == word) {
                Some(entry) => entry.1 += 1,
                None => labels.push((word, 1)),
            }
        }
        labels
    }

    /// The legend's entries: each kind of fault, wall steps, each kind of network window, and
    /// each note label, with how many.
    fn legend_entries(&self, labels: &[(&str, usize)]) -> Vec<(String, RGBColor)> {
        let mut kinds: Vec<(&str, usize, RGBColor)> = Vec::new();
        let mut count = |kind: &'static str, color: RGBColor| match kinds
            .iter_mut()
            .find(|(known, ..)| *known == kind)
        {
            Some(entry) => entry.1 += 1,
            None => kinds.push((kind, 1, color)),
        };
        for host in &self.record.hosts {
            for band in &host.bands {
                count(band.kind, fault_color(band.kind));
            }
            for _ in &host.wall_steps {
                count("wall-step", WALL_STEP);
            }
        }
        for band in &self.record.network {
            count(band.kind, fault_color(band.kind));
        }
        let mut entries: Vec<(String, RGBColor)> = kinds
            .into_iter()
            .map(|(kind, n, color)| (format!("{kind} ({n})"), color))
            .collect();
        for (index, (word, n)) in labels.iter().enumerate() {
            let word = if word.is_empty() {
                "(empty note)"
            } else {
                word
            };
            let text = format!("note \u{201c}{word}\u{2026}\u{201d} ({n})");
            entries.push((text, note_color(index)));
        }
        entries
    }

    /// The hosts drawn, in declaration order: all, or the eventful ones first.
    fn shown(&self) -> Vec<usize> {
        let hosts = &self.record.hosts;
        if hosts.len() <= MAX_ROWS {
            return (0..hosts.len()).collect();
        }
        let eventful = |host: usize| {
            let record = &hosts[host];
            !record.bands.is_empty()
                || !record.wall_steps.is_empty()
                || self.notes.iter().any(|note| note.host == record.name)
                || self.record.network.iter().any(|band| strikes(band, host))
        };
        let mut shown: Vec<usize> = (0..hosts.len()).filter(|&h| eventful(h)).collect();
        shown.truncate(MAX_ROWS);
        let quiet = (0..hosts.len()).filter(|&h| !eventful(h));
        let room = MAX_ROWS - shown.len();
        shown.extend(quiet.take(room));
        shown.sort_unstable();
        shown
    }

    fn caption(&self, shown: usize) -> String {
        let hidden = self.record.hosts.len() - shown;
        let mut caption = "each host's own faults, the network's windows that struck it, and a \
                           mark per note"
            .to_string();
        if hidden > 0 {
            caption.push_str(&format!(" ({hidden} more hosts not shown)"));
        }
        caption
    }

    fn rows(
        &self,
        area: &Area<'_>,
        collected: &Collected,
        labels: &[(&str, usize)],
    ) -> Result<(), PlotError> {
        let shown = self.shown();
        let rows = shown.len().max(1);
        let names: Vec<String> = shown
            .iter()
            .map(|&host| row_names::row_name(&self.record.hosts[host].name))
            .collect();
        let no_labels = |_: &f64| String::new();
        let y_axis = YAxis {
            range: 0.0..rows as f64,
            desc: "",
            format: &no_labels,
            label_area_px: row_names::label_area_px(&names),
            lines: rows + 1,
        };
        let mut chart = time_panel_on(area, collected, &self.caption(shown.len()), y_axis, false)?;
        for (row, &host) in shown.iter().enumerate() {
            let top = (rows - row) as f64;
            self.draw_row(&mut chart, host, top, labels)?;
        }
        row_names::draw(area, &chart, &names)
    }

    /// One host's row, whose top edge is at `top`: its faults across it, the network's windows
    /// along its foot, its wall steps, and its notes.
    fn draw_row(
        &self,
        chart: &mut TimeChart<'_, '_>,
        host: usize,
        top: f64,
        labels: &[(&str, usize)],
    ) -> Result<(), PlotError> {
        let s = |ns: u64| ns as f64 / 1e9;
        let record: &HostRecord = &self.record.hosts[host];
        chart.draw_series(record.bands.iter().map(|band| {
            Rectangle::new(
                [(s(band.from_ns), top - 1.0), (s(band.to_ns), top)],
                fault_color(band.kind).mix(0.35).filled(),
            )
        }))?;
        let struck = self.record.network.iter().filter(|b| strikes(b, host));
        chart.draw_series(struck.map(|band| {
            Rectangle::new(
                [(s(band.from_ns), top - 0.93), (s(band.to_ns), top - 0.8)],
                fault_color(band.kind).mix(0.8).filled(),
            )
        }))?;
        chart.draw_series(record.wall_steps.iter().map(|(t_ns, _)| {
            PathElement::new(
                vec![(s(*t_ns), top - 1.0), (s(*t_ns), top)],
                WALL_STEP.stroke_width(2),
            )
        }))?;
        let notes = self.notes.iter().filter(|note| note.host == record.name);
        for note in notes.take(MAX_MARKS) {
            let index = labels.iter().position(|(word, _)| *word == label(note));
            let index = index.unwrap_or(0);
            let color = note_color(index);
            let x = s(note.at_ns);
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, top - 0.75), (x, top - 0.25)],
                color.stroke_width(2),
            )))?;
            if labels[index].1 <= RARE {
                let dot = Circle::new((x, top - 0.25), 3, color.filled());
                chart.draw_series(std::iter::once(dot))?;
            }
        }
        Ok(())
    }
}

/// Whether a partition or spike struck `host`: it names it, or it is between another host and
/// every other.
fn strikes(band: &super::record::NetworkBand, host: usize) -> bool {
    band.a == host || band.b.is_none_or(|b| b == host)
}

/// Notes take the series colours after the first two, which the fault shades resemble least.
fn note_color(index: usize) -> RGBColor {
    series_color(index + 2)
}

/// The legend's entries flow across lines of the canvas's width.
fn legend_lines(entries: &[(String, RGBColor)]) -> Vec<Vec<usize>> {
    let mut lines: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used_px = 10;
    for (index, (text, _)) in entries.iter().enumerate() {
        let width_px = 24 + text.chars().count() as u32 * LEGEND_CHAR_PX;
        if used_px + width_px > WIDTH_PX && !lines.last().is_some_and(Vec::is_empty) {
            lines.push(Vec::new());
            used_px = 10;
        }
        lines.last_mut().expect("one line at least").push(index);
        used_px += width_px;
    }
    lines
}

fn legend_height_px(entries: &[(String, RGBColor)]) -> u32 {
    if entries.is_empty() {
        return 0;
    }
    8 + LEGEND_LINE_PX * legend_lines(entries).len() as u32
}

fn draw_legend(area: &Area<'_>, entries: &[(String, RGBColor)]) -> Result<(), PlotError> {
    let font = (FONT, 12).into_font().color(&BLACK);
    for (line, indices) in legend_lines(entries).iter().enumerate() {
        let y = 4 + (line as u32 * LEGEND_LINE_PX) as i32;
        let mut x = 10;
        for &index in indices {
            let (text, color) = &entries[index];
            area.draw(&Rectangle::new(
                [(x, y + 2), (x + 14, y + 12)],
                color.filled(),
            ))?;
            area.draw_text(text, &font, (x + 18, y))?;
            x += 24 + (text.chars().count() as u32 * LEGEND_CHAR_PX) as i32;
        }
    }
    Ok(())
}
