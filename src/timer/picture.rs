//! The timer kind's picture: fires on the timeline every interval and timer run shares, and a
//! panel of the design's timer slots in use, from its memory samples.

use std::any::Any;

use super::events::{FireEvent, MemoryEvent};
use super::spec::TimerConfig;
use crate::plot::collect::{Collected, Extremes, KindPlot};
use crate::plot::draw::Draw;
use crate::plot::error::PlotError;
use crate::plot::style::{Area, PANEL_HEIGHT_PX, TITLE_HEIGHT_PX};
use crate::trace::ModelEvent;

/// The design's slots in use, per column; fires go on the shared timeline.
#[derive(Debug, Default)]
struct TimerPlot {
    live_slots: Option<Extremes>,
}

impl KindPlot for TimerPlot {
    fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected) {
        let event = event.as_any();
        if let Some(fire) = event.downcast_ref::<FireEvent>() {
            // A fire carries no clock reading: its wall second comes from the latest one.
            let wall_ns = common.wall_at(fire.t_ns);
            common.count_on_wall(fire.t_ns, wall_ns);
            common.late(fire.t_ns, fire.lateness_ns);
        } else if let Some(memory) = event.downcast_ref::<MemoryEvent>() {
            let column = common.column_of(memory.t_ns);
            self.live_slots
                .get_or_insert_with(Extremes::new)
                .add(column, i64::try_from(memory.live_slots).unwrap_or(i64::MAX));
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Draw for TimerConfig {
    fn kind_plot(&self) -> Box<dyn KindPlot> {
        Box::new(TimerPlot::default())
    }

    fn plot_height_px(&self, _: &Collected) -> u32 {
        TITLE_HEIGHT_PX + 4 * PANEL_HEIGHT_PX
    }

    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
        let live_slots = collected
            .own::<TimerPlot>()
            .and_then(|own| own.live_slots.as_ref());
        crate::plot::timeline::draw(area, collected, "fire", live_slots)
    }
}
