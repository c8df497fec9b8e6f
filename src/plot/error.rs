//! Why a plot could not be drawn.

use std::fmt;
use std::io;

use plotters::prelude::DrawingAreaErrorKind;

use crate::runner::error::RunError;

#[derive(Debug)]
pub enum PlotError {
    Run(RunError),
    Draw(String),
    /// The SVG could not be written where it was going.
    Write(io::Error),
    /// The scenario's kind has no picture: its config does not implement [`super::Draw`].
    NoPicture {
        kind: &'static str,
        /// The kinds that have one.
        drawn: Vec<&'static str>,
    },
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Run(error) => error.fmt(f),
            PlotError::Draw(error) => write!(f, "cannot draw the plot: {error}"),
            PlotError::Write(error) => write!(f, "cannot write the plot: {error}"),
            PlotError::NoPicture { kind, drawn } => write!(
                f,
                "the `{kind}` model has no picture to draw\n  hint: `ticklab run` writes its \
                 trace and summary; `ticklab plot` draws {}",
                if drawn.is_empty() {
                    "no kind yet".to_string()
                } else {
                    format!("these kinds: {}", drawn.join(", "))
                }
            ),
        }
    }
}

impl std::error::Error for PlotError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(error: DrawingAreaErrorKind<E>) -> Self {
        PlotError::Draw(error.to_string())
    }
}
