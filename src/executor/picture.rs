//! Executor runs: a Gantt chart of what each worker did (polling a task of which group, parked,
//! driver polls that woke tasks, starvation reports), and each task group's latency over time.

use plotters::prelude::*;

use ticklab_sim::Approx;

use std::any::Any;

use super::events::{
    BlockingEvent, DriverPollEvent, ParkEvent, PollEvent, StarvationEvent, TaskDoneEvent,
};
use super::spec::ExecutorConfig;
use crate::plot::collect::{
    BLOCKING, COLUMNS, Collected, FIRST_GROUP, KindPlot, MAX_MARKS, PARKED, Series, WorkerTrack,
    charge, index_of,
};
use crate::plot::draw::Draw;
use crate::plot::error::PlotError;
use crate::plot::style::{
    self, Area, FONT, PANEL_HEIGHT_PX, TITLE_HEIGHT_PX, TimeChart, Unit, draw_extremes, legend,
    run_seconds, series_color, time_panel, time_panel_with, y_range_to,
};
use crate::trace::ModelEvent;

/// What each worker did column by column, each task group's latencies, and the starvation
/// reports (the first [`MAX_MARKS`] of them, and how many in all).
#[derive(Debug, Default)]
struct ExecutorPlot {
    groups: Vec<Series>,
    workers: Vec<WorkerTrack>,
    starved: Vec<(u64, String)>,
    starved_total: u64,
}

/// What an executor run with nothing kept draws: empty rows.
static EMPTY: ExecutorPlot = ExecutorPlot {
    groups: Vec::new(),
    workers: Vec::new(),
    starved: Vec::new(),
    starved_total: 0,
};

fn own(collected: &Collected) -> &ExecutorPlot {
    collected.own::<ExecutorPlot>().unwrap_or(&EMPTY)
}

impl ExecutorPlot {
    fn worker(&mut self, name: &str) -> &mut WorkerTrack {
        let index = index_of(
            &mut self.workers,
            |track| &*track.name == name,
            || WorkerTrack::new(name),
        );
        &mut self.workers[index]
    }
}

/// The group a task label belongs to: `flush#12` is in `flush`; connection tasks are grouped.
pub fn task_group(task: &str) -> &str {
    match task.split_once('#') {
        Some((group, _)) => group,
        None if task.starts_with("conn") => "connections",
        None => task,
    }
}

impl KindPlot for ExecutorPlot {
    fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected) {
        let run_for_ns = common.run_for_ns();
        let event = event.as_any();
        if let Some(poll) = event.downcast_ref::<PollEvent>() {
            let group = FIRST_GROUP + Series::index_in(&mut self.groups, task_group(&poll.task));
            self.worker(&poll.worker)
                .enter(Some(group), poll.t_ns, run_for_ns);
        } else if let Some(done) = event.downcast_ref::<TaskDoneEvent>() {
            let group = Series::index_in(&mut self.groups, task_group(&done.task));
            let column = common.column_of(done.t_ns);
            self.groups[group]
                .values
                .add(column, done.latency_ns as i64);
        } else if let Some(park) = event.downcast_ref::<ParkEvent>() {
            self.worker(&park.worker)
                .enter(Some(PARKED), park.t_ns, run_for_ns);
        } else if let Some(poll) = event.downcast_ref::<DriverPollEvent>() {
            let column = common.column_of(poll.t_ns);
            self.worker(&poll.worker).driver_polls[column] += 1;
        } else if let Some(blocking) = event.downcast_ref::<BlockingEvent>() {
            // `spawn_blocking` runs on the runtime's pool, drawn as one row of its own.
            let row = match &blocking.worker {
                Some(worker) => worker.to_string(),
                None => format!("{} blocking pool", blocking.runtime),
            };
            let track = self.worker(&row);
            charge(
                &mut track.time_ns,
                BLOCKING,
                blocking.started_ns,
                blocking.t_ns,
                run_for_ns,
            );
        } else if let Some(starved) = event.downcast_ref::<StarvationEvent>() {
            self.starved_total += 1;
            if self.starved.len() < MAX_MARKS {
                self.starved.push((starved.t_ns, starved.task.to_string()));
            }
        }
    }

    fn finish(&mut self, end_ns: u64, run_for_ns: u64) {
        for worker in &mut self.workers {
            worker.enter(None, end_ns, run_for_ns);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Draw for ExecutorConfig {
    fn kind_plot(&self) -> Box<dyn KindPlot> {
        Box::new(ExecutorPlot::default())
    }

    fn plot_height_px(&self, collected: &Collected) -> u32 {
        height_px(collected)
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        draw(area, collected)
    }
}

/// Height of one worker's row in the Gantt chart.
pub const ROW_HEIGHT_PX: u32 = 26;
/// Rows beyond this many workers are left out, and the caption says so.
pub const MAX_ROWS: usize = 40;
const GANTT_MARGINS_PX: u32 = 90;
/// The height plotters gives each legend entry at a 12 px font.
const LEGEND_ENTRY_PX: u32 = 16;
const PARKED_COLOR: RGBColor = RGBColor(215, 215, 215);
const STARVED_COLOR: RGBColor = RGBColor(200, 0, 0);
const BLOCKING_COLOR: RGBColor = RGBColor(40, 40, 40);

/// The canvas height an executor plot needs.
pub fn height_px(collected: &Collected) -> u32 {
    TITLE_HEIGHT_PX + gantt_height_px(collected) + PANEL_HEIGHT_PX
}

fn gantt_height_px(collected: &Collected) -> u32 {
    GANTT_MARGINS_PX + ROW_HEIGHT_PX * gantt_rows(collected) as u32
}

/// Entries in the Gantt chart's legend: the groups, blocking sections and starvation marks.
fn legend_entries(collected: &Collected) -> usize {
    own(collected).groups.len() + 2
}

/// Rows of the Gantt chart: one per worker shown, plus empty ones above them that keep the
/// legend clear of the bars.
fn gantt_rows(collected: &Collected) -> usize {
    let workers = own(collected).workers.len().clamp(1, MAX_ROWS);
    let legend_px = LEGEND_ENTRY_PX * legend_entries(collected) as u32 + 10;
    workers + legend_px.div_ceil(ROW_HEIGHT_PX) as usize
}

pub fn draw(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let body = style::layout(root, collected, 1)?.remove(0);
    let (gantt_area, latency_area) = body.split_vertically(gantt_height_px(collected));
    gantt(&gantt_area, collected)?;
    latencies(&latency_area, collected)
}

/// How a worker's bar looks in one column: the group it polled most, shaded by the share of the
/// column it spent polling (in quarters, so neighbouring columns merge), over grey if it parked.
/// A blocking section (`block_in_place` on a worker's row, `spawn_blocking` on a pool's) is drawn
/// over the poll it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cell {
    parked: bool,
    polling: Option<(usize, u8)>,
    blocking: Option<u8>,
}

/// `part` of `whole` in quarters, from 1 (any at all) to 4.
fn quarters(part_ns: u64, whole_ns: u64) -> u8 {
    (part_ns * 4).div_ceil(whole_ns.max(1)).clamp(1, 4) as u8
}

fn cell(worker: &WorkerTrack, column: usize, width_ns: u64) -> Cell {
    let times = &worker.time_ns[column];
    let time = |state: usize| times.get(state).copied().unwrap_or(0);
    let polls = times.iter().enumerate().skip(FIRST_GROUP);
    let busy_ns: u64 = polls.clone().map(|(_, &ns)| ns).sum();
    let polling = polls
        .filter(|&(_, &ns)| ns > 0)
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(state, _)| (state - FIRST_GROUP, quarters(busy_ns, width_ns)));
    Cell {
        parked: time(PARKED) > 0,
        polling,
        blocking: (time(BLOCKING) > 0).then(|| quarters(time(BLOCKING), width_ns)),
    }
}

fn gantt(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let workers = &own(collected).workers[..own(collected).workers.len().min(MAX_ROWS)];
    let rows = workers.len().max(1);
    let all_rows = gantt_rows(collected);
    let left_out = own(collected).workers.len() - workers.len();
    let mut caption = "workers: polling a task group (shade: share of time), blocking (dark), parked (grey), | driver polls".to_string();
    if left_out > 0 {
        caption.push_str(&format!(" ({left_out} more workers not shown)"));
    }
    let no_labels = |_: &f64| String::new();
    let y_range = 0.0..all_rows as f64;
    let mut chart = time_panel_with(area, collected, &caption, y_range, "", true, &no_labels)?;
    for (row, worker) in workers.iter().enumerate() {
        draw_worker(&mut chart, collected, worker, rows - row)?;
    }
    chart.draw_series(own(collected).starved.iter().map(|(t_ns, _)| {
        let x = *t_ns as f64 / 1e9;
        PathElement::new(
            vec![(x, 0.0), (x, rows as f64)],
            STARVED_COLOR.stroke_width(2),
        )
    }))?;
    legend_keys(&mut chart, collected)?;
    legend(&mut chart)
}

/// One worker's row: parked, polling and blocking bars, driver polls and its name; `row_top`
/// counts rows from the bottom of the chart.
fn draw_worker<'a, 'b>(
    chart: &mut TimeChart<'a, 'b>,
    collected: &Collected,
    worker: &WorkerTrack,
    row_top: usize,
) -> Result<(), PlotError> {
    let width_s = run_seconds(collected) / COLUMNS as f64;
    let width_ns = collected.run_for_ns().div_ceil(COLUMNS as u64);
    let top = row_top as f64 - 0.15;
    let bottom = (row_top - 1) as f64 + 0.15;
    let cells: Vec<Cell> = (0..COLUMNS).map(|c| cell(worker, c, width_ns)).collect();
    let bar = |from: usize, to: usize, style: ShapeStyle| {
        Rectangle::new(
            [(from as f64 * width_s, bottom), (to as f64 * width_s, top)],
            style,
        )
    };
    let parked = runs(&cells, |cell| cell.parked.then_some(()));
    chart.draw_series(
        parked
            .iter()
            .map(|&(from, to, ())| bar(from, to, PARKED_COLOR.filled())),
    )?;
    let polling = runs(&cells, |cell| cell.polling);
    chart.draw_series(polling.iter().map(|&(from, to, (group, quarters))| {
        let share = f64::from(quarters) / 4.0;
        bar(from, to, series_color(group).mix(share).filled())
    }))?;
    let blocking = runs(&cells, |cell| cell.blocking);
    chart.draw_series(blocking.iter().map(|&(from, to, quarters)| {
        let share = f64::from(quarters) / 4.0;
        let middle = (top + bottom) / 2.0;
        Rectangle::new(
            [
                (from as f64 * width_s, bottom),
                (to as f64 * width_s, middle),
            ],
            BLOCKING_COLOR.mix(share).filled(),
        )
    }))?;
    chart.draw_series(
        worker
            .driver_polls
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(column, _)| {
                let x = collected.column_seconds(column);
                PathElement::new(vec![(x, top), (x, top + 0.12)], BLACK.stroke_width(1))
            }),
    )?;
    chart.draw_series(std::iter::once(Text::new(
        worker.name.clone(),
        (0.0, top),
        (FONT, 11).into_font().color(&BLACK),
    )))?;
    Ok(())
}

/// The legend's keys: each task group's colour, then blocking sections and starvation when any
/// were seen.
fn legend_keys<'a, 'b>(
    chart: &mut TimeChart<'a, 'b>,
    collected: &Collected,
) -> Result<(), PlotError> {
    for (group, named) in own(collected).groups.iter().enumerate() {
        let color = series_color(group);
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(named.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
    }
    if own(collected).workers.iter().any(|worker| {
        worker
            .time_ns
            .iter()
            .any(|times| times.get(BLOCKING).is_some_and(|&ns| ns > 0))
    }) {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label("blocking section")
            .legend(|(x, y)| Rectangle::new([(x, y), (x + 14, y + 5)], BLOCKING_COLOR.filled()));
    }
    if !own(collected).starved.is_empty() {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(format!("starved ({})", own(collected).starved_total))
            .legend(|(x, y)| PathElement::new(vec![(x + 7, y - 6), (x + 7, y + 6)], STARVED_COLOR));
    }
    Ok(())
}

/// Stretches of consecutive columns with the same look, as `(from, to, look)`: one bar each.
fn runs<T: Copy + PartialEq>(
    cells: &[Cell],
    look: impl Fn(&Cell) -> Option<T>,
) -> Vec<(usize, usize, T)> {
    let mut runs: Vec<(usize, usize, T)> = Vec::new();
    for (column, cell) in cells.iter().enumerate() {
        let Some(value) = look(cell) else {
            continue;
        };
        match runs.last_mut() {
            Some((_, end, last)) if *last == value && *end == column => *end = column + 1,
            _ => runs.push((column, column + 1, value)),
        }
    }
    runs
}

fn latencies(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let highest = own(collected)
        .groups
        .iter()
        .filter_map(|group| group.values.max())
        .max();
    let caption = match highest {
        Some(highest_ns) => format!(
            "latency of each task group, from arrival to done (range per column): worst {}",
            Approx(highest_ns as u64)
        ),
        None => "latency of each task group: no task finished".to_string(),
    };
    let unit = Unit::for_largest(highest.unwrap_or(0));
    let to_unit = |ns: i64| unit.of(ns);
    let y_range = y_range_to(0.0, to_unit(highest.unwrap_or(0)));
    let y_desc = format!("latency ({})", unit.name);
    let mut chart = time_panel(area, collected, &caption, y_range, &y_desc, false)?;
    for (group, named) in own(collected).groups.iter().enumerate() {
        if named.values.max().is_none() {
            continue;
        }
        let label = Some(named.name.clone());
        draw_extremes(
            &mut chart,
            collected,
            &named.values,
            series_color(group),
            &to_unit,
            label,
        )?;
    }
    if highest.is_some() {
        legend(&mut chart)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_grouped_by_their_label() {
        assert_eq!(task_group("flush#12"), "flush");
        assert_eq!(task_group("conn7"), "connections");
    }
}
