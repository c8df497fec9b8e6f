//! Hosts runs: one row per host, with when it held the lease by its own clock, every stretch
//! with two leaders across all rows, and a mark for each suspicion, stale write and deadline.

use plotters::prelude::*;

use super::PlotError;
use super::collect::Collected;
use super::style::{Area, FONT, TITLE_HEIGHT_PX, legend, time_panel_with};
use crate::hosts::HostEventKind;

/// Height of one host's row.
const ROW_HEIGHT_PX: u32 = 24;
/// Rows beyond this many hosts are left out, and the caption says so; marks of every host still
/// count in the legend.
const MAX_ROWS: usize = 40;
const MARGINS_PX: u32 = 110;
/// Marks kept per host and kind: enough to see every one in a scenario, bounded for big runs.
const MAX_MARKS: usize = 5_000;

const HOLD_COLOR: RGBColor = RGBColor(60, 150, 80);
const TWO_LEADERS_COLOR: RGBColor = RGBColor(210, 30, 30);

/// What the plot keeps of a hosts run.
#[derive(Clone, Debug, Default)]
pub struct HostsCollected {
    rows: Vec<HostRow>,
    two_leaders: Vec<(u64, u64)>,
    two_since_ns: Option<u64>,
}

#[derive(Clone, Debug)]
struct HostRow {
    name: String,
    holds: Vec<(u64, u64)>,
    holding_since_ns: Option<u64>,
    /// (time, kind), capped per kind at [`MAX_MARKS`].
    marks: Vec<(u64, HostEventKind)>,
    counts: [usize; MARKED.len()],
}

/// The kinds drawn as marks, each with its color and legend text.
const MARKED: [(HostEventKind, RGBColor, &str); 4] = [
    (
        HostEventKind::StaleWrite,
        RGBColor(200, 0, 0),
        "stale write accepted",
    ),
    (
        HostEventKind::Fenced,
        RGBColor(120, 60, 160),
        "stale write fenced",
    ),
    (
        HostEventKind::Suspects,
        RGBColor(230, 140, 30),
        "suspects a peer",
    ),
    (
        HostEventKind::Timeout,
        RGBColor(40, 90, 200),
        "call timed out",
    ),
];

impl Collected {
    /// A hosts event: rows grow as hosts first appear.
    pub(crate) fn host_event(
        &mut self,
        host: &str,
        what: HostEventKind,
        t_ns: u64,
        _delay_ns: Option<u64>,
    ) {
        let hosts = &mut self.hosts;
        match what {
            HostEventKind::TwoLeaders => {
                hosts.two_since_ns.get_or_insert(t_ns);
                return;
            }
            HostEventKind::OneLeader => {
                if let Some(since_ns) = hosts.two_since_ns.take() {
                    hosts.two_leaders.push((since_ns, t_ns));
                }
                return;
            }
            _ => {}
        }
        let row = match hosts.rows.iter().position(|row| row.name == host) {
            Some(row) => row,
            None => {
                hosts.rows.push(HostRow {
                    name: host.to_string(),
                    holds: Vec::new(),
                    holding_since_ns: None,
                    marks: Vec::new(),
                    counts: [0; MARKED.len()],
                });
                hosts.rows.len() - 1
            }
        };
        let row = &mut hosts.rows[row];
        match what {
            HostEventKind::Leader => {
                row.holding_since_ns.get_or_insert(t_ns);
            }
            HostEventKind::StepsDown => {
                if let Some(since_ns) = row.holding_since_ns.take() {
                    row.holds.push((since_ns, t_ns));
                }
            }
            _ => {
                if let Some(index) = MARKED.iter().position(|(kind, _, _)| *kind == what) {
                    row.counts[index] += 1;
                    if row.counts[index] <= MAX_MARKS {
                        row.marks.push((t_ns, what));
                    }
                }
            }
        }
    }
}

fn rows(collected: &Collected) -> usize {
    collected.hosts.rows.len().clamp(1, MAX_ROWS)
}

/// The canvas height a hosts plot needs.
pub fn height_px(collected: &Collected) -> u32 {
    TITLE_HEIGHT_PX + MARGINS_PX + ROW_HEIGHT_PX * rows(collected) as u32
}

pub fn draw(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let panels = super::style::layout(root, collected, 1)?;
    let hosts = &collected.hosts;
    let end_ns = collected.run_for_ns();
    let shown = &hosts.rows[..hosts.rows.len().min(MAX_ROWS)];
    let rows = rows(collected);
    let holds = hosts
        .rows
        .iter()
        .any(|row| !row.holds.is_empty() || row.holding_since_ns.is_some());
    let mut parts = Vec::new();
    if holds {
        parts.push("the lease held by each host's own clock (green)");
    }
    if !hosts.two_leaders.is_empty() || hosts.two_since_ns.is_some() {
        parts.push("two leaders (red)");
    }
    if hosts.rows.iter().any(|row| !row.marks.is_empty()) {
        parts.push("a mark per event");
    }
    if parts.is_empty() {
        parts.push("nothing went wrong");
    }
    let mut caption = format!("hosts: {}", parts.join(", "));
    if hosts.rows.len() > shown.len() {
        caption.push_str(&format!(
            " ({} more hosts not shown)",
            hosts.rows.len() - shown.len()
        ));
    }
    let no_labels = |_: &f64| String::new();
    let y_range = 0.0..rows as f64;
    let mut chart = time_panel_with(
        &panels[0], collected, &caption, y_range, "", true, &no_labels,
    )?;
    let seconds = |ns: u64| ns as f64 / 1e9;
    let open_two = hosts.two_since_ns.map(|since_ns| (since_ns, end_ns));
    chart.draw_series(
        hosts
            .two_leaders
            .iter()
            .chain(open_two.iter())
            .map(|&(from, to)| {
                // At least a pixel's worth wide, so that a stretch of microseconds still shows.
                let to_s = seconds(to).max(seconds(from) + seconds(end_ns) / 1_000.0);
                Rectangle::new(
                    [(seconds(from), 0.0), (to_s, rows as f64)],
                    TWO_LEADERS_COLOR.mix(0.35).filled(),
                )
            }),
    )?;
    for (row, host) in shown.iter().enumerate() {
        let top = (rows - row) as f64 - 0.2;
        let bottom = (rows - row - 1) as f64 + 0.2;
        let open = host.holding_since_ns.map(|since_ns| (since_ns, end_ns));
        chart.draw_series(host.holds.iter().chain(open.iter()).map(|&(from, to)| {
            Rectangle::new(
                [(seconds(from), bottom), (seconds(to), top)],
                HOLD_COLOR.mix(0.8).filled(),
            )
        }))?;
        chart.draw_series(host.marks.iter().map(|&(t_ns, kind)| {
            let color = MARKED
                .iter()
                .find(|(marked, _, _)| *marked == kind)
                .map_or(BLACK, |(_, color, _)| *color);
            PathElement::new(
                vec![(seconds(t_ns), bottom), (seconds(t_ns), top)],
                color.stroke_width(2),
            )
        }))?;
        chart.draw_series(std::iter::once(Text::new(
            host.name.clone(),
            (0.0, top),
            (FONT, 11).into_font().color(&BLACK),
        )))?;
    }
    if !hosts.two_leaders.is_empty() || open_two.is_some() {
        let stretches = hosts.two_leaders.len() + usize::from(open_two.is_some());
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(format!("two leaders ({stretches})"))
            .legend(|(x, y)| {
                Rectangle::new(
                    [(x, y - 5), (x + 14, y + 5)],
                    TWO_LEADERS_COLOR.mix(0.35).filled(),
                )
            });
    }
    for (index, (_, color, label)) in MARKED.iter().enumerate() {
        let total: usize = hosts.rows.iter().map(|row| row.counts[index]).sum();
        if total == 0 {
            continue;
        }
        let color = *color;
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(format!("{label} ({total})"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x + 7, y - 6), (x + 7, y + 6)], color.stroke_width(2))
            });
    }
    legend(&mut chart)
}
