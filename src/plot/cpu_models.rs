//! Lock and idle runs. Lock: every acquisition's wait over time with each window's percentiles,
//! and CPU per thread. Idle: CPU per strategy, each strategy's wake latency percentiles, and its
//! wake latencies over time.

use plotters::prelude::*;

use super::collect::Collected;
use super::error::PlotError;
use super::style::{
    self, Area, Bar, Unit, bar_panel, draw_extremes, legend, power_of_ten, series_color,
    time_panel, time_panel_with, y_range_to,
};

pub fn draw_lock(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let panels = style::layout(root, collected, 2)?;
    lock_waits(&panels[0], collected)?;
    let (names, bars) = cpu_rows(collected, "thread");
    bar_panel(
        &panels[1],
        "CPU per thread, over the run",
        &names,
        &bars,
        "% of a core",
        false,
    )
}

pub fn draw_idle(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let panels = style::layout(root, collected, 3)?;
    let (names, bars) = cpu_rows(collected, "strategy");
    bar_panel(
        &panels[0],
        "CPU per idle strategy, while it ran",
        &names,
        &bars,
        "% of a core",
        false,
    )?;
    wake_percentiles(&panels[1], collected)?;
    wakes_over_time(&panels[2], collected)
}

/// Each part of `kind` and its `cpu_percent`, from the summary, as a bar panel's rows and bars.
fn cpu_rows(collected: &Collected, kind: &str) -> (Vec<String>, Vec<Bar>) {
    let summary = collected.summary.iter();
    let sections = summary.flat_map(|summary| summary.groups.iter().chain(&summary.parts));
    let parts: Vec<(String, f64)> = sections
        .filter(|section| section.kind == kind)
        .filter_map(|section| Some((section.name.clone(), section.get("cpu_percent")? as f64)))
        .collect();
    let bars = parts
        .iter()
        .enumerate()
        .map(|(row, (_, percent))| Bar {
            row,
            value: *percent,
            color: row,
            opacity: 1.0,
        })
        .collect();
    (parts.into_iter().map(|(name, _)| name).collect(), bars)
}

fn lock_waits(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let highest = collected
        .lock_waits
        .as_ref()
        .and_then(|waits| waits.max())
        .unwrap_or(0);
    let unit = Unit::for_largest(highest);
    let caption = format!(
        "lock waits: each acquisition (range per column), p50 and p99 per window; worst {}",
        ticklab_sim::Approx(highest as u64)
    );
    let y_range = y_range_to(0.0, unit.of(highest));
    let y_desc = format!("wait ({})", unit.name);
    let mut chart = time_panel(area, collected, &caption, y_range, &y_desc, true)?;
    let mut labelled = false;
    if let Some(waits) = &collected.lock_waits {
        let label = Some("acquisitions".to_string());
        draw_extremes(
            &mut chart,
            collected,
            waits,
            series_color(0),
            &|ns| unit.of(ns),
            label,
        )?;
        labelled = true;
    }
    // Each window's percentile held from the end of the window before to its own end, the
    // highest where windows share a column.
    let windows = [
        (
            "p50 per window",
            &collected.lock_window_p50,
            series_color(2),
        ),
        (
            "p99 per window",
            &collected.lock_window_p99,
            series_color(1),
        ),
    ];
    for (name, values, color) in windows {
        let Some(values) = values else {
            continue;
        };
        let ends = values.0.iter().enumerate().filter_map(|(column, range)| {
            range.map(|(_, high)| (collected.column_seconds(column), unit.of(high)))
        });
        let mut from_s = 0.0;
        let points: Vec<(f64, f64)> = ends
            .flat_map(|(to_s, value)| {
                let step = [(from_s, value), (to_s, value)];
                from_s = to_s;
                step
            })
            .collect();
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
        labelled = true;
    }
    if labelled {
        legend(&mut chart)?;
    }
    Ok(())
}

/// One row per strategy: its maximum wake latency as a pale bar, p99 over it, p50 solid on top.
fn wake_percentiles(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let strategies: Vec<_> = collected
        .summary
        .iter()
        .flat_map(|summary| &summary.groups)
        .collect();
    let names = strategies
        .iter()
        .map(|section| section.name.clone())
        .collect::<Vec<_>>();
    let mut bars = Vec::new();
    for (row, section) in strategies.iter().enumerate() {
        for (metric, opacity) in [
            ("max_wake_latency", 0.25),
            ("p99_wake_latency", 0.55),
            ("p50_wake_latency", 1.0),
        ] {
            if let Some(ns) = section.get(metric) {
                bars.push(Bar {
                    row,
                    value: ns as f64 / 1e3,
                    color: row,
                    opacity,
                });
            }
        }
    }
    bar_panel(
        area,
        "wake latency per strategy, from an event's arrival: p50 (solid), p99, max (palest)",
        &names,
        &bars,
        "µs (log scale)",
        true,
    )
}

fn wakes_over_time(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    // Latencies span spinning's nanoseconds to a sleep's milliseconds: log10 of microseconds.
    let log_us = |ns: i64| (ns.max(1) as f64 / 1e3).log10();
    let values = collected
        .wakes
        .iter()
        .flat_map(|named| [named.values.min(), named.values.max()]);
    let logs: Vec<f64> = values.flatten().map(log_us).collect();
    let low = logs.iter().copied().fold(f64::MAX, f64::min);
    let high = logs.iter().copied().fold(f64::MIN, f64::max);
    let y_range = if logs.is_empty() {
        0.0..1.0
    } else {
        (low.floor() - 0.2)..(high.ceil() + 0.2)
    };
    let mut chart = time_panel_with(
        area,
        collected,
        "wake latency over time, per strategy (range per column)",
        y_range,
        "µs (log scale)",
        true,
        &|y| power_of_ten(*y),
    )?;
    for (index, named) in collected.wakes.iter().enumerate() {
        let label = Some(named.name.clone());
        draw_extremes(
            &mut chart,
            collected,
            &named.values,
            series_color(index),
            &log_us,
            label,
        )?;
    }
    if !collected.wakes.is_empty() {
        legend(&mut chart)?;
    }
    Ok(())
}
