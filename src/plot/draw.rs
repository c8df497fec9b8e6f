//! Drawing a finished run, for the kinds that have a picture.

use super::collect::{Collected, KindPlot};
use super::error::PlotError;
use super::style::Area;

/// How a kind's config draws a finished run, from what [`Collected`] kept of it. A kind without
/// a picture does not implement it, and `ticklab plot` says so; a kind that does registers with
/// [`crate::registry::KindEntry::drawn`].
pub trait Draw {
    /// What the run keeps of the kind's own events for this drawing, in the kind's folder.
    fn kind_plot(&self) -> Box<dyn KindPlot>;

    /// How tall its drawing is, given what the run left to draw.
    fn plot_height_px(&self, collected: &Collected) -> u32;

    /// Draws a finished run into `area`.
    fn draw(&self, area: &Area<'_>, collected: &Collected) -> Result<(), PlotError>;
}
