//! Reading a scenario file into a [`Scenario`]: the head every file shares, its `[machine]`,
//! `[[fault]]`s and `[expect]`, and its `[model]` through the kind it names in
//! [`KINDS`](crate::registry::KINDS).
//!
//! This is the one place that knows both the file's shape and every kind, so it sits above
//! the kinds and the registry; the vocabulary it reads into is [`crate::scenario`].

mod expect;

use std::ops::Range;
use std::path::Path;

use jiff::Timestamp;

use crate::model::{Head, ModelSetup};
use crate::registry::designs::Registry;
use crate::registry::kinds;
use crate::scenario::Scenario;
use crate::scenario::error::ScenarioError;
use crate::scenario::explain::nearest;
use crate::scenario::faults;
use crate::scenario::located::Located;
use crate::scenario::schema::ModelKindProbe;
use crate::scenario::setting::{Conditions, DEFAULT_WALL_START, Setting};
use crate::scenario::top_keys::ScenarioFile;
use expect::parse_expectations;

/// The longest run ticklab accepts; physical time and wall readings stay far from overflow.
const MAX_RUN_FOR_NS: u64 = 100 * 365 * 86_400 * 1_000_000_000;

/// Validates a file that may or may not have a `[model]`: with one, as a whole scenario against
/// `registry`, keeping its conditions; without one, as conditions alone, which take no
/// `[machine]` and no `[expect]` since nothing simulated runs under them.
pub fn parse_conditions(
    registry: &Registry,
    source: &str,
    text: &str,
) -> Result<Conditions, ScenarioError> {
    let file = Located { source, text };
    let raw: ScenarioFile<Option<toml::Value>> = file.parse()?;
    if raw.model.is_some() {
        return parse_with(registry, source, text).map(|scenario| scenario.conditions());
    }
    if raw.machine.is_some() {
        return Err(file
            .error(
                table_span(text, "[machine]"),
                "a file without a `[model]` takes no `[machine]`",
            )
            .with_hint(
                "`[machine]` sets the simulated machine's cores and timer resolution; code under \
                 ticklab::tokio runs on one real thread, so remove the table",
            ));
    }
    if let Some(max_events) = &raw.max_events {
        return Err(file
            .error(
                max_events.span(),
                "a file without a `[model]` takes no `max_events`",
            )
            .with_hint(
                "`max_events` bounds a model's simulated work; code under ticklab::tokio is \
                 bounded by its test's own length, so remove the key",
            ));
    }
    if raw.expect.is_some() {
        return Err(file
            .error(
                table_span(text, "[expect]"),
                "a file without a `[model]` takes no `[expect]`",
            )
            .with_hint(
                "`[expect]` bounds a model's metrics; check your own code's behaviour in its test",
            ));
    }
    faults::check_cpu_load_has_cores(
        &file,
        &raw.faults,
        None,
        "a scenario with a `[model]`; code under ticklab::tokio runs on one real thread",
    )?;
    conditions(&file, &raw)
}

/// Where a table's header is, for errors about the whole table.
fn table_span(text: &str, header: &str) -> Range<usize> {
    text.find(header)
        .map_or(0..0, |start| start..start + header.len())
}

/// Reads and validates a scenario file naming only the built-in designs.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    load_with(&Registry::builtin(), path)
}

/// Reads and validates a scenario file against `registry`'s designs.
pub fn load_with(registry: &Registry, path: &Path) -> Result<Scenario, ScenarioError> {
    let source = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| {
        let hint = if path.is_dir() {
            "pass a scenario file; `ticklab check FOLDER` runs every scenario in a folder"
        } else if error.kind() == std::io::ErrorKind::InvalidData {
            "scenario files are UTF-8 text"
        } else {
            "check the path; the built-in scenarios are under scenarios/"
        };
        ScenarioError::whole_file(&source, format!("cannot read the scenario: {error}"))
            .with_hint(hint)
    })?;
    parse_with(registry, &source, &text)
}

/// Validates a scenario given as text, naming only the built-in designs; `source` names it in
/// errors.
pub fn parse(source: &str, text: &str) -> Result<Scenario, ScenarioError> {
    parse_with(&Registry::builtin(), source, text)
}

/// Validates a scenario given as text against `registry`'s designs.
///
/// The file is read twice: once for everything but the inside of its `[model]`, and once by its
/// kind, which turns its `[model]` table into the model's setup and reads nothing else.
pub fn parse_with(
    registry: &Registry,
    source: &str,
    text: &str,
) -> Result<Scenario, ScenarioError> {
    let file = Located { source, text };
    let raw: ScenarioFile<ModelKindProbe> = file
        .parse()
        .map_err(|error| harness_file(registry, source, text).unwrap_or(error))?;
    let kind = &raw.model.kind;
    let Some(model_kind) = kinds::kind(kind.get_ref()) else {
        let kinds = kinds::kind_names();
        let other = kind.get_ref();
        let hint = match nearest(other, &kinds) {
            Some(best) => format!("did you mean `{best}`?"),
            None => format!("models: {}", kinds.join(", ")),
        };
        return Err(file
            .error(kind.span(), format!("unknown model kind `{other}`"))
            .with_hint(hint));
    };
    // A `wall_start` that does not parse is reported by `finish`, after the model's table.
    let wall_start_ns = raw
        .wall_start
        .as_ref()
        .and_then(|text| parse_wall_start(text.get_ref()).ok());
    let head = Head {
        file,
        run_for_ns: raw.run_for.get_ref().0,
        wall_start_ns: wall_start_ns.unwrap_or_else(default_wall_start_ns),
        registry,
    };
    let model = model_kind.setup(&file, &head)?;
    finish(&file, raw, model)
}

/// The error for a file that holds valid conditions and no `[model]`: one written for
/// `ticklab::tokio::Harness`, which has nothing for ticklab itself to simulate.
fn harness_file(registry: &Registry, source: &str, text: &str) -> Option<ScenarioError> {
    let raw: ScenarioFile<Option<toml::Value>> = toml::from_str(text).ok()?;
    if raw.model.is_some() || parse_conditions(registry, source, text).is_err() {
        return None;
    }
    let file = Located { source, text };
    let error = file
        .error(
            0..0,
            "this is a harness conditions file for `ticklab::tokio::Harness`: a platform, a \
             length and faults, with no [model] for ticklab to simulate",
        )
        .with_hint(format!(
            "run your own tokio code under it from a Rust test with \
             `ticklab::tokio::Harness::load({source:?})`, or add a [model] table (such as \
             kind = \"interval\") to simulate one of ticklab's models"
        ));
    Some(error)
}

/// Validates the keys every scenario shares.
fn finish<M>(
    file: &Located<'_>,
    raw: ScenarioFile<M>,
    model: ModelSetup,
) -> Result<Scenario, ScenarioError> {
    let mut conditions = conditions(file, &raw)?;
    let from_model = model.kind().machine_keys(&model);
    if let Some(clock) = from_model.instant_clock {
        if let Some(named) = raw.instant_clock.as_ref().filter(|named| named.0 != clock) {
            return Err(file
                .error(
                    0..0,
                    format!(
                        "`instant_clock = \"{}\"` and the model's `clock = \"{}\"` disagree",
                        named.0.name(),
                        clock.name()
                    ),
                )
                .with_hint(
                    "keep one of them: the model's `clock` sets the clock `Instant` reads",
                ));
        }
        conditions.instant_clock = clock;
    }
    let machine =
        crate::machine::spec::validate(file, raw.machine.as_ref(), raw.platform.0, from_model)?;
    faults::check_cpu_load_has_cores(file, &raw.faults, machine.cores, "`[machine]`")?;
    let expectations = match &raw.expect {
        None => Vec::new(),
        Some(table) => parse_expectations(file, table, model.kind().expect_schema(&model))?,
    };
    let setting = Setting {
        conditions,
        machine,
        expectations,
        max_memory_bytes: max_memory(file, &raw)?,
        max_events: max_events(file, &raw)?,
    };
    Ok(Scenario { setting, model })
}

/// The file's `max_memory`, which may only raise the bound: a run refused under the default is
/// what it is for.
fn max_memory<M>(file: &Located<'_>, raw: &ScenarioFile<M>) -> Result<Option<u64>, ScenarioError> {
    let Some(max_memory) = &raw.max_memory else {
        return Ok(None);
    };
    let bytes = max_memory.get_ref().0;
    if bytes <= crate::memory::DEFAULT_MAX_MEMORY_BYTES {
        return Err(file
            .error(
                max_memory.span(),
                format!(
                    "`max_memory` must be more than the default of {}",
                    crate::memory::Size(crate::memory::DEFAULT_MAX_MEMORY_BYTES.into())
                ),
            )
            .with_hint(
                "`max_memory` raises the memory bound for a run that needs more; leave it out \
                 for the default, or give --max-memory to lower it for one command",
            ));
    }
    Ok(Some(bytes))
}

/// The file's `max_events`, which may only raise the bound, as `max_memory` does.
fn max_events<M>(file: &Located<'_>, raw: &ScenarioFile<M>) -> Result<Option<u64>, ScenarioError> {
    let Some(max_events) = &raw.max_events else {
        return Ok(None);
    };
    let default = crate::runner::options::DEFAULT_MAX_EVENTS;
    match u64::try_from(*max_events.get_ref()) {
        Ok(events) if events > default => Ok(Some(events)),
        _ => Err(file
            .error(
                max_events.span(),
                format!("`max_events` must be more than the default of {default}"),
            )
            .with_hint(
                "`max_events` raises the bound on a run's work for a scenario that needs more, \
                 such as 4_000_000_000; leave it out for the default, or give --max-events for \
                 one command",
            )),
    }
}

/// Validates the keys of a scenario's head.
fn conditions<M>(file: &Located<'_>, raw: &ScenarioFile<M>) -> Result<Conditions, ScenarioError> {
    let run_for_ns = raw.run_for.get_ref().0;
    if run_for_ns == 0 || run_for_ns > MAX_RUN_FOR_NS {
        return Err(file
            .error(
                raw.run_for.span(),
                "`run_for` must be more than zero and at most 100 years",
            )
            .with_hint("`run_for` is the physical length of the run, such as \"8m\""));
    }
    let seed = match &raw.seed {
        None => 0,
        Some(seed) if *seed.get_ref() >= 0 => *seed.get_ref() as u64,
        Some(seed) => {
            return Err(file
                .error(seed.span(), "`seed` must be zero or more")
                .with_hint("seeds are whole numbers from 0; `ticklab run --seed N` replaces it"));
        }
    };
    let wall_start_ns = match &raw.wall_start {
        None => default_wall_start_ns(),
        Some(text) => parse_wall_start(text.get_ref())
            .map_err(|(message, hint)| file.error(text.span(), message).with_hint(hint))?,
    };
    let faults = faults::validate_faults(file, &raw.faults, run_for_ns)?;
    faults::check_wall_stays_in_range(file, &raw.faults, &faults, wall_start_ns, &raw.run_for)?;
    let platform = raw.platform.0;
    Ok(Conditions {
        source: file.source.to_string(),
        about: raw.about.clone(),
        platform,
        instant_clock: raw
            .instant_clock
            .as_ref()
            .map_or(platform.instant_clock(), |clock| clock.0),
        seed,
        run_for_ns,
        wall_start_ns,
        faults,
    })
}

fn default_wall_start_ns() -> i64 {
    parse_wall_start(DEFAULT_WALL_START)
        .map_err(|_| ())
        .expect("the default wall start is valid")
}

/// Wall clocks start between 1900 and 2100, so that a century of steps and runs stays printable.
fn parse_wall_start(text: &str) -> Result<i64, (String, &'static str)> {
    let timestamp: Timestamp = text.parse().map_err(|_| {
        (
            format!("\"{text}\" is not a time"),
            "write an RFC 3339 time, such as \"2020-03-12T14:08:18Z\"",
        )
    })?;
    let low: Timestamp = "1900-01-01T00:00:00Z".parse().expect("valid bound");
    let high: Timestamp = "2100-01-01T00:00:00Z".parse().expect("valid bound");
    if timestamp < low || timestamp > high {
        return Err((
            format!("\"{text}\" is outside the years 1900 to 2100"),
            "choose a time between 1900 and 2100",
        ));
    }
    Ok(timestamp.as_nanosecond() as i64)
}

impl Registry {
    /// Validates a scenario given as text against this registry; `source` names it in errors.
    pub fn parse(&self, source: &str, text: &str) -> Result<Scenario, ScenarioError> {
        parse_with(self, source, text)
    }

    /// Reads and validates a scenario file against this registry.
    pub fn load(&self, path: &Path) -> Result<Scenario, ScenarioError> {
        load_with(self, path)
    }
}
