//! Every host's clocks against physical time: how far its `Instant` and its wall clock are from
//! what a perfect clock would read, one line per host. Drift is a slope, a suspend that stops
//! `Instant` a drop, a wall step a jump, and a slew a bend.

use std::ops::Range;

use plotters::prelude::*;

use super::clockwork::Reading;
use super::record::{HostRecord, Record};
use crate::plot::collect::Collected;
use crate::plot::error::PlotError;
use crate::plot::style::{
    Area, PANEL_HEIGHT_PX, legend, series_color, time_panel_with, y_range_to,
};

/// Hosts drawn in each panel: as many as there are distinct colours.
const MAX_LINES: usize = 8;

pub(crate) fn height_px() -> u32 {
    2 * PANEL_HEIGHT_PX
}

/// Which clock a panel draws.
#[derive(Clone, Copy)]
enum Which {
    Instant,
    Wall,
}

impl Which {
    /// How far the clock is from a perfect one at `t_ns`, in ms. `Instant` counts from its own
    /// reading at the start; the wall clock from the service's start on the Unix epoch.
    fn offset_ms(self, record: &Record, host: &HostRecord, t_ns: u64, reading: Reading) -> f64 {
        let offset_ns = match self {
            Which::Instant => {
                let start = host.clocks.first().map_or(0, |(_, first)| first.instant_ns);
                reading.instant_ns as i128 - start as i128 - t_ns as i128
            }
            Which::Wall => reading.wall_ns as i128 - record.wall_start_ns as i128 - t_ns as i128,
        };
        offset_ns as f64 / 1e6
    }

    fn caption(self) -> &'static str {
        match self {
            Which::Instant => "each host's Instant, less physical time",
            Which::Wall => "each host's wall clock, less true time",
        }
    }
}

pub(crate) fn draw(
    area: &Area<'_>,
    collected: &Collected,
    record: &Record,
) -> Result<(), PlotError> {
    let (instant, wall) = area.split_vertically(PANEL_HEIGHT_PX);
    panel(&instant, collected, record, Which::Instant)?;
    panel(&wall, collected, record, Which::Wall)
}

/// Each host's line: (physical seconds, ms off).
fn lines(record: &Record, which: Which) -> Vec<Vec<(f64, f64)>> {
    record
        .hosts
        .iter()
        .map(|host| {
            host.clocks
                .iter()
                .map(|&(t_ns, reading)| {
                    (
                        t_ns as f64 / 1e9,
                        which.offset_ms(record, host, t_ns, reading),
                    )
                })
                .collect()
        })
        .collect()
}

/// Whether a host's clock ever read other than a perfect one.
fn strays(line: &[(f64, f64)]) -> bool {
    line.iter().any(|&(_, ms)| ms != 0.0)
}

/// The hosts drawn: those whose clock strays first, in host order, up to [`MAX_LINES`].
fn shown(lines: &[Vec<(f64, f64)>]) -> Vec<usize> {
    let mut shown: Vec<usize> = (0..lines.len()).filter(|&h| strays(&lines[h])).collect();
    shown.extend((0..lines.len()).filter(|&h| !strays(&lines[h])));
    shown.truncate(MAX_LINES);
    shown.sort_unstable();
    shown
}

fn panel(
    area: &Area<'_>,
    collected: &Collected,
    record: &Record,
    which: Which,
) -> Result<(), PlotError> {
    let lines = lines(record, which);
    let shown = shown(&lines);
    let values = shown.iter().flat_map(|&h| lines[h].iter().map(|p| p.1));
    let (low, high) = values.fold((0.0f64, 0.0f64), |(lo, hi), ms| (lo.min(ms), hi.max(ms)));
    let range: Range<f64> = y_range_to(low, high);
    let mut caption = which.caption().to_string();
    if !lines.iter().any(|line| strays(line)) {
        caption.push_str(": none strayed");
    }
    let hidden = record.hosts.len() - shown.len();
    if hidden > 0 {
        caption.push_str(&format!(" ({hidden} more hosts not drawn)"));
    }
    let format = crate::plot::style::plain;
    let mut chart = time_panel_with(area, collected, &caption, range, "ms", false, &format)?;
    for (index, &host) in shown.iter().enumerate() {
        let color = series_color(index);
        chart
            .draw_series(LineSeries::new(lines[host].clone(), color.stroke_width(2)))?
            .label(record.hosts[host].name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
    }
    legend(&mut chart)
}
