use std::collections::BTreeMap;

use comfy_table::{Table, presets::ASCII_MARKDOWN};
use rayon::prelude::*;
use ticklab_models::interval::MissedTick;
use ticklab_sim::{Compact, FaultKind, Platform};

use super::{Failure, Limits};
use crate::interval::IntervalConfig;
use crate::run::run_scenario;
use crate::runner::options::RunOptions;
use crate::scenario::Scenario;
use crate::trace::NoTrace;

/// Where the matrix's scenarios live, under `scenarios/`.
pub const MATRIX_FOLDER: &str = "interval/matrix";

#[derive(Debug, clap::Args)]
pub(super) struct TableArgs {
    #[command(flatten)]
    limits: Limits,
}

/// A matrix cell's coordinates.
type Cell = (Platform, FaultKind, MissedTick);

pub(super) fn table(args: &TableArgs) -> Result<(), Failure> {
    let matrix = Matrix::run(&args.limits.options(None))?;
    super::print(&matrix.caption)?;
    super::print(matrix.table())?;
    Ok(())
}

/// The matrix's caption, header and rows, as text.
#[derive(Debug)]
pub(super) struct Matrix {
    pub caption: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Matrix {
    /// Runs the built-in matrix scenarios under `options`' bounds.
    pub fn run(options: &RunOptions) -> Result<Matrix, Failure> {
        let scenarios = crate::builtin::scenarios_under(MATRIX_FOLDER)
            .map_err(|error| Failure::Invalid(error.to_string()))?;
        let cells = run_cells(&scenarios, options)?;
        let (header, rows) = matrix(&cells);
        Ok(Matrix {
            caption: caption(&scenarios),
            header,
            rows,
        })
    }

    pub fn table(&self) -> Table {
        let mut table = Table::new();
        table
            .load_style(ASCII_MARKDOWN)
            .force_no_tty()
            .set_header(self.header.clone());
        for row in &self.rows {
            table.add_row(row.clone());
        }
        table
    }
}

/// Each matrix scenario's ticks after resume, by cell.
fn run_cells(scenarios: &[Scenario], options: &RunOptions) -> Result<BTreeMap<Cell, u64>, Failure> {
    let cells: Vec<(Cell, u64)> = scenarios
        .par_iter()
        .map(|scenario| {
            let cell = coordinates(scenario)?;
            let report = run_scenario(scenario, options, &mut NoTrace)
                .map_err(|error| Failure::Invalid(format!("{}: {error}", scenario.source)))?;
            Ok((cell, report.summary.get("ticks_after_resume").unwrap_or(0)))
        })
        .collect::<Result<_, Failure>>()?;
    let mut matrix_cells: BTreeMap<Cell, u64> = BTreeMap::new();
    for (cell, ticks) in cells {
        if matrix_cells.insert(cell, ticks).is_some() {
            let (platform, suspend, behavior) = cell;
            return Err(Failure::Invalid(format!(
                "two matrix scenarios fill the cell {} / {} / {}",
                platform.name(),
                suspend.name(),
                behavior.name()
            )));
        }
    }
    Ok(matrix_cells)
}

/// A matrix scenario's interval model; the matrix holds nothing else.
fn interval_of(scenario: &Scenario) -> Result<&IntervalConfig, Failure> {
    scenario.model.config::<IntervalConfig>().ok_or_else(|| {
        Failure::Invalid(format!(
            "{}: a matrix scenario runs an interval",
            scenario.source
        ))
    })
}

/// Reads a matrix scenario's cell from its contents, not its file name.
fn coordinates(scenario: &Scenario) -> Result<Cell, Failure> {
    let config = interval_of(scenario)?;
    // The table labels each row with the platform's own Instant clock.
    if scenario.instant_clock != scenario.platform.instant_clock() {
        return Err(Failure::Invalid(format!(
            "{}: a matrix scenario keeps its platform's Instant clock",
            scenario.source
        )));
    }
    let suspend = scenario
        .faults
        .iter()
        .map(|fault| fault.kind())
        .find(|kind| matches!(kind, FaultKind::SystemSuspend | FaultKind::ProcessSuspend))
        .ok_or_else(|| {
            Failure::Invalid(format!(
                "{}: a matrix scenario needs a suspend",
                scenario.source
            ))
        })?;
    Ok((scenario.platform, suspend, config.missed_tick))
}

/// Describes the interval and the stop the matrix scenarios share; when they differ, says so
/// rather than describing one of them.
fn caption(scenarios: &[Scenario]) -> String {
    let setup = |scenario: &Scenario| {
        let Ok(config) = interval_of(scenario) else {
            return String::new();
        };
        let period = match config.period {
            crate::interval::Period::Fixed { period_ns } => Compact(period_ns as i64).to_string(),
            crate::interval::Period::DrawnMs { low_ms, high_ms } => {
                format!("{low_ms}..{high_ms}ms")
            }
        };
        let stops: Vec<String> = scenario
            .faults
            .iter()
            .map(|fault| {
                format!(
                    "stopped for {} at {}",
                    Compact(fault.duration_ns() as i64),
                    Compact(fault.at_ns() as i64)
                )
            })
            .collect();
        format!("a {period} interval, {}", stops.join(", "))
    };
    let heading = "Ticks in the first second after the process can run again";
    match scenarios.first().map(setup) {
        Some(first) if scenarios.iter().all(|scenario| setup(scenario) == first) => {
            format!("{heading}: {first}")
        }
        _ => {
            format!("{heading} (the scenarios in scenarios/{MATRIX_FOLDER}/ differ in their setup)")
        }
    }
}

/// The header and rows: one row per platform and suspend kind, one column per behaviour.
fn matrix(cells: &BTreeMap<Cell, u64>) -> (Vec<String>, Vec<Vec<String>>) {
    let mut rows = Vec::new();
    let mut header = vec![
        "platform".to_string(),
        "Instant".to_string(),
        "suspend".to_string(),
    ];
    header.extend(
        MissedTick::TOKIO
            .iter()
            .map(|behavior| behavior.name().to_string()),
    );
    for platform in Platform::ALL {
        for suspend in [FaultKind::SystemSuspend, FaultKind::ProcessSuspend] {
            let mut row = vec![
                platform.name().to_string(),
                platform.instant_clock().name().to_string(),
                suspend.name().to_string(),
            ];
            row.extend(MissedTick::TOKIO.iter().map(|behavior| {
                match cells.get(&(platform, suspend, *behavior)) {
                    Some(ticks) => ticks.to_string(),
                    None => "-".to_string(),
                }
            }));
            rows.push(row);
        }
    }
    (header, rows)
}
