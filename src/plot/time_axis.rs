//! A time panel's x axis: physical time, labelled in a unit that suits the run's length.

use std::ops::Range;

use plotters::coord::ranged1d::{
    BoldPoints, KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;

use super::style::plain;

/// The unit a time axis is labelled in: seconds for runs up to 20 minutes, then minutes up to
/// 20 hours, hours up to 20 days, and days beyond, so that no label reads past about 1,200 (a
/// two-hour run reads 0 to 120 min, not 0 to 7,000 s). Positions stay in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeUnit {
    pub name: &'static str,
    pub seconds: f64,
}

impl TimeUnit {
    pub fn for_run_ns(run_ns: u64) -> TimeUnit {
        const MINUTE_NS: u64 = 60_000_000_000;
        let (name, seconds) = if run_ns <= 20 * MINUTE_NS {
            ("s", 1.0)
        } else if run_ns <= 20 * 60 * MINUTE_NS {
            ("min", 60.0)
        } else if run_ns <= 20 * 24 * 60 * MINUTE_NS {
            ("h", 3_600.0)
        } else {
            ("days", 86_400.0)
        };
        TimeUnit { name, seconds }
    }

    /// An axis over `0..run_s` seconds whose labelled points are round numbers of this unit, as
    /// plotters would pick them for an axis drawn in it.
    pub(super) fn axis(self, run_s: f64) -> TimeAxis {
        let in_unit = RangedCoordf64::from(0.0..run_s / self.seconds);
        // The mesh's default: 11 labels.
        let labelled_s = in_unit
            .key_points(BoldPoints(11))
            .into_iter()
            .map(|point| point * self.seconds)
            .collect();
        TimeAxis { run_s, labelled_s }
    }
}

/// A time panel's x axis: positions in seconds, labels where [`TimeUnit`] puts them.
#[derive(Clone, Debug)]
pub struct TimeAxis {
    run_s: f64,
    labelled_s: Vec<f64>,
}

impl Ranged for TimeAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        RangedCoordf64::from(self.range()).map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Light mesh lines are not drawn (they are transparent): only the labelled points.
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        self.labelled_s.clone()
    }

    fn range(&self) -> Range<f64> {
        0.0..self.run_s
    }
}

impl ValueFormatter<f64> for TimeAxis {
    fn format(value: &f64) -> String {
        plain(value)
    }
}
