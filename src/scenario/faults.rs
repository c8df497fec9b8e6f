//! Validation of `[[fault]]` tables into the world's [`Fault`]s.

use std::ops::Range;

use ticklab_sim::{FULL_SHARE_PPM, Fault, FaultKind};
use toml::Spanned;

use super::error::ScenarioError;
use super::located::Located;
use crate::scenario::top_keys::FaultSpec;

/// The most a wall step may move the clock.
const MAX_WALL_STEP_NS: i64 = 100 * 365 * 86_400 * 1_000_000_000;
/// 1678-01-01 and 2261-12-31, just inside the range of `i64` nanoseconds since 1970.
const WALL_LOW_NS: i64 = -9_214_560_000 * 1_000_000_000;
const WALL_HIGH_NS: i64 = 9_214_560_000 * 1_000_000_000;

pub(crate) fn validate_faults(
    file: &Located<'_>,
    specs: &[Spanned<FaultSpec>],
    run_for_ns: u64,
) -> Result<Vec<ticklab_sim::Fault>, ScenarioError> {
    let faults = specs
        .iter()
        .map(|spec| validate_fault(file, spec, run_for_ns))
        .collect::<Result<Vec<_>, _>>()?;
    check_slews_keep_the_clock_running(file, specs, &faults)?;
    Ok(faults)
}

fn validate_fault(
    file: &Located<'_>,
    spec: &Spanned<FaultSpec>,
    run_for_ns: u64,
) -> Result<Fault, ScenarioError> {
    let fault = spec.get_ref();
    let at_ns = fault.at.get_ref().0;
    if at_ns >= run_for_ns {
        return Err(file
            .error(fault.at.span(), "this fault starts after the run has ended")
            .with_hint(
                "faults must start before `run_for`; lengthen `run_for` or move the fault earlier",
            ));
    }
    refuse_keys_not_taken(file, fault)?;
    match fault.kind.0 {
        FaultKind::SystemSuspend | FaultKind::ProcessSuspend => suspend(file, spec, at_ns),
        FaultKind::WallStep => wall_step(file, spec, at_ns),
        FaultKind::WallSlew => wall_slew(file, spec, at_ns),
        FaultKind::CpuLoad => cpu_load(file, spec, at_ns),
    }
}

/// The most threads one `cpu-load` fault may start: far more than any machine's cores, and few
/// enough that the run's memory stays small.
pub(crate) const MAX_LOAD_THREADS: i64 = 1_024;

/// A `cpu-load` fault puts threads on the machine's cores, so it needs a machine that has them:
/// without `cores`, every thread has a core of its own and the load would change nothing.
pub(crate) fn check_cpu_load_has_cores(
    file: &Located<'_>,
    specs: &[Spanned<FaultSpec>],
    cores: Option<usize>,
    where_cores_go: &str,
) -> Result<(), ScenarioError> {
    if cores.is_some() {
        return Ok(());
    }
    match specs
        .iter()
        .find(|spec| spec.get_ref().kind.0 == FaultKind::CpuLoad)
    {
        None => Ok(()),
        Some(spec) => Err(file
            .error(spec.span(), "a cpu-load fault needs a machine with `cores`")
            .with_hint(format!(
                "set `cores` in {where_cores_go}: without it every thread has a core of its own \
                 and outside load takes nothing from anybody"
            ))),
    }
}

/// Outside load for a stretch: how many threads (one per core without `threads`), how much of
/// their time each wants (all of it without `share`), for how long.
fn cpu_load(
    file: &Located<'_>,
    spec: &Spanned<FaultSpec>,
    at_ns: u64,
) -> Result<Fault, ScenarioError> {
    let fault = spec.get_ref();
    let duration_ns = positive_duration(file, spec)?;
    if fault.threads.is_none() && fault.share.is_none() {
        return Err(needs(file, spec, "threads` or `share"));
    }
    let threads = match &fault.threads {
        None => None,
        Some(threads) => {
            let count = *threads.get_ref();
            if !(1..=MAX_LOAD_THREADS).contains(&count) {
                return Err(file
                    .error(
                        threads.span(),
                        format!(
                            "a cpu-load fault starts 1 to {MAX_LOAD_THREADS} threads, not {count}"
                        ),
                    )
                    .with_hint("threads = 2 keeps two cores busy for the fault's duration"));
            }
            Some(count as u32)
        }
    };
    let share_ppm = match &fault.share {
        None => FULL_SHARE_PPM,
        Some(share) => {
            let value = *share.get_ref();
            // A share that rounds to no time at all, or past all of it, says nothing a thread can do.
            let share_ppm = (value * 1e6).round();
            if !(value > 0.0 && value <= 1.0 && share_ppm >= 1.0) {
                return Err(file
                    .error(
                        share.span(),
                        format!(
                            "a cpu-load fault's share is more than 0 and at most 1, not {value}"
                        ),
                    )
                    .with_hint(
                        "share = 0.5 keeps each of its threads (one per core without `threads`) \
                         busy half the time, in bursts arriving at random",
                    ));
            }
            share_ppm as u32
        }
    };
    Ok(Fault::CpuLoad {
        at_ns,
        duration_ns,
        threads,
        share_ppm,
    })
}

/// A system or process suspend: how long, and nothing else.
fn suspend(
    file: &Located<'_>,
    spec: &Spanned<FaultSpec>,
    at_ns: u64,
) -> Result<Fault, ScenarioError> {
    let fault = spec.get_ref();
    let duration_ns = positive_duration(file, spec)?;
    Ok(match fault.kind.0 {
        FaultKind::SystemSuspend => Fault::SystemSuspend { at_ns, duration_ns },
        _ => Fault::ProcessSuspend { at_ns, duration_ns },
    })
}

/// A wall step: how far the wall clock jumps, within a century either way.
fn wall_step(
    file: &Located<'_>,
    spec: &Spanned<FaultSpec>,
    at_ns: u64,
) -> Result<Fault, ScenarioError> {
    let fault = spec.get_ref();
    let by = fault.by.as_ref().ok_or_else(|| needs(file, spec, "by"))?;
    let by_ns = by.get_ref().0;
    if by_ns == 0 || by_ns.abs() > MAX_WALL_STEP_NS {
        return Err(file
            .error(
                by.span(),
                "a wall step must be non-zero and at most 100 years either way",
            )
            .with_hint("`by` is a signed duration, such as \"-1h\" or \"+30s\""));
    }
    Ok(Fault::WallStep { at_ns, by_ns })
}

/// A wall slew: a rate strictly between -1 and 1, for a duration.
fn wall_slew(
    file: &Located<'_>,
    spec: &Spanned<FaultSpec>,
    at_ns: u64,
) -> Result<Fault, ScenarioError> {
    let fault = spec.get_ref();
    let rate = fault
        .rate
        .as_ref()
        .ok_or_else(|| needs(file, spec, "rate"))?;
    let value = *rate.get_ref();
    if !(value > -1.0 && value < 1.0) {
        return Err(file
            .error(
                rate.span(),
                format!(
                    "a slew rate must be more than -1 and less than 1, not {value}; \
                     both bounds are excluded"
                ),
            )
            .with_hint(
                "rates are fractions of real time: at -1 the wall clock would stop and at \
                 1 it would run twice as fast; NTP slews at most 0.0005 (500 ppm)",
            ));
    }
    let duration_ns = positive_duration(file, spec)?;
    Ok(Fault::WallSlew {
        at_ns,
        duration_ns,
        rate_ppb: (value * 1e9).round() as i64,
    })
}

/// The first key written that the fault's kind does not take, by the kinds' table of keys.
fn refuse_keys_not_taken(file: &Located<'_>, fault: &FaultSpec) -> Result<(), ScenarioError> {
    let taken = super::top_keys::FAULTS[fault.kind.0 as usize].keys;
    let written = [
        ("duration", fault.duration.as_ref().map(Spanned::span)),
        ("by", fault.by.as_ref().map(Spanned::span)),
        ("rate", fault.rate.as_ref().map(Spanned::span)),
        ("threads", fault.threads.as_ref().map(Spanned::span)),
        ("share", fault.share.as_ref().map(Spanned::span)),
    ];
    match written
        .into_iter()
        .find_map(|(key, span)| Some((key, span?)).filter(|(key, _)| !taken.contains(key)))
    {
        Some((key, span)) => Err(not_for(file, fault.kind.0, key, span)),
        None => Ok(()),
    }
}

/// A key the fault's kind does not take.
fn not_for(file: &Located<'_>, kind: FaultKind, key: &str, span: Range<usize>) -> ScenarioError {
    file.error(
        span,
        format!("`{key}` does not apply to a {} fault", kind.name()),
    )
    .with_hint(format!("remove `{key}`; {}", keys_for(kind)))
}

/// A key the fault's kind needs and the table lacks.
fn needs(file: &Located<'_>, spec: &Spanned<FaultSpec>, key: &str) -> ScenarioError {
    let kind = spec.get_ref().kind.0;
    file.error(
        spec.span(),
        format!("a {} fault needs `{key}`", kind.name()),
    )
    .with_hint(keys_for(kind))
}

fn positive_duration(file: &Located<'_>, spec: &Spanned<FaultSpec>) -> Result<u64, ScenarioError> {
    let duration = spec
        .get_ref()
        .duration
        .as_ref()
        .ok_or_else(|| needs(file, spec, "duration"))?;
    match duration.get_ref().0 {
        0 => Err(file
            .error(duration.span(), "a fault's duration must be more than zero")
            .with_hint("give it a duration such as \"1s\", or remove the fault")),
        ns => Ok(ns),
    }
}

fn keys_for(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::SystemSuspend | FaultKind::ProcessSuspend => "suspends take `at` and `duration`",
        FaultKind::WallStep => "wall steps take `at` and `by`, such as by = \"-1h\"",
        FaultKind::WallSlew => "wall slews take `at`, `duration` and `rate`, such as rate = 0.0005",
        FaultKind::CpuLoad => {
            "cpu-load faults take `at`, `duration`, and `threads`, `share` or both, such as \
             threads = 2 or share = 0.5"
        }
    }
}

/// Overlapping slews add up; together they must never stop or reverse the wall clock.
fn check_slews_keep_the_clock_running(
    file: &Located<'_>,
    specs: &[Spanned<FaultSpec>],
    faults: &[Fault],
) -> Result<(), ScenarioError> {
    let mut edges: Vec<(u64, bool, i64, usize)> = Vec::new();
    for (index, fault) in faults.iter().enumerate() {
        if let Fault::WallSlew { rate_ppb, .. } = *fault {
            edges.push((fault.at_ns(), true, rate_ppb, index));
            edges.push((fault.end_ns(), false, -rate_ppb, index));
        }
    }
    // Ends first at equal times: a slew that ends as another begins shares no time with it.
    edges.sort_by_key(|&(at_ns, is_begin, _, _)| (at_ns, is_begin));
    let mut total_ppb = 0i64;
    for (_, _, delta_ppb, index) in edges {
        total_ppb += delta_ppb;
        if total_ppb.abs() >= 1_000_000_000 {
            return Err(file
                .error(specs[index].span(), "overlapping slews add up to a rate of 1 or more either way")
                .with_hint("the rates of slews that overlap add up, and together must stay more than -1 and less than 1"));
        }
    }
    Ok(())
}

/// Wall readings must stay within what 64-bit nanoseconds since 1970 can hold (1678 to 2261),
/// whatever the steps add up to: the run's own length, plus what fast slews gain, plus every
/// forward step must fit after `wall_start`, and every backward step before it.
pub(crate) fn check_wall_stays_in_range(
    file: &Located<'_>,
    specs: &[Spanned<FaultSpec>],
    faults: &[Fault],
    wall_start_ns: i64,
    run_for: &Spanned<super::values::DurationNs>,
) -> Result<(), ScenarioError> {
    let clock = WallClock {
        whose: "the wall clock".to_string(),
        start_ns: i128::from(wall_start_ns),
        run_for_ns: run_for.get_ref().0,
        gain_ns: 0,
        span: run_for.span(),
        hint: "wall readings must stay between the years 1678 and 2261; use smaller steps, a \
               shorter run or an earlier wall_start",
    };
    check_wall_clock(file, specs, faults, &clock)
}

/// One wall clock whose readings must stay in range: where it starts, how long it runs, what it
/// gains besides (a fast crystal), and where in the file to point if the run alone passes 2261.
pub(crate) struct WallClock {
    /// The clock, as messages name it: "the wall clock", or a host's.
    pub whose: String,
    pub start_ns: i128,
    pub run_for_ns: u64,
    pub gain_ns: i128,
    pub span: std::ops::Range<usize>,
    pub hint: &'static str,
}

/// [`check_wall_stays_in_range`] for any wall clock, such as a host's own: each fault that could
/// take the clock out of range is refused where it is written.
pub(crate) fn check_wall_clock(
    file: &Located<'_>,
    specs: &[Spanned<FaultSpec>],
    faults: &[Fault],
    clock: &WallClock,
) -> Result<(), ScenarioError> {
    let low_ns = i128::from(WALL_LOW_NS);
    let high_ns = i128::from(WALL_HIGH_NS);
    let run_for_ns = clock.run_for_ns;
    let slew_gain_ns: i128 = faults
        .iter()
        .map(|fault| match *fault {
            Fault::WallSlew {
                at_ns,
                duration_ns,
                rate_ppb,
            } if rate_ppb > 0 => {
                let inside_ns = duration_ns.min(run_for_ns.saturating_sub(at_ns));
                i128::from(inside_ns) * i128::from(rate_ppb) / 1_000_000_000 + 1
            }
            _ => 0,
        })
        .sum();
    let mut latest_ns = clock.start_ns + i128::from(run_for_ns) + slew_gain_ns + clock.gain_ns;
    let mut earliest_ns = clock.start_ns;
    if latest_ns > high_ns {
        let message = format!("{} would run past the year 2261", clock.whose);
        return Err(file
            .error(clock.span.clone(), message)
            .with_hint(clock.hint));
    }
    let mut by_time: Vec<usize> = (0..faults.len()).collect();
    by_time.sort_by_key(|&index| faults[index].at_ns());
    for index in by_time {
        if let Fault::WallStep { by_ns, .. } = faults[index] {
            if by_ns > 0 {
                latest_ns += i128::from(by_ns);
            } else {
                earliest_ns += i128::from(by_ns);
            }
            if latest_ns > high_ns || earliest_ns < low_ns {
                let message = format!(
                    "the wall steps so far could take {} out of range",
                    clock.whose
                );
                return Err(file
                    .error(specs[index].span(), message)
                    .with_hint(clock.hint));
            }
        }
    }
    Ok(())
}
