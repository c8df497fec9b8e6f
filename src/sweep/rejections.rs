//! Why a sweep rejected cases: each kind counted, with the first case of the kind and its reason,
//! so that "10 rejected" never stands without one.

use std::fmt;

/// Why a case was not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RejectionKind {
    /// Its work could pass the event limit.
    TooMuchWork,
    /// What it holds could pass the memory limit.
    TooMuchMemory,
    /// The scenario format refuses it, such as a wall clock pushed out of range.
    Invalid,
}

impl fmt::Display for RejectionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RejectionKind::TooMuchWork => "over the event limit",
            RejectionKind::TooMuchMemory => "over the memory limit",
            RejectionKind::Invalid => "invalid",
        })
    }
}

/// A rejected case: what kind of rejection, and the reason in full.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub kind: RejectionKind,
    pub why: String,
}

impl Rejection {
    /// A case the scenario format refuses, from its rendered error: the message, and the line of
    /// the case it points at. The position is left out, as it is in the generated case rather
    /// than in `source`.
    pub(crate) fn invalid(source: &str, error: &str) -> Rejection {
        let mut lines = error.lines();
        let headline = lines.next().unwrap_or_default();
        let message = headline.strip_prefix(source).map_or(headline, |rest| {
            let rest = rest.trim_start_matches(|c: char| c == ':' || c.is_ascii_digit());
            rest.trim_start()
        });
        // An excerpt's line reads ` 17 | at = "5s"`.
        let pointed = lines.find_map(|line| {
            let (number, text) = line.split_once(" | ")?;
            let number = number.trim();
            (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
                .then_some(text.trim())
        });
        let why = match pointed {
            Some(text) if !text.is_empty() => format!("{message}: `{text}`"),
            _ => message.to_string(),
        };
        Rejection {
            kind: RejectionKind::Invalid,
            why,
        }
    }
}

/// The cases of one kind of rejection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectedGroup {
    pub kind: RejectionKind,
    pub count: u64,
    pub first_case: u64,
    pub first_why: String,
}

/// Every rejection of a sweep, grouped by kind in the kinds' order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rejections {
    groups: Vec<RejectedGroup>,
}

impl Rejections {
    pub fn record(&mut self, case: u64, rejection: Rejection) {
        match self
            .groups
            .iter_mut()
            .find(|group| group.kind == rejection.kind)
        {
            Some(group) => group.count += 1,
            None => {
                self.groups.push(RejectedGroup {
                    kind: rejection.kind,
                    count: 1,
                    first_case: case,
                    first_why: rejection.why,
                });
                self.groups.sort_by_key(|group| group.kind);
            }
        }
    }

    pub fn groups(&self) -> &[RejectedGroup] {
        &self.groups
    }
}

/// `7 over the event limit (first, case 3: …); 3 invalid (first, case 5: …)`.
impl fmt::Display for Rejections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, group) in self.groups.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            let why = group.first_why.lines().collect::<Vec<_>>().join(" ");
            let first = match group.count {
                1 => format!("case {}", group.first_case),
                _ => format!("first, case {}", group.first_case),
            };
            write!(f, "{} {} ({first}: {why})", group.count, group.kind)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_are_counted_by_kind_with_the_first_reason_of_each() {
        let mut rejections = Rejections::default();
        rejections.record(
            5,
            Rejection::invalid(
                "base.toml",
                "base.toml:17:5: this starts after the run has ended\n   |\n17 | at = \"5s\"\n   \
                 |      ^^^^\n  hint: network faults must start before `run_for`",
            ),
        );
        for case in [3, 8] {
            rejections.record(
                case,
                Rejection {
                    kind: RejectionKind::TooMuchWork,
                    why: format!("up to {case} events"),
                },
            );
        }
        assert_eq!(
            rejections.to_string(),
            "2 over the event limit (first, case 3: up to 3 events); \
             1 invalid (case 5: this starts after the run has ended: `at = \"5s\"`)"
        );
    }
}
