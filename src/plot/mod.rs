//! `ticklab plot`: one run drawn as an SVG timeline.
//!
//! The scenario runs with a sink that keeps only what the plots draw ([`collect`]), then its
//! kind's [`Draw`] renders it with plotters' SVG backend. A kind without a picture does not
//! implement [`Draw`], and `plot` refuses it before running anything. Text is laid out without
//! reading system fonts, so the same run gives the same bytes on every machine.

pub mod collect;
pub(crate) mod cpu_models;
mod draw;
pub(crate) mod error;
pub(crate) mod executor;
pub(crate) mod harness;
pub(crate) mod hosts;
mod hosts_legend;
pub(crate) mod notes;
pub(crate) mod style;
mod thread_cpu;
mod time_axis;
pub(crate) mod timeline;
mod title;
pub mod wall_seconds;

use plotters::prelude::*;

pub use draw::Draw;
pub use error::PlotError;

use crate::model::ModelSetup;
use crate::registry::{KINDS, ModelKind};
use crate::run::{RunOptions, RunReport, run_scenario};
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
/// A scenario whose kind has no picture is refused before anything runs.
pub fn plot(scenarios: &[Scenario], options: &RunOptions) -> Result<Plot, PlotError> {
    let drawings = scenarios
        .iter()
        .map(|scenario| drawing(KINDS, &scenario.model))
        .collect::<Result<Vec<_>, _>>()?;
    let mut runs = Vec::with_capacity(scenarios.len());
    for (scenario, drawing) in scenarios.iter().zip(drawings) {
        let mut collected = Collected::default();
        let report = run_scenario(scenario, options, &mut collected).map_err(PlotError::Run)?;
        runs.push((drawing, collected, report));
    }
    let heights_px: Vec<u32> = runs
        .iter()
        .map(|(drawing, collected, _)| height_px(*drawing, collected))
        .collect();
    let mut svg = String::new();
    {
        let total_px = heights_px.iter().sum::<u32>().max(1);
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, total_px)).into_drawing_area();
        let mut rest = root.clone();
        for ((drawing, collected, _), height_px) in runs.iter().zip(&heights_px) {
            let (area, below) = rest.split_vertically(*height_px);
            drawing.draw(&area, collected)?;
            rest = below;
        }
        root.present()?;
    }
    let reports = runs.into_iter().map(|(_, _, report)| report).collect();
    Ok(Plot { svg, reports })
}

/// How `setup` is drawn, by its kind among `kinds`.
fn drawing<'a>(kinds: &[&dyn ModelKind], setup: &'a ModelSetup) -> Result<&'a dyn Draw, PlotError> {
    let kind = setup.kind();
    kinds
        .iter()
        .find(|other| other.name() == kind)
        .and_then(|other| other.drawing(setup))
        .ok_or_else(|| PlotError::NoPicture {
            kind,
            drawn: kinds
                .iter()
                .filter(|other| other.has_picture())
                .map(|other| other.name())
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
    use crate::reference::table::KeyTable;
    use crate::registry::Kind;
    use crate::run::RunError;
    use crate::scenario::ScenarioError;
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
        let kinds: [&dyn ModelKind; 2] = [&Kind::<Pictureless>::NEW, KINDS[0]];
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
        let scenario = crate::scenario::parse(
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
