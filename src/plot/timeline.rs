//! Interval and timer runs: ticks or fires per wall second, the lateness of each, CPU
//! utilisation per thread, and the `Instant` and wall clocks against physical time, all over
//! the faults' bands.

use plotters::prelude::*;

use super::collect::{ClockPoint, Collected, Extremes};
use super::error::PlotError;
use super::style::{self, Area, Unit, draw_extremes, legend, series_color, time_panel, y_range_to};
use ticklab_sim::Approx;

/// Draws an interval or timer run; `memory` is a timer design's slots in use, which get a panel
/// of their own after the lateness they trade against.
pub fn draw(
    root: &Area<'_>,
    collected: &Collected,
    noun: &str,
    memory: Option<&Extremes>,
) -> Result<(), PlotError> {
    let panels = style::layout(root, collected, 4 + usize::from(memory.is_some()))?;
    let mut next = panels.iter();
    let mut panel = || next.next().expect("one panel each");
    per_wall_second(panel(), collected, noun)?;
    lateness(panel(), collected, noun)?;
    if let Some(live_slots) = memory {
        live(panel(), collected, live_slots)?;
    }
    super::thread_cpu::draw(panel(), collected)?;
    clocks(panel(), collected)?;
    Ok(())
}

fn live(area: &Area<'_>, collected: &Collected, live_slots: &Extremes) -> Result<(), PlotError> {
    let highest = live_slots.max().unwrap_or(0).max(0);
    let peak = collected
        .summary
        .as_ref()
        .and_then(|summary| summary.get("peak_live_slots"))
        .unwrap_or(highest as u64);
    let caption =
        format!("timer slots in use (scheduled, or cancelled and not yet freed): peak {peak}");
    let mut chart = time_panel(
        area,
        collected,
        &caption,
        y_range_to(0.0, highest.max(1) as f64),
        "slots",
        false,
    )?;
    draw_extremes(
        &mut chart,
        collected,
        live_slots,
        series_color(2),
        &|slots: i64| slots as f64,
        None,
    )
}

fn per_wall_second(area: &Area<'_>, collected: &Collected, noun: &str) -> Result<(), PlotError> {
    let seconds = &collected.per_wall_second;
    let highest = seconds.most();
    let y_range = y_range_to(0.0, highest as f64);
    let caption = match seconds.bin_secs() {
        None => format!("{noun}s per wall-clock second (most: {highest})"),
        // Too many seconds for a bar each: a bar per span, as high as its busiest second.
        Some(bin_secs) => format!(
            "{noun}s per wall-clock second: the busiest second of every {} (most: {highest})",
            Approx(bin_secs * NS_PER_SEC)
        ),
    };
    let mut chart = time_panel(area, collected, &caption, y_range, noun, true)?;
    // Each wall second's bar starts where its first tick happened in physical time, so a wall
    // step shows as bars out of step with the axis rather than as a gap.
    chart.draw_series(seconds.bars().into_iter().map(|bar| {
        let x = bar.from_ns as f64 / 1e9;
        Rectangle::new(
            [(x, 0.0), (x + bar.width_ns as f64 / 1e9, bar.count as f64)],
            series_color(0).filled(),
        )
    }))?;
    Ok(())
}

fn lateness(area: &Area<'_>, collected: &Collected, noun: &str) -> Result<(), PlotError> {
    let Some(lateness) = &collected.lateness else {
        let caption = format!("lateness of each {noun}: none happened");
        time_panel(area, collected, &caption, 0.0..1.0, "ms", false)?;
        return Ok(());
    };
    let (lowest, highest) = (lateness.min().unwrap_or(0), lateness.max().unwrap_or(0));
    let unit = Unit::for_largest(lowest.abs().max(highest));
    let to_unit = |ns: i64| unit.of(ns);
    let y_range = y_range_to(to_unit(lowest), to_unit(highest));
    let mut caption = format!(
        "lateness of each {noun} (range per column): at worst {} late",
        Approx(highest.max(0) as u64)
    );
    if lowest < 0 {
        caption.push_str(&format!(", {} early", Approx(lowest.unsigned_abs())));
    }
    let y_desc = format!("late by ({})", unit.name);
    let mut chart = time_panel(area, collected, &caption, y_range, &y_desc, false)?;
    draw_extremes(
        &mut chart,
        collected,
        lateness,
        series_color(1),
        &to_unit,
        None,
    )
}

const NS_PER_SEC: u64 = 1_000_000_000;

/// The clocks' readings through the run: at its start (monotonic and boottime read 0, the wall
/// its start), at every reading the trace gave, and at its end, extrapolated from the last one
/// (no fault edge lies after it, so both clocks move with physical time there).
fn clock_line(collected: &Collected) -> Vec<ClockPoint> {
    let (wall_start_ns, instant_on_wall) = collected.start.as_ref().map_or((0, false), |start| {
        (start.wall.0, start.instant_clock == "wall")
    });
    let mut points = vec![ClockPoint {
        t_ns: 0,
        instant_ns: if instant_on_wall { wall_start_ns } else { 0 },
        wall_ns: wall_start_ns,
    }];
    let mut sorted = collected.clocks.clone();
    sorted.sort_by_key(|point| point.t_ns);
    for point in sorted {
        // A wall step's reading is taken after the step: the reading just before it continues
        // the line from the point before, so the step shows as a jump.
        let stepped = collected
            .wall_steps
            .iter()
            .any(|(t_ns, _)| *t_ns == point.t_ns);
        let before = *points.last().expect("the start is always there");
        if stepped {
            points.push(advanced(before, point.t_ns));
        }
        points.push(point);
    }
    let last = *points.last().expect("the start is always there");
    let mut end = advanced(last, collected.run_for_ns().max(last.t_ns));
    // A system suspend still going at the end stops a monotonic `Instant` to the end.
    let instant_stopped = collected.open_at_end.contains(&"system-suspend")
        && collected
            .start
            .as_ref()
            .is_some_and(|start| start.instant_clock == "monotonic");
    if instant_stopped {
        end.instant_ns = last.instant_ns;
    }
    points.push(end);
    points
}

/// `point`'s readings carried forward to `t_ns`, both clocks moving with physical time.
fn advanced(point: ClockPoint, t_ns: u64) -> ClockPoint {
    let elapsed_ns = (t_ns - point.t_ns) as i64;
    ClockPoint {
        t_ns,
        instant_ns: point.instant_ns + elapsed_ns,
        wall_ns: point.wall_ns + elapsed_ns,
    }
}

pub(crate) fn clocks(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let points = clock_line(collected);
    let origin = points[0];
    let seconds = |ns: i64| ns as f64 / 1e9;
    let instant: Vec<(f64, f64)> = points
        .iter()
        .map(|p| {
            (
                p.t_ns as f64 / 1e9,
                seconds(p.instant_ns - origin.instant_ns),
            )
        })
        .collect();
    let wall: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.t_ns as f64 / 1e9, seconds(p.wall_ns - origin.wall_ns)))
        .collect();
    let values = instant.iter().chain(&wall).map(|&(_, y)| y);
    let low = values.clone().fold(0.0, f64::min);
    let high = values.fold(0.0, f64::max);
    let instant_clock = collected
        .start
        .as_ref()
        .map_or("instant", |start| start.instant_clock);
    let caption = format!("clocks against physical time (Instant reads {instant_clock})");
    let mut chart = time_panel(
        area,
        collected,
        &caption,
        y_range_to(low, high),
        "advanced by (s)",
        false,
    )?;
    let wall_color = series_color(2);
    let instant_color = series_color(0);
    chart
        .draw_series(LineSeries::new(wall, wall_color.stroke_width(3)))?
        .label("wall clock")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], wall_color));
    chart
        .draw_series(LineSeries::new(instant, instant_color.stroke_width(2)))?
        .label("Instant")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], instant_color));
    legend(&mut chart)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{StartEvent, Wall};

    const S: u64 = 1_000_000_000;

    fn run_of(instant_clock: &'static str) -> Collected {
        let mut collected = Collected::default();
        collected.start = Some(StartEvent {
            t_ns: 0,
            about: String::new(),
            source: String::new(),
            model: "interval",
            platform: "linux",
            instant_clock,
            instant_source: None,
            seed: 0,
            run_for_ns: 10 * S,
            wall: Wall(0),
            profile: None,
            notes: Vec::new(),
        });
        // A system suspend began at 8 s and was still going when the run ended.
        collected.clocks = vec![ClockPoint {
            t_ns: 8 * S,
            instant_ns: 8 * S as i64,
            wall_ns: 8 * S as i64,
        }];
        collected.open_at_end = vec!["system-suspend"];
        collected
    }

    #[test]
    fn a_suspend_open_at_the_end_stops_a_monotonic_instant_to_the_end() {
        let end = *clock_line(&run_of("monotonic")).last().unwrap();
        assert_eq!(
            (end.t_ns, end.instant_ns, end.wall_ns),
            (10 * S, 8 * S as i64, 10 * S as i64)
        );
        let end = *clock_line(&run_of("boottime")).last().unwrap();
        assert_eq!(end.instant_ns, 10 * S as i64, "boottime counts the suspend");
    }
}
