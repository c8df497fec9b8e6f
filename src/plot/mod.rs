//! `ticklab plot`: one run drawn as an SVG timeline.
//!
//! The scenario runs with a sink that keeps only what the plots draw ([`collect`]), then one
//! drawing per kind of model renders it with plotters' SVG backend. Text is laid out without
//! reading system fonts, so the same run gives the same bytes on every machine.

pub mod collect;
pub(crate) mod cpu_models;
pub(crate) mod executor;
pub(crate) mod harness;
pub(crate) mod hosts;
mod hosts_legend;
pub(crate) mod notes;
pub(crate) mod style;
mod time_axis;
pub(crate) mod timeline;
mod title;

use std::fmt;

use plotters::prelude::*;

use crate::run::{RunError, RunOptions, RunReport, run_scenario};
use crate::scenario::Scenario;
use collect::Collected;
use style::WIDTH_PX;

/// Drawn runs: the SVG document, and each run's own report.
#[derive(Debug)]
pub struct Plot {
    pub svg: String,
    pub reports: Vec<RunReport>,
}

#[derive(Debug)]
pub enum PlotError {
    Run(RunError),
    Draw(String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Run(error) => error.fmt(f),
            PlotError::Draw(error) => write!(f, "cannot draw the plot: {error}"),
        }
    }
}

impl std::error::Error for PlotError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(error: DrawingAreaErrorKind<E>) -> Self {
        PlotError::Draw(error.to_string())
    }
}

/// Runs each scenario and draws them one below the other in one SVG, so runs can be compared.
pub fn plot(scenarios: &[Scenario], options: &RunOptions) -> Result<Plot, PlotError> {
    let mut runs = Vec::with_capacity(scenarios.len());
    for scenario in scenarios {
        let mut collected = Collected::default();
        let report = run_scenario(scenario, options, &mut collected).map_err(PlotError::Run)?;
        runs.push((scenario, collected, report));
    }
    let heights_px: Vec<u32> = runs
        .iter()
        .map(|(scenario, collected, _)| height_px(scenario, collected))
        .collect();
    let mut svg = String::new();
    {
        let total_px = heights_px.iter().sum::<u32>().max(1);
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, total_px)).into_drawing_area();
        let mut rest = root.clone();
        for ((scenario, collected, _), height_px) in runs.iter().zip(&heights_px) {
            let (area, below) = rest.split_vertically(*height_px);
            draw(&area, scenario, collected)?;
            rest = below;
        }
        root.present()?;
    }
    let reports = runs.into_iter().map(|(_, _, report)| report).collect();
    Ok(Plot { svg, reports })
}

/// A model's height for its plot, which counts a title of one line, and a line more for each
/// more its description takes.
fn height_px(scenario: &Scenario, collected: &Collected) -> u32 {
    let more_title_px = style::title_height_px(collected) - style::TITLE_HEIGHT_PX;
    scenario.model.plot_height_px(collected) + more_title_px
}

fn draw(
    area: &style::Area<'_>,
    scenario: &Scenario,
    collected: &Collected,
) -> Result<(), PlotError> {
    scenario.model.draw(area, collected)
}
