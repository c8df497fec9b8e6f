//! The legend of a hosts plot, in a strip of its own above the panel, so that it covers no host's
//! row and needs no empty rows to sit on: host faults and network faults by kind, the lease, two
//! leaders, and each kind of mark, with how many of each the run had on every host, shown or not.

use plotters::prelude::*;

use super::picture::{HOLD_COLOR, MARKED, Shape, TWO_LEADERS_COLOR, fault_kinds};
use crate::plot::collect::Collected;
use crate::plot::error::PlotError;
use crate::plot::style::{Area, FONT, WALL_STEP, WIDTH_PX, fault_color};

/// How an entry's sample is drawn: a shade as the panel shades it, or a mark.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Swatch {
    Shade(RGBColor, f64),
    Mark(RGBColor, Shape),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Entry {
    swatch: Swatch,
    label: String,
}

const ENTRY_HEIGHT_PX: u32 = 18;
/// Wide enough for the longest entry, "rightful suspicion (100000)", at the 12 px font.
const COLUMN_WIDTH_PX: u32 = 240;
const LEFT_PX: u32 = 12;
const PADDING_PX: u32 = 8;

fn columns() -> usize {
    ((WIDTH_PX - 2 * LEFT_PX) / COLUMN_WIDTH_PX) as usize
}

/// What the run had, in the order the panel draws it.
pub(super) fn entries(collected: &Collected) -> Vec<Entry> {
    let hosts = super::picture::kept(collected);
    let mut entries = Vec::new();
    for (kind, count) in fault_kinds(hosts) {
        let swatch = if kind == "wall-step" {
            Swatch::Mark(WALL_STEP, Shape::Line)
        } else {
            Swatch::Shade(fault_color(kind), 0.35)
        };
        entries.push(Entry {
            swatch,
            label: format!("{kind} ({count})"),
        });
    }
    let mut network: Vec<(&'static str, usize)> = Vec::new();
    for band in &collected.bands {
        match network.iter_mut().find(|(kind, _)| *kind == band.kind) {
            Some(entry) => entry.1 += 1,
            None => network.push((band.kind, 1)),
        }
    }
    for (kind, count) in network {
        entries.push(Entry {
            swatch: Swatch::Shade(fault_color(kind), 0.18),
            label: format!("{kind} ({count})"),
        });
    }
    if hosts
        .rows
        .iter()
        .any(|row| !row.holds.is_empty() || row.holding_since_ns.is_some())
    {
        entries.push(Entry {
            swatch: Swatch::Shade(HOLD_COLOR, 0.8),
            label: "lease held, by its own clock".to_string(),
        });
    }
    let stretches = hosts.two_leaders.len() + usize::from(hosts.two_since_ns.is_some());
    if stretches > 0 {
        entries.push(Entry {
            swatch: Swatch::Shade(TWO_LEADERS_COLOR, 0.35),
            label: format!("two leaders ({stretches})"),
        });
    }
    for (index, &(_, color, label, shape)) in MARKED.iter().enumerate() {
        let total: usize = hosts.rows.iter().map(|row| row.counts[index]).sum();
        if total > 0 {
            entries.push(Entry {
                swatch: Swatch::Mark(color, shape),
                label: format!("{label} ({total})"),
            });
        }
    }
    entries
}

/// The strip's height: a line per `columns` entries, nothing without any.
pub(super) fn height_px(entries: &[Entry]) -> u32 {
    if entries.is_empty() {
        return 0;
    }
    let lines = entries.len().div_ceil(columns()) as u32;
    lines * ENTRY_HEIGHT_PX + 2 * PADDING_PX
}

pub(super) fn draw(area: &Area<'_>, entries: &[Entry]) -> Result<(), PlotError> {
    let text = (FONT, 12).into_font().color(&BLACK);
    for (index, entry) in entries.iter().enumerate() {
        let column = (index % columns()) as u32;
        let line = (index / columns()) as u32;
        let x = (LEFT_PX + column * COLUMN_WIDTH_PX) as i32;
        let middle = (PADDING_PX + line * ENTRY_HEIGHT_PX + ENTRY_HEIGHT_PX / 2) as i32;
        match entry.swatch {
            Swatch::Shade(color, opacity) => {
                area.draw(&Rectangle::new(
                    [(x, middle - 5), (x + 14, middle + 5)],
                    color.mix(opacity).filled(),
                ))?;
                area.draw(&Rectangle::new(
                    [(x, middle - 5), (x + 14, middle + 5)],
                    color.mix(0.6),
                ))?;
            }
            Swatch::Mark(color, shape) => {
                area.draw(&PathElement::new(
                    vec![(x + 7, middle - 6), (x + 7, middle + 6)],
                    color.stroke_width(2),
                ))?;
                if shape == Shape::Dotted {
                    area.draw(&Circle::new((x + 7, middle - 6), 3, color.filled()))?;
                }
            }
        }
        area.draw_text(&entry.label, &text, (x + 20, middle - 6))?;
    }
    Ok(())
}
