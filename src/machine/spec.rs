//! The `[machine]` table: what a scenario says about the machine, whatever its model.
//!
//! ```toml
//! [machine]
//! cores = 4                  # shared by every thread; by default each thread has its own
//! time_slice = "2ms"         # default: Linux EEVDF's base slice for the core count
//! busy_threads = 1           # other programs' threads that compute all run long
//! load = 0.85                # other programs keep this share of each core busy...
//! load_burst = "10ms"        # ...in bursts of this mean length, arriving at random
//! timer_resolution = "1ms"   # Windows' 15.625 ms tick by default; 1 ms as timeBeginPeriod(1)
//! timer_slack = "0s"         # Linux's 50 us by default; 0 for realtime threads
//! ```

use ticklab_sim::{Platform, default_slice_ns};
use toml::Spanned;

use super::config::{Bursts, MachineConfig, ModelMachineKeys, OutsideLoad};
use super::timing::Timing;
use crate::machine::keys::MachineSpec;
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::numbers::{optional_whole, whole};
use crate::scenario::values::DurationNs;

impl MachineSpec {
    /// The keys `[machine]` takes, for checking the docs.
    pub fn keys() -> &'static [&'static str] {
        crate::scenario::keys_of::<MachineSpec>()
    }

    /// This table with each key `over` sets taken from `over` instead, each keeping its place in
    /// the file for errors: a host's own table over the cluster's.
    pub(crate) fn overridden_by(&self, over: &MachineSpec) -> MachineSpec {
        // Taken apart whole, so that a key added to the table cannot be left out here.
        let MachineSpec {
            cores,
            time_slice,
            busy_threads,
            load,
            load_burst,
            timer_resolution,
            timer_slack,
        } = over.clone();
        MachineSpec {
            cores: cores.or_else(|| self.cores.clone()),
            time_slice: time_slice.or_else(|| self.time_slice.clone()),
            busy_threads: busy_threads.or_else(|| self.busy_threads.clone()),
            load: load.or_else(|| self.load.clone()),
            load_burst: load_burst.or_else(|| self.load_burst.clone()),
            timer_resolution: timer_resolution.or_else(|| self.timer_resolution.clone()),
            timer_slack: timer_slack.or_else(|| self.timer_slack.clone()),
        }
    }
}

/// The most cores a machine may have.
pub(crate) const MAX_CORES: i64 = 1024;
/// Outside threads, busy or bursty, at most.
pub(crate) const MAX_LOAD_THREADS: i64 = 1024;
/// The default mean length of an outside burst of CPU.
pub(crate) const DEFAULT_LOAD_BURST_NS: u64 = 10_000_000;

pub(crate) fn validate(
    file: &Located<'_>,
    spec: Option<&MachineSpec>,
    platform: Platform,
    from_model: ModelMachineKeys,
) -> Result<MachineConfig, ScenarioError> {
    let empty = MachineSpec::default();
    let spec = spec.unwrap_or(&empty);
    let cores = cores(file, spec, from_model)?;
    let time_slice_ns = match (&spec.time_slice, from_model.time_slice_ns) {
        (Some(slice), Some(_)) => return Err(set_twice(file, slice.span(), "time_slice")),
        (Some(slice), None) if slice.get_ref().0 == 0 => {
            return Err(file
                .error(slice.span(), "`time_slice` must be more than zero")
                .with_hint("the round-robin slice of threads sharing a core, such as \"3ms\""));
        }
        (Some(slice), None) => slice.get_ref().0,
        (None, Some(slice_ns)) => slice_ns,
        (None, None) => default_slice_ns(cores.unwrap_or(8)),
    };
    if let (Some(slice), None) = (&spec.time_slice, cores) {
        return Err(file
            .error(slice.span(), "`time_slice` needs `cores`")
            .with_hint("threads share cores in slices only when there are fewer cores than threads: set cores"));
    }
    Ok(MachineConfig {
        cores,
        time_slice_ns,
        timing: timing(spec, platform),
        load: load(file, spec, cores)?,
    })
}

fn cores(
    file: &Located<'_>,
    spec: &MachineSpec,
    from_model: ModelMachineKeys,
) -> Result<Option<usize>, ScenarioError> {
    match (&spec.cores, from_model.cores) {
        (Some(cores), Some(_)) => Err(set_twice(file, cores.span(), "cores")),
        (Some(cores), None) => {
            let hint = "the machine's CPU cores, shared by every thread; leave it out to give each thread a core of its own";
            Ok(Some(
                whole(file, cores, "cores", 1..=MAX_CORES, hint)? as usize
            ))
        }
        (None, cores) => Ok(cores),
    }
}

fn set_twice(file: &Located<'_>, span: std::ops::Range<usize>, key: &str) -> ScenarioError {
    file.error(span, format!("`{key}` is set in [model] too"))
        .with_hint(format!(
            "`{key}` belongs in [machine]; [model] still takes it, as older files wrote it, but not both"
        ))
}

fn timing(spec: &MachineSpec, platform: Platform) -> Timing {
    let default = Timing::of(platform);
    Timing {
        resolution_ns: spec
            .timer_resolution
            .as_ref()
            .map_or(default.resolution_ns, |value| value.get_ref().0),
        slack_ns: spec
            .timer_slack
            .as_ref()
            .map_or(default.slack_ns, |value| value.get_ref().0),
    }
}

fn load(
    file: &Located<'_>,
    spec: &MachineSpec,
    cores: Option<usize>,
) -> Result<OutsideLoad, ScenarioError> {
    let busy_threads = optional_whole(
        file,
        &spec.busy_threads,
        "busy_threads",
        0..=MAX_LOAD_THREADS,
        0,
        "threads of other programs that compute all run long",
    )? as u32;
    // Without a core count every thread has a core of its own, so busy threads would take
    // nothing from anyone: a file that writes them means a machine they compete on.
    if let (Some(busy), None) = (&spec.busy_threads, cores)
        && busy_threads > 0
    {
        return Err(file
            .error(busy.span(), "`busy_threads` needs `cores`")
            .with_hint("busy threads compete with the model's for the machine's cores, so the machine needs a core count, such as cores = 2"));
    }
    let bursts = match (&spec.load, &spec.load_burst) {
        (None, None) => None,
        (None, Some(burst)) => {
            return Err(file
                .error(burst.span(), "`load_burst` needs `load`")
                .with_hint(
                    "such as load = 0.85: the share of each core other programs keep busy",
                ));
        }
        (Some(share), burst) => Some(bursts(file, share, burst.as_ref(), cores)?),
    };
    Ok(OutsideLoad {
        busy_threads,
        bursts,
    })
}

fn bursts(
    file: &Located<'_>,
    share: &Spanned<f64>,
    burst: Option<&Spanned<DurationNs>>,
    cores: Option<usize>,
) -> Result<Bursts, ScenarioError> {
    let value = *share.get_ref();
    if !(value > 0.0 && value < 1.0) {
        return Err(file
            .error(
                share.span(),
                format!("`load` must be more than 0 and less than 1, not {value}; both bounds are excluded"),
            )
            .with_hint("the share of each core other programs keep busy, such as 0.85; for cores busy all the time, use busy_threads"));
    }
    let Some(cores) = cores else {
        return Err(file
            .error(share.span(), "`load` needs `cores`")
            .with_hint("the load is a share of each core, so the machine needs a core count, such as cores = 4"));
    };
    let mean_burst_ns = match burst {
        Some(burst) if burst.get_ref().0 == 0 => {
            return Err(file
                .error(burst.span(), "`load_burst` must be more than zero")
                .with_hint(
                    "the mean length of one burst of other programs' CPU, such as \"10ms\"",
                ));
        }
        Some(burst) => burst.get_ref().0,
        None => DEFAULT_LOAD_BURST_NS,
    };
    Ok(Bursts {
        threads: cores as u32,
        share_ppm: (value * 1e6).round() as u32,
        mean_burst_ns,
    })
}
