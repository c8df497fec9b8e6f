//! The `[model]` table of a lock scenario: threads that spawn commands under a process-wide lock,
//! threads that take it briefly for reading, threads that only compute, and a heap that grows.

use ticklab_models::lock::LockKind;
use toml::Spanned;

use crate::lock::keys::LockSpec;
use crate::profile::CostProfile;
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::numbers::{optional_whole, whole};
use crate::scenario::values::{DurationNs, Named};

/// How a command is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnKind {
    /// Copies the parent's page tables: cost grows with mapped memory.
    Fork,
    /// `clone(CLONE_VFORK|CLONE_VM)`: the child borrows the parent's memory; flat cost.
    Vfork,
    PosixSpawn,
}

impl SpawnKind {
    pub fn name(self) -> &'static str {
        <Self as Named>::NAMES[self as usize]
    }
}

impl Named for SpawnKind {
    const ALL: &'static [Self] = &[SpawnKind::Fork, SpawnKind::Vfork, SpawnKind::PosixSpawn];
    const NAMES: &'static [&'static str] = &["fork", "vfork", "posix_spawn"];
}

/// How a spawner's or reader's acquisitions are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spacing {
    /// Exponential gaps with the given mean: independent requests.
    Poisson,
    /// Exactly the given gap from one acquisition's due time to the next.
    Periodic,
}

impl Named for Spacing {
    const ALL: &'static [Self] = &[Spacing::Poisson, Spacing::Periodic];
    const NAMES: &'static [&'static str] = &["poisson", "periodic"];
}

impl Named for LockKind {
    const ALL: &'static [Self] = &[LockKind::Mutex, LockKind::ReadWrite];
    const NAMES: &'static [&'static str] = &["mutex", "rw"];
}

/// A validated lock model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockConfig {
    pub profile: CostProfile,
    /// `cores` and `time_slice` as older files wrote them in `[model]`; `[machine]` says them now.
    pub cores: Option<usize>,
    pub time_slice_ns: Option<u64>,
    pub lock: LockKind,
    pub spawn: SpawnKind,
    pub spawners: u32,
    pub spawn_every_ns: u64,
    pub arrival: Spacing,
    pub readers: u32,
    pub read_every_ns: u64,
    pub read_hold_ns: u64,
    pub busy_threads: u32,
    pub memory_bytes: u64,
    /// Bytes added each second of physical time, up to `memory_max_bytes`.
    pub memory_growth_bytes: u64,
    pub memory_max_bytes: u64,
    pub window_ns: u64,
}

impl LockConfig {
    /// Mapped memory at `t_ns` into the run.
    pub fn memory_at(&self, t_ns: u64) -> u64 {
        let grown = u128::from(self.memory_growth_bytes) * u128::from(t_ns) / 1_000_000_000;
        (u128::from(self.memory_bytes) + grown).min(u128::from(self.memory_max_bytes)) as u64
    }
}

/// The read lock's hold when a scenario gives none: a `pipe2` or `socket` with `O_CLOEXEC`.
pub const DEFAULT_READ_HOLD_NS: u64 = 5_000;

pub(crate) fn validate(
    file: &Located<'_>,
    spec: &LockSpec,
    run_for_ns: u64,
) -> Result<LockConfig, ScenarioError> {
    let profile = crate::profile::resolve(file.source, spec.profile.get_ref())
        .map_err(|(message, hint)| file.error(spec.profile.span(), message).with_hint(hint))?;
    let cores = spec
        .cores
        .as_ref()
        .map(|cores| {
            whole(
                file,
                cores,
                "cores",
                1..=1024,
                "the machine's CPU cores, such as 2",
            )
        })
        .transpose()?;
    let (spawners, readers, busy_threads) = threads(file, spec)?;
    let spawn_every_ns = positive(file, &spec.spawn_every, "spawn_every")?;
    let read_every_ns = read_every(file, spec, readers)?;
    let memory_growth_bytes = spec.memory_growth.map_or(0, |growth| growth.0);
    let memory_max_bytes = memory_max(file, spec)?;
    let window_ns = match &spec.window {
        Some(window) => positive(file, window, "window")?,
        None => (run_for_ns / 10).max(1),
    };
    Ok(LockConfig {
        profile,
        cores: cores.map(|cores| cores as usize),
        time_slice_ns: match &spec.time_slice {
            Some(slice) => Some(positive(file, slice, "time_slice")?),
            None => cores.map(|cores| ticklab_sim::default_slice_ns(cores as usize)),
        },
        lock: spec.lock.0,
        spawn: spec.spawn.0,
        spawners: spawners as u32,
        spawn_every_ns,
        arrival: spec.arrival.map_or(Spacing::Poisson, |arrival| arrival.0),
        readers: readers as u32,
        read_every_ns,
        read_hold_ns: spec
            .read_hold
            .as_ref()
            .map_or(DEFAULT_READ_HOLD_NS, |hold| hold.get_ref().0)
            .max(1),
        busy_threads: busy_threads as u32,
        memory_bytes: spec.memory.0,
        memory_growth_bytes,
        memory_max_bytes,
        window_ns,
    })
}

/// The threads that start commands, take the lock for reading, and compute all the time.
fn threads(file: &Located<'_>, spec: &LockSpec) -> Result<(i64, i64, i64), ScenarioError> {
    let spawners = whole(
        file,
        &spec.spawners,
        "spawners",
        0..=10_000,
        "threads that start commands",
    )?;
    let readers = optional_whole(
        file,
        &spec.readers,
        "readers",
        0..=10_000,
        0,
        "threads that take the lock for reading",
    )?;
    let busy_threads = optional_whole(
        file,
        &spec.busy_threads,
        "busy_threads",
        0..=10_000,
        0,
        "threads that compute all the time",
    )?;
    Ok((spawners, readers, busy_threads))
}

/// How often each reader takes the lock; readers need it, and no readers need none.
fn read_every(file: &Located<'_>, spec: &LockSpec, readers: i64) -> Result<u64, ScenarioError> {
    match (&spec.read_every, readers) {
        (Some(every), _) => positive(file, every, "read_every"),
        (None, 0) => Ok(0),
        (None, _) => Err(file
            .error(
                spec.readers.as_ref().map_or(0..0, |r| r.span()),
                "readers need `read_every`",
            )
            .with_hint("how often each reader takes the lock, such as read_every = \"10ms\"")),
    }
}

/// The most the heap grows to, never below where it starts.
fn memory_max(file: &Located<'_>, spec: &LockSpec) -> Result<u64, ScenarioError> {
    match &spec.memory_max {
        Some(max) if max.get_ref().0 < spec.memory.0 => Err(file
            .error(max.span(), "`memory_max` is below the starting `memory`")
            .with_hint("the heap grows from `memory` up to `memory_max`")),
        Some(max) => Ok(max.get_ref().0),
        None => Ok(u64::MAX),
    }
}

fn positive(
    file: &Located<'_>,
    value: &Spanned<DurationNs>,
    key: &str,
) -> Result<u64, ScenarioError> {
    match value.get_ref().0 {
        0 => Err(file
            .error(value.span(), format!("`{key}` must be more than zero"))
            .with_hint("a gap between events, such as \"100ms\"")),
        ns => Ok(ns),
    }
}
