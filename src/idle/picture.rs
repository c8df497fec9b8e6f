//! The idle loops' picture: CPU per strategy, each strategy's wake latency percentiles, and its
//! wake latencies over time.

use std::any::Any;

use super::events::IdleWakeEvent;
use super::spec::IdleConfig;
use crate::plot::collect::{Collected, KindPlot, Series};
use crate::plot::cpu_models::cpu_rows;
use crate::plot::draw::Draw;
use crate::plot::error::PlotError;
use crate::plot::style::{
    self, Area, Bar, PANEL_HEIGHT_PX, TITLE_HEIGHT_PX, bar_panel, draw_extremes, legend,
    power_of_ten, series_color, time_panel_with,
};
use crate::trace::ModelEvent;

/// Each strategy's wake latencies per column, in the order the trace first names them.
#[derive(Debug, Default)]
struct IdlePlot {
    wakes: Vec<Series>,
}

impl KindPlot for IdlePlot {
    fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected) {
        if let Some(wake) = event.as_any().downcast_ref::<IdleWakeEvent>() {
            let index = Series::index_in(&mut self.wakes, wake.strategy);
            let column = common.column_of(wake.t_ns);
            self.wakes[index].values.add(column, wake.latency_ns as i64);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Draw for IdleConfig {
    fn kind_plot(&self) -> Box<dyn KindPlot> {
        Box::new(IdlePlot::default())
    }

    fn plot_height_px(&self, _: &Collected) -> u32 {
        TITLE_HEIGHT_PX + 3 * PANEL_HEIGHT_PX
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        draw_idle(area, collected)
    }
}

fn draw_idle(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
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
    let wakes: &[Series] = collected.own::<IdlePlot>().map_or(&[], |own| &own.wakes);
    let values = wakes
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
    for (index, named) in wakes.iter().enumerate() {
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
    if !wakes.is_empty() {
        legend(&mut chart)?;
    }
    Ok(())
}
