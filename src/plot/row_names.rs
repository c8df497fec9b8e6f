//! Names drawn left of a panel of rows, one per row, as the hosts' and a service's pictures have.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::error::PlotError;
use super::style::{Area, FONT, TimeChart, Y_LABEL_AREA_PX};

/// Characters of a name drawn beside its row; longer names end in an ellipsis.
const NAME_CHARS_MAX: usize = 24;
/// Width of a character of a name at its 11 px font, generously: names are drawn right-aligned
/// against the panel, so the strip must hold the longest.
const NAME_CHAR_PX: u32 = 6;

/// `name` as its row shows it.
pub fn row_name(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS_MAX {
        return name.to_string();
    }
    let head: String = name.chars().take(NAME_CHARS_MAX - 1).collect();
    format!("{head}\u{2026}")
}

/// The width of the strip left of the panel that holds the longest of `names`.
pub fn label_area_px(names: &[String]) -> u32 {
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    (longest as u32 * NAME_CHAR_PX + 16).max(Y_LABEL_AREA_PX)
}

/// Each of `names` right-aligned just left of `chart`'s panel, in the middle of its row; the
/// first name's row is the top one of `names.len()` rows from 0 up.
pub fn draw(area: &Area<'_>, chart: &TimeChart<'_, '_>, names: &[String]) -> Result<(), PlotError> {
    let rows = names.len();
    let (base_x, base_y) = area.get_base_pixel();
    let style = (FONT, 11)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for (row, name) in names.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(0.0, (rows - row) as f64 - 0.5));
        area.draw(&Text::new(
            name.clone(),
            (x - base_x - 6, y - base_y),
            style.clone(),
        ))?;
    }
    Ok(())
}
