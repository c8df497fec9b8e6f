//! `ticklab plot`: one run drawn as an SVG timeline.
//!
//! The scenario runs with a sink that keeps only what the plots draw ([`collect`]), then its
//! kind's [`Draw`] renders it through ticklab's own plotters backend (`svg_stream.rs`), which
//! writes the SVG to its destination as it is drawn. A kind without a picture does not implement
//! [`Draw`], and `plot` refuses it before running anything. Text is laid out without reading
//! system fonts, so the same run gives the same bytes on every machine.

pub mod collect;
pub(crate) mod cpu_models;
pub(crate) mod draw;
pub(crate) mod error;

pub(crate) mod row_names;
pub(crate) mod style;
pub(crate) mod svg_file;
pub(crate) mod svg_stream;
pub(crate) mod thread_cpu;
mod time_axis;
pub(crate) mod timeline;
mod title;
pub mod wall_seconds;

use std::io::Write;

pub use draw::Draw;
pub use error::PlotError;

use crate::model::ModelSetup;
use crate::registry::kinds::{KINDS, KindEntry};
use crate::run::{RunReport, run_scenario};
use crate::runner::options::RunOptions;
use crate::scenario::Scenario;
use collect::Collected;
use style::WIDTH_PX;

/// Drawn runs: the SVG document, and each run's own report.
#[derive(Debug)]
pub struct Plot {
    pub svg: String,
    pub reports: Vec<RunReport>,
}

/// Runs each scenario and draws them one below the other in one SVG, so runs can be compared.
/// A scenario whose kind has no picture is refused before anything runs. The SVG is held whole:
/// [`run_to_draw`] and [`write_svg`] stream it instead.
pub fn plot(scenarios: &[Scenario], options: &RunOptions) -> Result<Plot, PlotError> {
    let runs = run_to_draw(scenarios, options)?;
    let mut svg = Vec::new();
    write_svg(&mut svg, &pictured(scenarios, &runs))?;
    let svg = String::from_utf8(svg).expect("the SVG is written from UTF-8 text");
    let reports = runs.into_iter().map(|run| run.report).collect();
    Ok(Plot { svg, reports })
}

/// A run made for its picture: what it left to draw, and its report.
#[derive(Debug)]
pub struct RunToDraw {
    pub collected: Collected,
    pub report: RunReport,
}

/// Runs each scenario, keeping what its picture needs. A scenario whose kind has no picture is
/// refused before anything runs.
pub fn run_to_draw(
    scenarios: &[Scenario],
    options: &RunOptions,
) -> Result<Vec<RunToDraw>, PlotError> {
    for scenario in scenarios {
        drawing(KINDS, &scenario.model)?;
    }
    let mut runs = Vec::with_capacity(scenarios.len());
    for scenario in scenarios {
        let own = drawing(KINDS, &scenario.model)?.kind_plot();
        let mut collected = Collected::new(Some(own));
        let report = run_scenario(scenario, options, &mut collected).map_err(PlotError::Run)?;
        runs.push(RunToDraw { collected, report });
    }
    Ok(runs)
}

/// Each scenario beside what its run left to draw, as [`write_svg`] takes them.
pub fn pictured<'a>(
    scenarios: &'a [Scenario],
    runs: &'a [RunToDraw],
) -> Vec<(&'a Scenario, &'a Collected)> {
    scenarios
        .iter()
        .zip(runs)
        .map(|(scenario, run)| (scenario, &run.collected))
        .collect()
}

/// Draws each scenario's run, from what [`run_to_draw`] kept of it, one below the other in one
/// SVG, writing it to `out` as it is drawn. Returns the bytes written.
pub fn write_svg(out: &mut dyn Write, runs: &[(&Scenario, &Collected)]) -> Result<u64, PlotError> {
    let drawings = runs
        .iter()
        .map(|(scenario, _)| drawing(KINDS, &scenario.model))
        .collect::<Result<Vec<_>, _>>()?;
    let heights_px: Vec<u32> = drawings
        .iter()
        .zip(runs)
        .map(|(drawing, (_, collected))| height_px(*drawing, collected))
        .collect();
    let total_px = heights_px.iter().sum::<u32>().max(1);
    svg_stream::draw_svg(out, (WIDTH_PX, total_px), None, |root| {
        let mut rest = root.clone();
        for ((drawing, (_, collected)), height_px) in drawings.iter().zip(runs).zip(&heights_px) {
            let (area, below) = rest.split_vertically(*height_px);
            drawing.draw(&area, collected)?;
            rest = below;
        }
        Ok(())
    })
}

/// How `setup` is drawn, by its kind among `kinds`.
fn drawing<'a>(kinds: &[KindEntry], setup: &'a ModelSetup) -> Result<&'a dyn Draw, PlotError> {
    let kind = setup.kind().name();
    kinds
        .iter()
        .find(|other| other.kind.name() == kind)
        .and_then(|other| other.drawing(setup))
        .ok_or_else(|| PlotError::NoPicture {
            kind,
            drawn: kinds
                .iter()
                .filter(|other| other.has_picture())
                .map(|other| other.kind.name())
                .collect(),
        })
}

/// A model's height for its plot, which counts a title of one line, and a line more for each
/// more its description takes.
fn height_px(drawing: &dyn Draw, collected: &Collected) -> u32 {
    let more_title_px = style::title_height_px(collected) - style::TITLE_HEIGHT_PX;
    drawing.plot_height_px(collected) + more_title_px
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::Metric;
    use crate::model::{Head, Model, RunContext};
    use crate::runner::error::RunError;
    use crate::scenario::error::ScenarioError;
    use crate::scenario::key_table::KeyTable;
    use crate::trace::Summary;

    /// A kind whose config does not implement [`Draw`].
    struct Pictureless;

    #[derive(Debug, PartialEq)]
    struct PicturelessConfig;

    impl Model for Pictureless {
        const KIND: &'static str = "pictureless";
        const ABOUT: &'static str = "a kind without a picture";
        const KEYS: &'static KeyTable = &KeyTable {
            header: "[model]",
            about: "nothing",
            keys: &[],
            serde_fields: || &[],
        };
        type Spec = ();
        type Config = PicturelessConfig;

        fn validate(_: &(), _: &Head<'_>) -> Result<PicturelessConfig, ScenarioError> {
            Ok(PicturelessConfig)
        }

        fn metrics() -> &'static [Metric] {
            &[]
        }

        fn run(_: &PicturelessConfig, run: RunContext<'_>) -> Result<Summary, RunError> {
            let end_ns = run.setting.run_for_ns;
            Ok(Summary::new(Self::KIND, end_ns, &[], &[], Vec::new()))
        }
    }

    #[test]
    fn a_kind_without_a_picture_is_refused_naming_the_kinds_that_have_one() {
        let setup = ModelSetup::new::<Pictureless>(PicturelessConfig);
        let kinds = [KindEntry::undrawn::<Pictureless>(), KINDS[0]];
        let error = drawing(&kinds, &setup).err().expect("refused");
        assert!(matches!(
            error,
            PlotError::NoPicture {
                kind: "pictureless",
                ..
            }
        ));
        assert_eq!(
            error.to_string(),
            "the `pictureless` model has no picture to draw\n  hint: `ticklab run` writes its \
             trace and summary; `ticklab plot` draws these kinds: interval"
        );
    }

    #[test]
    fn a_kind_with_a_picture_draws_through_its_config() {
        let scenario = crate::loader::parse(
            "drawn",
            "about = \"x\"\nplatform = \"linux\"\nrun_for = \"1s\"\n[model]\nkind = \"interval\"\n\
             missed_tick = \"burst\"\nperiod = \"100ms\"\n",
        )
        .unwrap();
        let drawing = drawing(KINDS, &scenario.model).expect("interval draws");
        assert_eq!(
            drawing.plot_height_px(&Collected::default()),
            style::TITLE_HEIGHT_PX + 4 * style::PANEL_HEIGHT_PX
        );
    }
}
