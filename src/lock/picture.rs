//! The lock's picture: every acquisition's wait over time with each window's percentiles, and
//! CPU per thread.

use std::any::Any;

use plotters::prelude::*;

use super::events::{LockWaitEvent, LockWindowEvent};
use super::spec::LockConfig;
use crate::plot::collect::{Collected, Extremes, KindPlot};
use crate::plot::cpu_models::cpu_rows;
use crate::plot::draw::Draw;
use crate::plot::error::PlotError;
use crate::plot::style::{
    self, Area, PANEL_HEIGHT_PX, TITLE_HEIGHT_PX, Unit, bar_panel, draw_extremes, legend,
    series_color, time_panel, y_range_to,
};
use crate::trace::ModelEvent;

/// Each acquisition's wait per column, and each window's p50 and p99 by the column it ends in.
#[derive(Debug, Default)]
struct LockPlot {
    waits: Option<Extremes>,
    window_p50: Option<Extremes>,
    window_p99: Option<Extremes>,
}

impl KindPlot for LockPlot {
    fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected) {
        let event = event.as_any();
        if let Some(wait) = event.downcast_ref::<LockWaitEvent>() {
            let column = common.column_of(wait.t_ns);
            self.waits
                .get_or_insert_with(Extremes::new)
                .add(column, wait.waited_ns as i64);
        } else if let Some(window) = event.downcast_ref::<LockWindowEvent>() {
            // A window is drawn in the column it ends in.
            let column = common.column_of(window.t_ns.saturating_sub(1));
            self.window_p50
                .get_or_insert_with(Extremes::new)
                .add(column, window.p50_wait_ns as i64);
            self.window_p99
                .get_or_insert_with(Extremes::new)
                .add(column, window.p99_wait_ns as i64);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Draw for LockConfig {
    fn kind_plot(&self) -> Box<dyn KindPlot> {
        Box::new(LockPlot::default())
    }

    fn plot_height_px(&self, _: &Collected) -> u32 {
        TITLE_HEIGHT_PX + 2 * PANEL_HEIGHT_PX
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        draw_lock(area, collected)
    }
}

fn draw_lock(root: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
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

fn lock_waits(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let own = collected.own::<LockPlot>();
    let highest = own
        .and_then(|own| own.waits.as_ref())
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
    if let Some(waits) = own.and_then(|own| own.waits.as_ref()) {
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
            own.and_then(|own| own.window_p50.as_ref()),
            series_color(2),
        ),
        (
            "p99 per window",
            own.and_then(|own| own.window_p99.as_ref()),
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
