//! One `[[model.runtime]]`: its scheduler design, the design's keys, its blocking pool and its
//! driver.

use ticklab_models::executor::{DriverKind, SchedulerConfig};
use toml::Spanned;

use super::keys::RuntimeSpec;
use super::spec::{DEFAULT_BLOCKING_THREADS, RuntimeConfig};
use crate::registry::designs::Registry;
use crate::registry::schedulers::SchedulerEntry;
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::numbers::{optional_whole, whole};

/// The design a runtime names, or the registry's first (tokio's multi-thread scheduler).
fn design(
    file: &Located<'_>,
    registry: &Registry,
    name: Option<&Spanned<String>>,
) -> Result<SchedulerEntry, ScenarioError> {
    let names: Vec<&str> = registry.schedulers().map(|entry| entry.name).collect();
    let Some(name) = name else {
        let first = registry.schedulers().next();
        return Ok(*first.expect("the registry has tokio's multi-thread scheduler"));
    };
    if let Some(entry) = registry.scheduler(name.get_ref()) {
        return Ok(*entry);
    }
    Err(crate::scenario::explain::unknown_choice(
        file,
        name,
        "scheduler",
        &names,
    ))
}

/// A key the runtime sets that its design does not read is refused: it would change nothing.
fn check_keys_read(
    file: &Located<'_>,
    runtime: &RuntimeSpec,
    design: &SchedulerEntry,
) -> Result<(), ScenarioError> {
    let set = [
        ("lifo_slot", runtime.lifo_slot.as_ref().map(Spanned::span)),
        (
            "global_queue_interval",
            runtime.global_queue_interval.as_ref().map(Spanned::span),
        ),
        (
            "event_interval",
            runtime.event_interval.as_ref().map(Spanned::span),
        ),
    ];
    for (key, span) in set {
        let Some(span) = span else { continue };
        if design.reads(key) {
            continue;
        }
        let reads = if design.keys.is_empty() {
            "none of the scheduler keys".to_string()
        } else {
            design.keys.join(", ")
        };
        return Err(file
            .error(
                span,
                format!(
                    "`{key}` is not a setting of the `{}` scheduler",
                    design.name
                ),
            )
            .with_hint(format!("it reads {reads}; remove `{key}`")));
    }
    Ok(())
}

pub(super) fn validate_runtime(
    file: &Located<'_>,
    runtime: &RuntimeSpec,
    registry: &Registry,
) -> Result<RuntimeConfig, ScenarioError> {
    let design = design(file, registry, runtime.scheduler.as_ref())?;
    let workers = whole(
        file,
        &runtime.workers,
        "workers",
        1..=1024,
        "worker threads, such as 4",
    )?;
    if workers as usize > design.max_workers {
        return Err(file
            .error(
                runtime.workers.span(),
                format!(
                    "the `{}` scheduler runs at most {} worker{}",
                    design.name,
                    design.max_workers,
                    if design.max_workers == 1 { "" } else { "s" }
                ),
            )
            .with_hint(format!("write workers = {}", design.max_workers)));
    }
    check_keys_read(file, runtime, &design)?;
    let defaults = design.defaults(workers as usize);
    let interval_hint = "ticks between checks; leave it out for the scheduler's own";
    let global_queue_interval = optional_whole(
        file,
        &runtime.global_queue_interval,
        "global_queue_interval",
        1..=1_000_000,
        i64::from(defaults.global_queue_interval),
        interval_hint,
    )?;
    let event_interval = optional_whole(
        file,
        &runtime.event_interval,
        "event_interval",
        1..=1_000_000,
        i64::from(defaults.event_interval),
        interval_hint,
    )?;
    let blocking_threads = optional_whole(
        file,
        &runtime.blocking_threads,
        "blocking_threads",
        1..=100_000,
        DEFAULT_BLOCKING_THREADS,
        "the blocking pool's most threads, 512 by default as in tokio",
    )?;
    Ok(RuntimeConfig {
        name: runtime.name.get_ref().clone(),
        design,
        scheduler: SchedulerConfig {
            lifo_slot: runtime
                .lifo_slot
                .as_ref()
                .map_or(defaults.lifo_slot, |lifo| *lifo.get_ref()),
            global_queue_interval: global_queue_interval as u32,
            event_interval: event_interval as u32,
            ..defaults
        },
        blocking_threads: blocking_threads as usize,
        driver: runtime.driver.map_or(DriverKind::Tokio, |driver| driver.0),
    })
}
