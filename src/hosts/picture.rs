//! Hosts runs: one row per host, with its own suspends, freezes and wall steps, when it held the
//! lease by its own clock, every stretch with two leaders across all rows, and a mark for each
//! suspicion, stale write and deadline. Partitions and latency spikes shade the whole panel.

use plotters::prelude::*;

use std::any::Any;

use super::events::HostEvent;
use super::spec::HostsConfig;
use crate::plot::collect::{Collected, KindPlot};
use crate::plot::draw::Draw;
use crate::plot::error::PlotError;
use crate::trace::ModelEvent;

use super::event_kind::HostEventKind;
use super::picture_legend as legend;
use crate::plot::row_names;
use crate::plot::style::{Area, TITLE_HEIGHT_PX, WALL_STEP, YAxis, fault_color, time_panel_on};
use crate::trace::FaultEvent;

/// What the run kept of its hosts; nothing if it kept nothing.
pub(super) fn kept(collected: &Collected) -> &HostsCollected {
    static NONE: HostsCollected = HostsCollected {
        rows: Vec::new(),
        two_leaders: Vec::new(),
        two_since_ns: None,
    };
    collected.own::<HostsCollected>().unwrap_or(&NONE)
}

impl Draw for HostsConfig {
    fn kind_plot(&self) -> Box<dyn KindPlot> {
        Box::new(HostsCollected::default())
    }

    fn plot_height_px(&self, collected: &Collected) -> u32 {
        height_px(collected)
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        draw(area, collected)
    }
}

/// Height of one host's row.
const ROW_HEIGHT_PX: u32 = 24;
/// Rows beyond this many hosts are left out, quiet hosts first, and the caption says so; marks
/// of every host still count in the legend.
const MAX_ROWS: usize = 40;
const MARGINS_PX: u32 = 110;
/// Marks kept per host and kind: enough to see every one in a scenario, bounded for big runs.
const MAX_MARKS: usize = 5_000;

pub(super) const HOLD_COLOR: RGBColor = RGBColor(60, 150, 80);
pub(super) const TWO_LEADERS_COLOR: RGBColor = RGBColor(210, 30, 30);

/// What the plot keeps of a hosts run.
#[derive(Clone, Debug, Default)]
pub struct HostsCollected {
    pub(super) rows: Vec<HostRow>,
    pub(super) two_leaders: Vec<(u64, u64)>,
    pub(super) two_since_ns: Option<u64>,
}

#[derive(Clone, Debug)]
pub(super) struct HostRow {
    name: String,
    pub(super) holds: Vec<(u64, u64)>,
    pub(super) holding_since_ns: Option<u64>,
    /// (time, kind), capped per kind at [`MAX_MARKS`].
    marks: Vec<(u64, HostEventKind)>,
    pub(super) counts: [usize; MARKED.len()],
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

/// How a mark is drawn: a line across the middle of its host's row, or one with a dot on top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    Line,
    Dotted,
}

/// The kinds drawn as marks, each with its color, legend text and shape.
pub(super) const MARKED: [(HostEventKind, RGBColor, &str, Shape); 6] = [
    (
        HostEventKind::StaleWrite,
        RGBColor(110, 0, 0),
        "stale write accepted",
        Shape::Line,
    ),
    (
        HostEventKind::Fenced,
        RGBColor(120, 60, 160),
        "stale write fenced",
        Shape::Line,
    ),
    (
        HostEventKind::FalseSuspect,
        RGBColor(230, 120, 0),
        "false suspicion",
        Shape::Dotted,
    ),
    (
        HostEventKind::Suspects,
        RGBColor(20, 140, 150),
        "rightful suspicion",
        Shape::Line,
    ),
    (
        HostEventKind::Timeout,
        RGBColor(40, 90, 200),
        "call timed out",
        Shape::Line,
    ),
    (
        HostEventKind::EarlyTimeout,
        RGBColor(230, 0, 120),
        "call timed out early",
        Shape::Line,
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

impl KindPlot for HostsCollected {
    fn model_event(&mut self, event: &dyn ModelEvent, _common: &mut Collected) {
        if let Some(event) = event.as_any().downcast_ref::<HostEvent>() {
            self.host_event(&event.host, event.what, event.t_ns);
        }
    }

    /// A fault edge of one host: a wall step, or a suspend, freeze or slew beginning or ending.
    fn host_fault(&mut self, host: &str, fault: &FaultEvent, begins: bool) {
        let row = self.row(host);
        if fault.kind == "wall-step" {
            row.wall_steps.push(fault.t_ns);
        } else if begins {
            row.open_faults.push((fault.fault, fault.kind, fault.t_ns));
        } else if let Some(open) = row.open_faults.iter().position(|f| f.0 == fault.fault) {
            let (_, kind, from_ns) = row.open_faults.remove(open);
            row.faults.push((kind, from_ns, fault.t_ns));
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl HostsCollected {
    /// A hosts event.
    fn host_event(&mut self, host: &str, what: HostEventKind, t_ns: u64) {
        let hosts = self;
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
                if let Some(index) = MARKED.iter().position(|(kind, ..)| *kind == what) {
                    row.counts[index] += 1;
                    if row.counts[index] <= MAX_MARKS {
                        row.marks.push((t_ns, what));
                    }
                }
            }
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
    kept(collected).rows.len().clamp(1, MAX_ROWS)
}

/// The canvas height a hosts plot needs: its legend above the panel, and a row per host shown.
pub fn height_px(collected: &Collected) -> u32 {
    TITLE_HEIGHT_PX
        + legend::height_px(&legend::entries(collected))
        + MARGINS_PX
        + ROW_HEIGHT_PX * rows(collected) as u32
        + if any_cpu(collected) { CPU_PANEL_PX } else { 0 }
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
        parts.push("the lease held by each host's own clock");
    }
    if !hosts.two_leaders.is_empty() || hosts.two_since_ns.is_some() {
        parts.push("two leaders");
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

/// Height of the panel of the hosts' threads' CPU, drawn where some host has a machine.
const CPU_PANEL_PX: u32 = 280;

/// Whether some host's thread used CPU: a host with a `[machine]` whose workloads cost time.
fn any_cpu(collected: &Collected) -> bool {
    collected
        .summary
        .iter()
        .flat_map(|summary| &summary.threads)
        .any(|thread| thread.busy_ns > 0)
}

/// The area above the hosts' threads' CPU, drawn at the bottom of `panel` where hosts used any.
fn with_cpu_below<'a>(panel: &Area<'a>, collected: &Collected) -> Result<Area<'a>, PlotError> {
    if !any_cpu(collected) {
        return Ok(panel.clone());
    }
    let (_, height_px) = panel.dim_in_pixel();
    let (body, cpu) = panel.split_vertically(height_px.saturating_sub(CPU_PANEL_PX));
    crate::plot::thread_cpu::draw(&cpu, collected)?;
    Ok(body)
}

/// The legend above the panel, then the panel: a row per host, its name left of it; below them,
/// where hosts have machines, their threads' CPU per second.
pub fn draw(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let panels = crate::plot::style::layout(root, collected, 1)?;
    let body = with_cpu_below(&panels[0], collected)?;
    let entries = legend::entries(collected);
    let (legend_area, panel) = body.split_vertically(legend::height_px(&entries));
    legend::draw(&legend_area, &entries)?;
    let hosts = &kept(collected);
    let end_ns = collected.run_for_ns();
    let shown = shown(hosts);
    let rows = rows(collected);
    let names: Vec<String> = shown
        .iter()
        .map(|row| row_names::row_name(&row.name))
        .collect();
    let no_labels = |_: &f64| String::new();
    let y_axis = YAxis {
        range: 0.0..rows as f64,
        desc: "",
        format: &no_labels,
        label_area_px: row_names::label_area_px(&names),
        // A line between every two rows, and none across a row.
        lines: rows + 1,
    };
    // Partitions and spikes are named in the legend: labels across the panel would cover rows.
    let mut chart = time_panel_on(&panel, collected, &caption(hosts, &shown), y_axis, false)?;
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
    row_names::draw(&panel, &chart, &names)
}

/// One host's row, whose top edge is at `row_top`: its faults across the row, its lease in the
/// middle, and a mark per event.
fn draw_row(
    chart: &mut crate::plot::style::TimeChart<'_, '_>,
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
    for &(t_ns, kind) in &host.marks {
        let Some(&(_, color, _, shape)) = MARKED.iter().find(|(marked, ..)| *marked == kind) else {
            continue;
        };
        let x = seconds(t_ns);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x, bottom), (x, top)],
            color.stroke_width(2),
        )))?;
        if shape == Shape::Dotted {
            chart.draw_series(std::iter::once(Circle::new((x, top), 3, color.filled())))?;
        }
    }
    Ok(())
}

/// Each kind of host fault the run had, with how many, in the order they first appear.
pub(super) fn fault_kinds(hosts: &HostsCollected) -> Vec<(&'static str, usize)> {
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
