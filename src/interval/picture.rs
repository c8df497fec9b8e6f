//! The interval's picture: its ticks on the timeline every interval and timer run shares (ticks
//! per wall second, their lateness, each thread's CPU, the clocks).

use std::any::Any;

use super::events::TickEvent;
use super::spec::IntervalConfig;
use crate::plot::collect::{Collected, KindPlot};
use crate::plot::draw::Draw;
use crate::plot::error::PlotError;
use crate::plot::style::{Area, PANEL_HEIGHT_PX, TITLE_HEIGHT_PX};
use crate::trace::ModelEvent;

/// Ticks carry their own clock readings: each is a point on the clock lines, a count in its wall
/// second and a lateness.
#[derive(Debug)]
struct IntervalPlot;

impl KindPlot for IntervalPlot {
    fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected) {
        if let Some(tick) = event.as_any().downcast_ref::<TickEvent>() {
            common.clock_reading(tick.t_ns, tick.instant_ns, tick.wall, false);
            common.count_on_wall(tick.t_ns, tick.wall.0);
            common.late(tick.t_ns, tick.instant_ns - tick.deadline_ns);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Draw for IntervalConfig {
    fn kind_plot(&self) -> Box<dyn KindPlot> {
        Box::new(IntervalPlot)
    }

    fn plot_height_px(&self, _: &Collected) -> u32 {
        TITLE_HEIGHT_PX + 4 * PANEL_HEIGHT_PX
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        crate::plot::timeline::draw(area, collected, "tick", None)
    }
}
