//! Validation of `[[fault]]` tables into the world's [`Fault`]s.

use ticklab_sim::{Fault, FaultKind};
use toml::Spanned;

use super::schema::FaultSpec;
use super::{Located, ScenarioError};

/// The most a wall step may move the clock, so wall readings stay printable dates.
const MAX_WALL_STEP_NS: i64 = 100 * 365 * 86_400 * 1_000_000_000;

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
    let kind = fault.kind.0;
    let at_ns = fault.at.get_ref().0;
    if at_ns >= run_for_ns {
        return Err(file
            .error(fault.at.span(), "this fault starts after the run has ended")
            .with_hint(
                "faults must start before `run_for`; lengthen `run_for` or move the fault earlier",
            ));
    }
    let not_for = |key: &str, span| {
        file.error(
            span,
            format!("`{key}` does not apply to a {} fault", kind.name()),
        )
        .with_hint(format!("remove `{key}`; {}", keys_for(kind)))
    };
    let needs = |key: &str| {
        file.error(
            spec.span(),
            format!("a {} fault needs `{key}`", kind.name()),
        )
        .with_hint(keys_for(kind))
    };
    let positive_duration = || -> Result<u64, ScenarioError> {
        let duration = fault.duration.as_ref().ok_or_else(|| needs("duration"))?;
        match duration.get_ref().0 {
            0 => Err(file.error(duration.span(), "a fault's duration must be more than zero")),
            ns => Ok(ns),
        }
    };
    match kind {
        FaultKind::SystemSuspend | FaultKind::ProcessSuspend => {
            if let Some(by) = &fault.by {
                return Err(not_for("by", by.span()));
            }
            if let Some(rate) = &fault.rate {
                return Err(not_for("rate", rate.span()));
            }
            let duration_ns = positive_duration()?;
            Ok(match kind {
                FaultKind::SystemSuspend => Fault::SystemSuspend { at_ns, duration_ns },
                _ => Fault::ProcessSuspend { at_ns, duration_ns },
            })
        }
        FaultKind::WallStep => {
            if let Some(duration) = &fault.duration {
                return Err(not_for("duration", duration.span()));
            }
            if let Some(rate) = &fault.rate {
                return Err(not_for("rate", rate.span()));
            }
            let by = fault.by.as_ref().ok_or_else(|| needs("by"))?;
            let by_ns = by.get_ref().0;
            if by_ns == 0 || by_ns.abs() > MAX_WALL_STEP_NS {
                return Err(file.error(
                    by.span(),
                    "a wall step must be non-zero and at most 100 years either way",
                ));
            }
            Ok(Fault::WallStep { at_ns, by_ns })
        }
        FaultKind::WallSlew => {
            if let Some(by) = &fault.by {
                return Err(not_for("by", by.span()));
            }
            let rate = fault.rate.as_ref().ok_or_else(|| needs("rate"))?;
            let value = *rate.get_ref();
            if !(value > -1.0 && value < 1.0) {
                return Err(file
                    .error(
                        rate.span(),
                        format!("a slew rate must be between -1 and 1, not {value}"),
                    )
                    .with_hint(
                        "rates are fractions of real time: NTP slews at most 0.0005 (500 ppm)",
                    ));
            }
            let duration_ns = positive_duration()?;
            Ok(Fault::WallSlew {
                at_ns,
                duration_ns,
                rate_ppb: (value * 1e9).round() as i64,
            })
        }
    }
}

fn keys_for(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::SystemSuspend | FaultKind::ProcessSuspend => "suspends take `at` and `duration`",
        FaultKind::WallStep => "wall steps take `at` and `by`, such as by = \"-1h\"",
        FaultKind::WallSlew => "wall slews take `at`, `duration` and `rate`, such as rate = 0.0005",
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
        if total_ppb <= -1_000_000_000 {
            return Err(file
                .error(
                    specs[index].span(),
                    "overlapping slews would stop or reverse the wall clock",
                )
                .with_hint("the rates of slews that overlap add up, and must stay above -1"));
        }
    }
    Ok(())
}
