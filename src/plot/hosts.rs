//! Hosts runs: one row per host, with its own suspends, freezes and wall steps, when it held the
//! lease by its own clock, every stretch with two leaders across all rows, and a mark for each
//! suspicion, stale write and deadline. Partitions and latency spikes shade the whole panel.

use plotters::prelude::*;

use super::PlotError;
use super::collect::Collected;
use super::style::{Area, FONT, TITLE_HEIGHT_PX, WALL_STEP, fault_color, legend, time_panel_with};
use crate::hosts::HostEventKind;
use crate::trace::FaultEvent;

/// Height of one host's row.
const ROW_HEIGHT_PX: u32 = 24;
/// Rows beyond this many hosts are left out, quiet hosts first, and the caption says so; marks
/// of every host still count in the legend.
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
    /// This host's suspends, freezes and slews: (kind, from, to).
    faults: Vec<(&'static str, u64, u64)>,
    /// Those under way: (fault number, kind, from).
    open_faults: Vec<(usize, &'static str, u64)>,
    wall_steps: Vec<u64>,
}

impl HostRow {
    fn new(name: &str) -> Self {
        HostRow {
            name: name.to_string(),
            holds: Vec::new(),
            holding_since_ns: None,
            marks: Vec::new(),
            counts: [0; MARKED.len()],
            faults: Vec::new(),
            open_faults: Vec::new(),
            wall_steps: Vec::new(),
        }
    }

    /// Whether anything happened to or on this host.
    fn eventful(&self) -> bool {
        !self.holds.is_empty()
            || self.holding_since_ns.is_some()
            || !self.marks.is_empty()
            || !self.faults.is_empty()
            || !self.open_faults.is_empty()
            || !self.wall_steps.is_empty()
    }
}

/// The kinds drawn as marks, each with its color and legend text.
const MARKED: [(HostEventKind, RGBColor, &str); 5] = [
    (
        HostEventKind::StaleWrite,
        RGBColor(110, 0, 0),
        "stale write accepted",
    ),
    (
        HostEventKind::Fenced,
        RGBColor(120, 60, 160),
        "stale write fenced",
    ),
    (
        HostEventKind::Suspects,
        RGBColor(20, 140, 150),
        "suspects a peer",
    ),
    (
        HostEventKind::Timeout,
        RGBColor(40, 90, 200),
        "call timed out",
    ),
    (
        HostEventKind::EarlyTimeout,
        RGBColor(230, 0, 120),
        "call timed out early",
    ),
];

impl HostsCollected {
    /// The row of `host`: rows come in the order hosts first appear, which the run's `host`
    /// lines make the scenario's order.
    fn row(&mut self, host: &str) -> &mut HostRow {
        let index = match self.rows.iter().position(|row| row.name == host) {
            Some(index) => index,
            None => {
                self.rows.push(HostRow::new(host));
                self.rows.len() - 1
            }
        };
        &mut self.rows[index]
    }
}

impl Collected {
    /// A hosts event.
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
        let row = hosts.row(host);
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

    /// A fault edge of one host: a wall step, or a suspend, freeze or slew beginning or ending.
    pub(crate) fn host_fault(&mut self, host: &str, fault: &FaultEvent, begins: bool) {
        let row = self.hosts.row(host);
        if fault.kind == "wall-step" {
            row.wall_steps.push(fault.t_ns);
        } else if begins {
            row.open_faults.push((fault.fault, fault.kind, fault.t_ns));
        } else if let Some(open) = row.open_faults.iter().position(|f| f.0 == fault.fault) {
            let (_, kind, from_ns) = row.open_faults.remove(open);
            row.faults.push((kind, from_ns, fault.t_ns));
        }
    }
}

/// The rows drawn, in scenario order: every host if they fit, else the eventful ones first.
fn shown(hosts: &HostsCollected) -> Vec<&HostRow> {
    if hosts.rows.len() <= MAX_ROWS {
        return hosts.rows.iter().collect();
    }
    let mut keep: Vec<bool> = hosts.rows.iter().map(HostRow::eventful).collect();
    let mut room = MAX_ROWS.saturating_sub(keep.iter().filter(|kept| **kept).count());
    for kept in keep.iter_mut().filter(|kept| !**kept) {
        if room == 0 {
            break;
        }
        *kept = true;
        room -= 1;
    }
    let rows = hosts.rows.iter().zip(keep).filter(|(_, kept)| *kept);
    rows.map(|(row, _)| row).take(MAX_ROWS).collect()
}

fn rows(collected: &Collected) -> usize {
    collected.hosts.rows.len().clamp(1, MAX_ROWS)
}

/// Empty rows above the hosts for the legend and the network faults' labels, so that neither
/// covers an event.
fn strip_rows(collected: &Collected) -> usize {
    let hosts = &collected.hosts;
    let entries = fault_kinds(hosts).len()
        + usize::from(!hosts.two_leaders.is_empty() || hosts.two_since_ns.is_some())
        + (0..MARKED.len())
            .filter(|&index| hosts.rows.iter().any(|row| row.counts[index] > 0))
            .count();
    let network_labels = usize::from(!collected.bands.is_empty());
    let legend_px = LEGEND_ENTRY_PX * entries as u32 + LEGEND_PADDING_PX;
    (legend_px.div_ceil(ROW_HEIGHT_PX) as usize).max(network_labels)
}

/// Height of one legend entry, and the legend's padding, at its 12 px font.
const LEGEND_ENTRY_PX: u32 = 19;
const LEGEND_PADDING_PX: u32 = 14;

/// The canvas height a hosts plot needs.
pub fn height_px(collected: &Collected) -> u32 {
    let rows = rows(collected) + strip_rows(collected);
    TITLE_HEIGHT_PX + MARGINS_PX + ROW_HEIGHT_PX * rows as u32
}

fn caption(hosts: &HostsCollected, shown: &[&HostRow]) -> String {
    let mut parts = Vec::new();
    if !fault_kinds(hosts).is_empty() {
        parts.push("each host's own faults");
    }
    if hosts
        .rows
        .iter()
        .any(|row| !row.holds.is_empty() || row.holding_since_ns.is_some())
    {
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
    let hidden = hosts.rows.len() - shown.len();
    if hidden > 0 {
        let eventful = hosts.rows.iter().filter(|row| row.eventful()).count();
        let hidden_eventful =
            eventful.saturating_sub(shown.iter().filter(|r| r.eventful()).count());
        caption.push_str(&match hidden_eventful {
            0 => format!(" ({hidden} quiet hosts not shown)"),
            _ => format!(" ({hidden} more hosts not shown, {hidden_eventful} with events)"),
        });
    }
    caption
}

pub fn draw(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let panels = super::style::layout(root, collected, 1)?;
    let hosts = &collected.hosts;
    let end_ns = collected.run_for_ns();
    let shown = shown(hosts);
    let rows = rows(collected);
    let no_labels = |_: &f64| String::new();
    let y_range = 0.0..(rows + strip_rows(collected)) as f64;
    let caption = caption(hosts, &shown);
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
        draw_row(&mut chart, host, (rows - row) as f64, end_ns)?;
    }
    label_series(&mut chart, hosts, open_two.is_some())?;
    legend(&mut chart)
}

/// One host's row, whose top edge is at `row_top`: its faults across the row, its lease in the
/// middle, a mark per event, and its name.
fn draw_row(
    chart: &mut super::style::TimeChart<'_, '_>,
    host: &HostRow,
    row_top: f64,
    end_ns: u64,
) -> Result<(), PlotError> {
    let seconds = |ns: u64| ns as f64 / 1e9;
    let (top, bottom) = (row_top - 0.2, row_top - 0.8);
    let open = host
        .open_faults
        .iter()
        .map(|&(_, kind, from)| (kind, from, end_ns));
    let faults: Vec<_> = host.faults.iter().copied().chain(open).collect();
    chart.draw_series(faults.iter().map(|&(kind, from, to)| {
        Rectangle::new(
            [(seconds(from), row_top - 1.0), (seconds(to), row_top)],
            fault_color(kind).mix(0.35).filled(),
        )
    }))?;
    chart.draw_series(host.wall_steps.iter().map(|&t_ns| {
        PathElement::new(
            vec![(seconds(t_ns), row_top - 1.0), (seconds(t_ns), row_top)],
            WALL_STEP.stroke_width(2),
        )
    }))?;
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
    Ok(())
}

/// Legend entries: host faults and two-leader stretches by kind, and each kind of mark, with
/// how many of each the run had on every host, shown or not.
fn label_series(
    chart: &mut super::style::TimeChart<'_, '_>,
    hosts: &HostsCollected,
    two_still_open: bool,
) -> Result<(), PlotError> {
    for (kind, count) in fault_kinds(hosts) {
        let color = if kind == "wall-step" {
            WALL_STEP
        } else {
            fault_color(kind)
        };
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(format!("{kind} ({count})"))
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.mix(0.5).filled())
            });
    }
    let stretches = hosts.two_leaders.len() + usize::from(two_still_open);
    if stretches > 0 {
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
    Ok(())
}

/// Each kind of host fault the run had, with how many, in the order they first appear.
fn fault_kinds(hosts: &HostsCollected) -> Vec<(&'static str, usize)> {
    let mut kinds: Vec<(&'static str, usize)> = Vec::new();
    for row in &hosts.rows {
        let bands = row.faults.iter().map(|f| f.0);
        let open = row.open_faults.iter().map(|f| f.1);
        let steps = row.wall_steps.iter().map(|_| "wall-step");
        for kind in bands.chain(open).chain(steps) {
            match kinds.iter_mut().find(|(known, _)| *known == kind) {
                Some(entry) => entry.1 += 1,
                None => kinds.push((kind, 1)),
            }
        }
    }
    kinds
}
