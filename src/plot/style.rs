//! What every plot shares: the canvas, the fonts and colours, time-axis panels, and the fault
//! bands drawn across them.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::collect::{Collected, Extremes};
use super::error::PlotError;
use super::svg_stream::SvgStream;
pub use super::time_axis::{TimeAxis, TimeUnit};
pub use super::title::{layout, title_height_px};

pub type Area<'a> = DrawingArea<SvgStream<'a>, Shift>;
pub type TimeChart<'a, 'b> = ChartContext<'a, SvgStream<'b>, Cartesian2d<TimeAxis, RangedCoordf64>>;

pub const WIDTH_PX: u32 = 1000;
pub const PANEL_HEIGHT_PX: u32 = 230;
pub const TITLE_HEIGHT_PX: u32 = 50;
pub const FONT: &str = "sans-serif";

/// Series colours, in order: distinguishable, and dark enough on white.
pub const SERIES: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

pub fn series_color(index: usize) -> RGBColor {
    SERIES[index % SERIES.len()]
}

/// The shade of each kind of fault.
pub(crate) fn fault_color(kind: &str) -> RGBColor {
    match kind {
        "system-suspend" => RGBColor(70, 110, 200),
        "process-suspend" => RGBColor(230, 140, 30),
        "wall-slew" => RGBColor(60, 170, 90),
        "partition" => RGBColor(110, 110, 110),
        "latency-spike" => RGBColor(150, 90, 190),
        _ => RGBColor(150, 150, 150),
    }
}

pub(crate) const WALL_STEP: RGBColor = RGBColor(200, 30, 30);

/// Physical time of the whole run, in seconds, as the x axis.
pub fn run_seconds(collected: &Collected) -> f64 {
    collected.run_for_ns() as f64 / 1e9
}

/// A panel whose x axis is physical time over the whole run, with the fault bands behind it.
/// `label_faults` names each band (done in the first panel only, to keep the others clear).
pub fn time_panel<'a, 'b>(
    area: &'a Area<'b>,
    collected: &Collected,
    caption: &str,
    y_range: Range<f64>,
    y_desc: &str,
    label_faults: bool,
) -> Result<TimeChart<'a, 'b>, PlotError> {
    time_panel_with(
        area,
        collected,
        caption,
        y_range,
        y_desc,
        label_faults,
        &plain,
    )
}

pub(crate) fn plain(value: &f64) -> String {
    // Trims the float noise of tick positions (0.30000000000000004).
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// [`time_panel`], with the y axis's labels written by `y_format`.
pub fn time_panel_with<'a, 'b>(
    area: &'a Area<'b>,
    collected: &Collected,
    caption: &str,
    y_range: Range<f64>,
    y_desc: &str,
    label_faults: bool,
    y_format: &dyn Fn(&f64) -> String,
) -> Result<TimeChart<'a, 'b>, PlotError> {
    let y_axis = YAxis {
        range: y_range,
        desc: y_desc,
        format: y_format,
        label_area_px: Y_LABEL_AREA_PX,
        lines: Y_LINES,
    };
    time_panel_on(area, collected, caption, y_axis, label_faults)
}

/// Width of the strip left of a time panel for its y axis's labels.
pub const Y_LABEL_AREA_PX: u32 = 70;
/// Most lines (and labels) across a time panel: plotters' own default.
const Y_LINES: usize = 11;

/// A time panel's y axis: its range, what it measures, how its labels read, and the width of
/// the strip they are written in.
pub struct YAxis<'f> {
    pub range: Range<f64>,
    pub desc: &'f str,
    pub format: &'f dyn Fn(&f64) -> String,
    pub label_area_px: u32,
    /// Most lines across the panel, at round values: a panel of rows wants one per row.
    pub lines: usize,
}

/// [`time_panel`], with the y axis given whole.
pub fn time_panel_on<'a, 'b>(
    area: &'a Area<'b>,
    collected: &Collected,
    caption: &str,
    y_axis: YAxis<'_>,
    label_faults: bool,
) -> Result<TimeChart<'a, 'b>, PlotError> {
    let run_s = run_seconds(collected);
    let unit = TimeUnit::for_run_ns(collected.run_for_ns());
    let x_desc = format!("physical time ({})", unit.name);
    let x_format = |seconds: &f64| plain(&(seconds / unit.seconds));
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 15))
        .margin(8)
        .margin_right(20)
        .x_label_area_size(32)
        .y_label_area_size(y_axis.label_area_px)
        .build_cartesian_2d(unit.axis(run_s), y_axis.range.clone())?;
    chart
        .configure_mesh()
        .light_line_style(WHITE.mix(0.0))
        .x_desc(x_desc)
        .y_desc(y_axis.desc)
        .y_labels(y_axis.lines)
        .x_label_formatter(&x_format)
        .y_label_formatter(y_axis.format)
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .draw()?;
    draw_faults(&mut chart, collected, &y_axis.range, label_faults)?;
    Ok(chart)
}

/// Shades each suspend or slew, draws each wall step as a line, and optionally labels them.
fn draw_faults(
    chart: &mut TimeChart<'_, '_>,
    collected: &Collected,
    y_range: &Range<f64>,
    label: bool,
) -> Result<(), PlotError> {
    let seconds = |ns: u64| ns as f64 / 1e9;
    chart.draw_series(collected.bands.iter().map(|band| {
        Rectangle::new(
            [
                (seconds(band.from_ns), y_range.start),
                (seconds(band.to_ns), y_range.end),
            ],
            fault_color(band.kind).mix(0.18).filled(),
        )
    }))?;
    chart.draw_series(collected.wall_steps.iter().map(|(t_ns, _)| {
        PathElement::new(
            vec![
                (seconds(*t_ns), y_range.start),
                (seconds(*t_ns), y_range.end),
            ],
            WALL_STEP.stroke_width(2),
        )
    }))?;
    if label {
        let style = (FONT, 12).into_font();
        // Each label one line below the one before, so faults that start together stay legible.
        let line = (y_range.end - y_range.start) / 12.0;
        chart.draw_series(collected.bands.iter().enumerate().map(|(index, band)| {
            Text::new(
                band.kind.to_string(),
                (
                    seconds(band.from_ns),
                    y_range.end - line * (index % 6) as f64,
                ),
                style.clone().color(&fault_color(band.kind)),
            )
        }))?;
        chart.draw_series(collected.wall_steps.iter().map(|(t_ns, what)| {
            Text::new(
                what.clone(),
                (seconds(*t_ns), y_range.end),
                style.clone().color(&WALL_STEP),
            )
        }))?;
    }
    Ok(())
}

/// A y range from 0 (or below, for negative values) to a little above the largest value, never
/// empty.
pub fn y_range_to(low: f64, high: f64) -> Range<f64> {
    let low = low.min(0.0);
    let high = if high > low { high } else { low + 1.0 };
    low..high + (high - low) * 0.08
}

/// Horizontal bars in named rows, on a linear axis from 0 or, with `log`, on powers of ten
/// (values must then be positive; others are left out). Bars sharing a row are drawn over one
/// another in the order given, so the longest should come first.
pub fn bar_panel(
    area: &Area<'_>,
    caption: &str,
    names: &[String],
    bars: &[Bar],
    x_desc: &str,
    log: bool,
) -> Result<(), PlotError> {
    let value = |v: f64| if log { v.log10() } else { v };
    let shown: Vec<&Bar> = bars.iter().filter(|bar| !log || bar.value > 0.0).collect();
    let values = shown.iter().map(|bar| value(bar.value));
    let high = values.clone().fold(f64::MIN, f64::max);
    let low = values.fold(f64::MAX, f64::min);
    let x_range = match (shown.is_empty(), log) {
        (true, true) => -0.5..1.5,
        (false, true) => (low.floor() - 0.5)..(high.ceil() + 0.5),
        (true, false) => y_range_to(0.0, 1.0),
        (false, false) => y_range_to(0.0, high),
    };
    let count = names.len().max(1);
    let y_format = |y: &f64| {
        let index = count as f64 - 0.5 - y;
        let nearest = index.round();
        if (index - nearest).abs() < 1e-6 && nearest >= 0.0 {
            names.get(nearest as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let x_format = |x: &f64| if log { power_of_ten(*x) } else { plain(x) };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 15))
        .margin(8)
        .margin_right(20)
        .x_label_area_size(32)
        .y_label_area_size(150)
        .build_cartesian_2d(x_range.clone(), 0.0..count as f64)?;
    chart
        .configure_mesh()
        .light_line_style(WHITE.mix(0.0))
        .disable_y_mesh()
        .y_labels(count * 2 + 1)
        .x_desc(x_desc)
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .draw()?;
    chart.draw_series(shown.iter().map(|bar| {
        let top = (count - bar.row) as f64 - 0.2;
        let bottom = (count - bar.row - 1) as f64 + 0.2;
        Rectangle::new(
            [(x_range.start, bottom), (value(bar.value), top)],
            series_color(bar.color).mix(bar.opacity).filled(),
        )
    }))?;
    Ok(())
}

/// One bar of a [`bar_panel`].
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Index into the panel's row names.
    pub row: usize,
    pub value: f64,
    /// Index into the series colours, so bars of one series share a colour.
    pub color: usize,
    /// 1 for a solid bar; less for one other bars are drawn over.
    pub opacity: f64,
}

/// A log10 axis position as the value it stands for (`1`, `10`, `100`, `0.1`), or nothing
/// between powers of ten.
pub fn power_of_ten(exponent: f64) -> String {
    if (exponent - exponent.round()).abs() > 1e-6 {
        return String::new();
    }
    plain(&10f64.powf(exponent.round()))
}

/// Draws a series of per-column extremes: each stretch of consecutive columns as a shaded band
/// from the smallest to the largest value with a line along the largest, a lone column as a
/// bar and a dot. Few elements, whatever the number of events, keep the SVG small.
pub fn draw_extremes<'a, 'b: 'a>(
    chart: &mut TimeChart<'a, 'b>,
    collected: &Collected,
    values: &Extremes,
    color: RGBColor,
    to_y: &dyn Fn(i64) -> f64,
    label: Option<String>,
) -> Result<(), PlotError> {
    let mut stretches: Vec<Vec<(f64, f64, f64)>> = Vec::new();
    let mut previous = None;
    for (column, range) in values.0.iter().enumerate() {
        let Some((low, high)) = *range else {
            continue;
        };
        let point = (collected.column_seconds(column), to_y(low), to_y(high));
        match stretches.last_mut() {
            Some(stretch) if previous == Some(column.wrapping_sub(1)) => stretch.push(point),
            _ => stretches.push(vec![point]),
        }
        previous = Some(column);
    }
    for stretch in &stretches {
        if let [(x, low, high)] = stretch[..] {
            chart.draw_series([PathElement::new(
                vec![(x, low), (x, high)],
                color.stroke_width(2),
            )])?;
            chart.draw_series([Circle::new((x, high), 2, color.filled())])?;
            continue;
        }
        let band: Vec<(f64, f64)> = stretch
            .iter()
            .map(|&(x, _, high)| (x, high))
            .chain(stretch.iter().rev().map(|&(x, low, _)| (x, low)))
            .collect();
        chart.draw_series([Polygon::new(band, color.mix(0.25).filled())])?;
        let top: Vec<(f64, f64)> = stretch.iter().map(|&(x, _, high)| (x, high)).collect();
        chart.draw_series([PathElement::new(top, color.stroke_width(2))])?;
    }
    if let Some(label) = label {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 16, y + 4)], color.filled()));
    }
    Ok(())
}

/// A unit to show durations in, picked so that the largest reads between 10 and 10,000.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unit {
    pub name: &'static str,
    pub ns: f64,
}

impl Unit {
    pub fn for_largest(largest_ns: i64) -> Unit {
        let largest_ns = largest_ns.unsigned_abs();
        let (name, ns) = match largest_ns {
            10_000_000_000.. => ("s", 1e9),
            10_000_000.. => ("ms", 1e6),
            10_000.. => ("µs", 1e3),
            _ => ("ns", 1.0),
        };
        Unit { name, ns }
    }

    pub fn of(self, ns: i64) -> f64 {
        ns as f64 / self.ns
    }
}

/// Draws the legend of the series labelled so far.
pub fn legend<'a, 'b: 'a>(chart: &mut TimeChart<'a, 'b>) -> Result<(), PlotError> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 12))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    Ok(())
}
