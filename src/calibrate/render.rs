//! A calibration as profile text, laid out as `profiles/reference.toml` is.

use std::fmt::Write;

use super::{Calibration, MIB};
use crate::profile::{Cost, Costs};

/// Comment lines are wrapped to this width, as the reference profile's are.
const COMMENT_WIDTH: usize = 100;

/// A figure's value as the profile gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Figure {
    Cost(Cost),
    Duration(u64),
}

/// Every figure with its name, in the order of [`crate::profile::COST_NAMES`].
fn figures(costs: &Costs) -> [(&'static str, Figure); 12] {
    use Figure::{Cost, Duration};
    [
        ("sched_yield", Cost(costs.sched_yield)),
        ("nanosleep_zero", Cost(costs.nanosleep_zero)),
        ("nanosleep_zero_cpu", Cost(costs.nanosleep_zero_cpu)),
        ("timer_slack", Duration(costs.timer_slack_ns)),
        ("spin_iteration", Cost(costs.spin_iteration)),
        (
            "condvar_timeout_overshoot",
            Cost(costs.condvar_timeout_overshoot),
        ),
        ("condvar_signal_to_wake", Cost(costs.condvar_signal_to_wake)),
        (
            "epoll_timeout_overshoot",
            Cost(costs.epoll_timeout_overshoot),
        ),
        ("fork_base", Cost(costs.fork_base)),
        ("fork_per_gib", Cost(costs.fork_per_gib)),
        ("vfork", Cost(costs.vfork)),
        ("posix_spawn", Cost(costs.posix_spawn)),
    ]
}

impl Calibration {
    /// The profile as TOML: a header saying where it came from, `about`, and `[costs]` with
    /// each figure under comments saying how it was measured.
    pub fn to_toml(&self) -> String {
        let mut text = String::new();
        let comment = |text: &mut String, line: &str| {
            for wrapped in wrap(line, COMMENT_WIDTH - 2) {
                writeln!(text, "# {wrapped}").expect("writing to a String cannot fail");
            }
        };
        comment(
            &mut text,
            &format!(
                "Measured on this host by `ticklab calibrate` ({} mode): each figure is the p50 \
                 and p99 of real system calls, timed on the monotonic clock and rounded to three \
                 significant digits.",
                self.mode.name()
            ),
        );
        comment(
            &mut text,
            &format!(
                "Host: {}; MemAvailable {} MiB at the start.",
                self.host.describe(),
                self.host.mem_available_bytes / MIB
            ),
        );
        let about = format!(
            "{}, measured by ticklab calibrate in {} mode",
            self.host.describe(),
            self.mode.name()
        );
        writeln!(text, "about = {}", toml::Value::String(about)).expect("writing to a String");
        text.push_str("\n[costs]\n");
        for (index, (name, figure)) in figures(&self.costs).into_iter().enumerate() {
            if index > 0 {
                text.push('\n');
            }
            for note in self.notes.get(name).into_iter().flatten() {
                comment(&mut text, note);
            }
            let value = match figure {
                Figure::Cost(cost) => format!(
                    "{{ p50 = \"{}\", p99 = \"{}\" }}",
                    duration(cost.p50_ns),
                    duration(cost.p99_ns)
                ),
                Figure::Duration(ns) => format!("\"{}\"", duration(ns)),
            };
            writeln!(text, "{name} = {value}").expect("writing to a String cannot fail");
        }
        text
    }
}

/// `ns` as a duration string such as "67.1us" or "1.25ms", to three significant digits: runs of
/// the same measurement differ by more than that. Rounding never lowers a value below 1 ns nor
/// reorders two values, so a valid p50 and p99 stay valid.
pub(super) fn duration(ns: u64) -> String {
    let ns = three_significant_digits(ns);
    let (unit_ns, unit) = match ns {
        0..1_000 => (1, "ns"),
        1_000..1_000_000 => (1_000, "us"),
        1_000_000..1_000_000_000 => (1_000_000, "ms"),
        _ => (1_000_000_000, "s"),
    };
    let whole = ns / unit_ns;
    let fraction = ns % unit_ns;
    if fraction == 0 {
        return format!("{whole}{unit}");
    }
    let digits = unit_ns.ilog10() as usize;
    let fraction = format!("{fraction:0digits$}");
    format!("{whole}.{}{unit}", fraction.trim_end_matches('0'))
}

fn three_significant_digits(ns: u64) -> u64 {
    if ns < 1_000 {
        return ns;
    }
    let scale = 10u64.pow(ns.ilog10() - 2);
    (ns / scale + u64::from(ns % scale >= scale / 2)).saturating_mul(scale)
}

/// Splits `line` at spaces into lines of at most `width` characters (a longer word stands alone),
/// each keeping the line's indentation.
fn wrap(line: &str, width: usize) -> Vec<String> {
    let words = line.trim_start_matches(' ');
    let indent = &line[..line.len() - words.len()];
    let mut lines = Vec::new();
    let mut current = indent.to_string();
    for word in words.split(' ').filter(|word| !word.is_empty()) {
        if current.len() > indent.len() && current.len() + 1 + word.len() > width {
            lines.push(std::mem::replace(&mut current, indent.to_string()));
        }
        if current.len() > indent.len() {
            current.push(' ');
        }
        current.push_str(word);
    }
    lines.push(current);
    lines
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::{Host, Mode};
    use super::*;
    use crate::profile::{COST_NAMES, parse};
    use crate::scenario::values::parse_duration_ns;

    #[test]
    fn durations_keep_three_significant_digits_and_parse_back() {
        let cases = [
            (1, "1ns", 1),
            (999, "999ns", 999),
            (1_250, "1.25us", 1_250),
            (1_254, "1.25us", 1_250),
            (67_000, "67us", 67_000),
            (67_149, "67.1us", 67_100),
            (999_600, "1ms", 1_000_000),
            (25_049_999, "25ms", 25_000_000),
            (2_500_000_000, "2.5s", 2_500_000_000),
        ];
        for (ns, written, read_ns) in cases {
            assert_eq!(duration(ns), written, "{ns} ns");
            assert_eq!(parse_duration_ns(written).unwrap(), read_ns, "{written}");
        }
    }

    #[test]
    fn long_comments_wrap_at_spaces() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("a verylongword b", 4), ["a", "verylongword", "b"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("  aa bb cc", 7), ["  aa bb", "  cc"]);
    }

    fn calibration() -> Calibration {
        let cost = |p50_ns, p99_ns| Cost { p50_ns, p99_ns };
        Calibration {
            mode: Mode::Quick,
            host: Host {
                system: "Linux".to_string(),
                node: "build \"7\"".to_string(),
                release: "6.8.0".to_string(),
                machine: "x86_64".to_string(),
                cpus: 2,
                mem_available_bytes: 8 * 1024 * MIB,
            },
            costs: Costs {
                sched_yield: cost(512, 1_657),
                nanosleep_zero: cost(67_149, 97_000),
                nanosleep_zero_cpu: cost(3_100, 4_000),
                timer_slack_ns: 50_000,
                spin_iteration: cost(1, 1),
                condvar_timeout_overshoot: cost(72_000, 102_000),
                condvar_signal_to_wake: cost(9_400, 20_000),
                epoll_timeout_overshoot: cost(85_000, 110_000),
                fork_base: cost(56_000, 80_000),
                fork_per_gib: cost(25_049_999, 30_000_000),
                vfork: cost(30_000, 50_000),
                posix_spawn: cost(110_000, 150_000),
            },
            notes: BTreeMap::from([(
                "fork_per_gib",
                vec![
                    "Least-squares slope through:".to_string(),
                    "  fork +0 MiB: p50 56us".to_string(),
                ],
            )]),
        }
    }

    #[test]
    fn the_text_is_a_profile_with_every_figure_rounded() {
        let text = calibration().to_toml();
        assert!(
            text.starts_with("# Measured on this host by `ticklab calibrate` (quick mode)"),
            "{text}"
        );
        assert!(
            text.contains(
                "\n# Host: Linux 6.8.0 x86_64 on build \"7\", 2 CPUs; MemAvailable 8192 MiB"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "\n# Least-squares slope through:\n#   fork +0 MiB: p50 56us\nfork_per_gib = { p50 = \"25ms\", p99 = \"30ms\" }\n"
            ),
            "{text}"
        );
        let profile = parse("host.toml", &text).unwrap();
        assert_eq!(
            profile.about,
            "Linux 6.8.0 x86_64 on build \"7\", 2 CPUs, measured by ticklab calibrate in quick mode"
        );
        let mut expected = calibration().costs;
        expected.sched_yield.p99_ns = 1_660;
        expected.nanosleep_zero.p50_ns = 67_100;
        expected.fork_per_gib.p50_ns = 25_000_000;
        assert_eq!(profile.costs, expected);
    }

    #[test]
    fn figures_come_in_the_order_profiles_list_them() {
        let names = figures(&calibration().costs).map(|(name, _)| name);
        assert_eq!(names, COST_NAMES);
    }
}
