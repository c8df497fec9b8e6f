//! Cost profiles: what system calls cost on a host, as TOML files under `profiles/`.
//!
//! Lock and idle scenarios name one (`profile = "profiles/reference.toml"`), and their models
//! charge every `fork`, `sched_yield` or `nanosleep` from it, so that simulated CPU time stays tied
//! to measurements. `profiles/reference.toml` carries published figures with their sources;
//! `ticklab calibrate` writes one for the host it runs on.

mod cost;
pub mod keys;
mod resolve;

use serde::Deserialize;
use toml::Spanned;

pub use cost::Cost;
pub use resolve::{REFERENCE, load, resolve};

use crate::scenario::error::ScenarioError;
use crate::scenario::values::DurationNs;

/// A validated cost profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostProfile {
    /// Where it came from, for messages.
    pub source: String,
    pub about: String,
    pub costs: Costs,
}

/// Every figure a profile gives, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    pub sched_yield: Cost,
    pub nanosleep_zero: Cost,
    /// CPU time one `nanosleep(0)` call uses, of its wall time.
    pub nanosleep_zero_cpu: Cost,
    pub timer_slack_ns: u64,
    pub spin_iteration: Cost,
    pub condvar_timeout_overshoot: Cost,
    pub condvar_signal_to_wake: Cost,
    pub epoll_timeout_overshoot: Cost,
    pub fork_base: Cost,
    pub fork_per_gib: Cost,
    pub vfork: Cost,
    pub posix_spawn: Cost,
}

/// The names of the figures, in the order profiles list them.
pub const COST_NAMES: &[&str] = &[
    "sched_yield",
    "nanosleep_zero",
    "nanosleep_zero_cpu",
    "timer_slack",
    "spin_iteration",
    "condvar_timeout_overshoot",
    "condvar_signal_to_wake",
    "epoll_timeout_overshoot",
    "fork_base",
    "fork_per_gib",
    "vfork",
    "posix_spawn",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a cost profile")]
struct ProfileFile {
    about: String,
    costs: CostsFile,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [costs] table")]
struct CostsFile {
    sched_yield: Spanned<CostFile>,
    nanosleep_zero: Spanned<CostFile>,
    nanosleep_zero_cpu: Spanned<CostFile>,
    timer_slack: DurationNs,
    spin_iteration: Spanned<CostFile>,
    condvar_timeout_overshoot: Spanned<CostFile>,
    condvar_signal_to_wake: Spanned<CostFile>,
    epoll_timeout_overshoot: Spanned<CostFile>,
    fork_base: Spanned<CostFile>,
    fork_per_gib: Spanned<CostFile>,
    vfork: Spanned<CostFile>,
    posix_spawn: Spanned<CostFile>,
}

#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a figure such as { p50 = \"67us\", p99 = \"97us\" }"
)]
struct CostFile {
    p50: DurationNs,
    p99: DurationNs,
}

/// Validates a profile given as text; `source` names it in errors.
pub fn parse(source: &str, text: &str) -> Result<CostProfile, ScenarioError> {
    let raw: ProfileFile = ScenarioError::parse_toml(source, text)?;
    let cost = |figure: &Spanned<CostFile>, name: &str| -> Result<Cost, ScenarioError> {
        let CostFile { p50, p99 } = figure.get_ref();
        if p50.0 == 0 || p99.0 < p50.0 {
            return Err(ScenarioError::at(
                source,
                text,
                figure.span(),
                format!("`{name}` needs 0 < p50 <= p99"),
            )
            .with_hint("a p99 is never below the p50 it comes with; write both, such as { p50 = \"67us\", p99 = \"97us\" }"));
        }
        Ok(Cost {
            p50_ns: p50.0,
            p99_ns: p99.0,
        })
    };
    let c = &raw.costs;
    Ok(CostProfile {
        source: source.to_string(),
        about: raw.about,
        costs: Costs {
            sched_yield: cost(&c.sched_yield, "sched_yield")?,
            nanosleep_zero: cost(&c.nanosleep_zero, "nanosleep_zero")?,
            nanosleep_zero_cpu: cost(&c.nanosleep_zero_cpu, "nanosleep_zero_cpu")?,
            timer_slack_ns: c.timer_slack.0,
            spin_iteration: cost(&c.spin_iteration, "spin_iteration")?,
            condvar_timeout_overshoot: cost(
                &c.condvar_timeout_overshoot,
                "condvar_timeout_overshoot",
            )?,
            condvar_signal_to_wake: cost(&c.condvar_signal_to_wake, "condvar_signal_to_wake")?,
            epoll_timeout_overshoot: cost(&c.epoll_timeout_overshoot, "epoll_timeout_overshoot")?,
            fork_base: cost(&c.fork_base, "fork_base")?,
            fork_per_gib: cost(&c.fork_per_gib, "fork_per_gib")?,
            vfork: cost(&c.vfork, "vfork")?,
            posix_spawn: cost(&c.posix_spawn, "posix_spawn")?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_profile_parses_with_its_published_figures() {
        let profile = parse("reference.toml", REFERENCE).unwrap();
        assert_eq!(profile.costs.nanosleep_zero.p50_ns, 67_000);
        assert_eq!(profile.costs.fork_per_gib.p50_ns, 19_000_000);
        assert_eq!(profile.costs.timer_slack_ns, 50_000);
    }

    #[test]
    fn a_p99_below_its_p50_is_refused_with_its_position() {
        let text = REFERENCE.replace(
            "vfork = { p50 = \"30us\", p99 = \"50us\" }",
            "vfork = { p50 = \"30us\", p99 = \"5us\" }",
        );
        let error = parse("x.toml", &text).unwrap_err();
        assert_eq!(error.message(), "`vfork` needs 0 < p50 <= p99");
        assert!(error.position().is_some());
    }
}
