//! Lock and idle runs. Lock: every acquisition's wait over time with each window's percentiles,
//! and CPU per thread. Idle: CPU per strategy, each strategy's wake latency percentiles, and its
//! wake latencies over time.

use plotters::prelude::*;

use super::PlotError;
use super::collect::Collected;
use super::style::{
    self, Area, Bar, Unit, bar_panel, draw_extremes, legend, power_of_ten, series_color,
    time_panel, time_panel_with, y_range_to,
};

pub fn draw_lock(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let panels = style::layout(root, collected, 2)?;
    lock_waits(&panels[0], collected)?;
    let rows = cpu_rows(collected, "thread");
    bar_panel(
        &panels[1],
        "CPU per thread, over the run",
        &rows,
        "% of a core",
        false,
    )
}

pub fn draw_idle(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let panels = style::layout(root, collected, 3)?;
    let rows = cpu_rows(collected, "strategy");
    bar_panel(
        &panels[0],
        "CPU per idle strategy, while it ran",
        &rows,
        "% of a core",
        false,
    )?;
    wake_percentiles(&panels[1], collected)?;
    wakes_over_time(&panels[2], collected)
}

/// Each part of `kind` and its `cpu_percent`, from the summary.
fn cpu_rows(collected: &Collected, kind: &str) -> Vec<Bar> {
    let summary = collected.summary.iter();
    let sections = summary.flat_map(|summary| summary.groups.iter().chain(&summary.parts));
    sections
        .filter(|section| section.kind == kind)
        .enumerate()
        .filter_map(|(index, section)| {
            Some(Bar {
                name: section.name.clone(),
                value: section.get("cpu_percent")? as f64,
                color: index,
            })
        })
        .collect()
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
    let ms = |ns: u64| unit.of(ns as i64);
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
    }
    let windows = &collected.lock_windows;
    let steps = |pick: fn(&crate::trace::LockWindowEvent) -> u64| {
        windows
            .iter()
            .flat_map(move |window| {
                let value = ms(pick(window));
                [
                    (window.from_ns as f64 / 1e9, value),
                    (window.t_ns as f64 / 1e9, value),
                ]
            })
            .collect::<Vec<_>>()
    };
    for (name, pick, color) in [
        (
            "p50 per window",
            (|w: &crate::trace::LockWindowEvent| w.p50_wait_ns) as fn(&_) -> u64,
            series_color(2),
        ),
        ("p99 per window", |w| w.p99_wait_ns, series_color(1)),
    ] {
        if windows.is_empty() {
            break;
        }
        chart
            .draw_series(LineSeries::new(steps(pick), color.stroke_width(2)))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
    }
    legend(&mut chart)
}

fn wake_percentiles(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let mut rows = Vec::new();
    let strategies = collected.summary.iter().flat_map(|summary| &summary.groups);
    for (index, section) in strategies.enumerate() {
        for (label, metric) in [
            ("p50", "p50_wake_latency"),
            ("p99", "p99_wake_latency"),
            ("max", "max_wake_latency"),
        ] {
            if let Some(ns) = section.get(metric) {
                rows.push(Bar {
                    name: format!("{} {label}", section.name),
                    value: ns as f64 / 1e3,
                    color: index,
                });
            }
        }
    }
    bar_panel(
        area,
        "wake latency per strategy: from an event's arrival to the loop handling it",
        &rows,
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
    legend(&mut chart)
}
