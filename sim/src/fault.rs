//! Faults a real machine throws at a program, and the schedule of their edges.
//!
//! A fault with a duration has a begin and an end edge; a wall step is a single point. Faults may
//! overlap freely: the [`Machine`](crate::Machine) counts how many suspends of each kind are under
//! way, so a process frozen before and thawed after a system suspend (as the Linux freezer does)
//! composes without special cases.

use std::fmt;

use crate::time::Compact;

/// One fault, in physical time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The whole machine sleeps: nothing runs, and the monotonic clock stops.
    SystemSuspend { at_ns: u64, duration_ns: u64 },
    /// The process is frozen (SIGSTOP, a debugger, an app in the background); all clocks run.
    ProcessSuspend { at_ns: u64, duration_ns: u64 },
    /// The wall clock jumps by `by_ns`.
    WallStep { at_ns: u64, by_ns: i64 },
    /// The wall clock runs `rate_ppb` parts per billion fast (or slow, if negative).
    WallSlew {
        at_ns: u64,
        duration_ns: u64,
        rate_ppb: i64,
    },
    /// Other programs keep `threads` threads (one per core if `None`) computing on the
    /// machine's cores from `at_ns` for `duration_ns`: a compaction, a backup, a noisy
    /// neighbour. Each wants `share_ppm` parts per million of its time, in bursts arriving at
    /// random, or all of it at [`FULL_SHARE_PPM`]. Every clock runs on.
    CpuLoad {
        at_ns: u64,
        duration_ns: u64,
        threads: Option<u32>,
        share_ppm: u32,
    },
}

/// A `cpu-load` thread that wants all of its time computes without a break.
pub const FULL_SHARE_PPM: u32 = 1_000_000;

/// The closed set of fault kinds, named as in scenario files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    SystemSuspend,
    ProcessSuspend,
    WallStep,
    WallSlew,
    CpuLoad,
}

impl FaultKind {
    pub const ALL: [FaultKind; 5] = [
        FaultKind::SystemSuspend,
        FaultKind::ProcessSuspend,
        FaultKind::WallStep,
        FaultKind::WallSlew,
        FaultKind::CpuLoad,
    ];
    /// Names as scenario files spell them, in the order of [`FaultKind::ALL`].
    pub const NAMES: &'static [&'static str] = &[
        "system-suspend",
        "process-suspend",
        "wall-step",
        "wall-slew",
        "cpu-load",
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl Fault {
    pub fn kind(&self) -> FaultKind {
        match self {
            Fault::SystemSuspend { .. } => FaultKind::SystemSuspend,
            Fault::ProcessSuspend { .. } => FaultKind::ProcessSuspend,
            Fault::WallStep { .. } => FaultKind::WallStep,
            Fault::WallSlew { .. } => FaultKind::WallSlew,
            Fault::CpuLoad { .. } => FaultKind::CpuLoad,
        }
    }

    pub fn at_ns(&self) -> u64 {
        match *self {
            Fault::SystemSuspend { at_ns, .. }
            | Fault::ProcessSuspend { at_ns, .. }
            | Fault::WallStep { at_ns, .. }
            | Fault::WallSlew { at_ns, .. }
            | Fault::CpuLoad { at_ns, .. } => at_ns,
        }
    }

    /// How long the fault lasts; zero for a step.
    pub fn duration_ns(&self) -> u64 {
        match *self {
            Fault::SystemSuspend { duration_ns, .. }
            | Fault::ProcessSuspend { duration_ns, .. }
            | Fault::WallSlew { duration_ns, .. }
            | Fault::CpuLoad { duration_ns, .. } => duration_ns,
            Fault::WallStep { .. } => 0,
        }
    }

    /// When the fault ends; saturates for faults that outlast any run.
    pub fn end_ns(&self) -> u64 {
        self.at_ns().saturating_add(self.duration_ns())
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.kind().name();
        match *self {
            Fault::SystemSuspend { duration_ns, .. }
            | Fault::ProcessSuspend { duration_ns, .. } => {
                write!(f, "{name} for {}", Compact(duration_ns as i64))
            }
            Fault::WallStep { by_ns, .. } => {
                let sign = if by_ns >= 0 { "+" } else { "" };
                write!(f, "{name} by {sign}{}", Compact(by_ns))
            }
            Fault::WallSlew {
                duration_ns,
                rate_ppb,
                ..
            } => {
                write!(
                    f,
                    "{name} at rate {} for {}",
                    Rate(rate_ppb),
                    Compact(duration_ns as i64)
                )
            }
            Fault::CpuLoad {
                duration_ns,
                threads,
                share_ppm,
                ..
            } => {
                match threads {
                    Some(threads) => {
                        let plural = if threads == 1 { "" } else { "s" };
                        write!(f, "{name} of {threads} thread{plural}")?;
                    }
                    None => write!(f, "{name} of a thread per core")?,
                }
                if share_ppm < FULL_SHARE_PPM {
                    write!(f, " at {}%", f64::from(share_ppm) / 1e4)?;
                }
                write!(f, " for {}", Compact(duration_ns as i64))
            }
        }
    }
}

/// Displays a rate given in parts per billion as the decimal fraction scenario files use (`+0.0005`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate(pub i64);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "+" };
        let ppb = self.0.unsigned_abs();
        let fraction = format!("{:09}", ppb % 1_000_000_000);
        let fraction = fraction.trim_end_matches('0');
        let dot = if fraction.is_empty() { "" } else { "." };
        write!(f, "{sign}{}{dot}{fraction}", ppb / 1_000_000_000)
    }
}

/// Which side of a fault an edge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Edge {
    Begin,
    /// A fault without duration (a wall step) happens at a single point.
    Point,
    End,
}

/// One edge of one fault: the unit the world applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultEdge {
    pub at_ns: u64,
    pub edge: Edge,
    /// Position of the fault in the scenario, so trace readers can pair begins with ends.
    pub fault_index: usize,
    pub fault: Fault,
}

/// Every fault edge of a run, in the order the world applies them.
#[derive(Clone, Debug, Default)]
pub struct FaultSchedule {
    edges: Vec<FaultEdge>,
    next: usize,
}

impl FaultSchedule {
    /// Orders edges by time; at equal times begins come before ends, so back-to-back faults of one
    /// kind join into one continuous fault instead of opening a zero-length gap between them.
    pub fn new(faults: &[Fault]) -> Self {
        let mut edges = Vec::with_capacity(faults.len() * 2);
        for (fault_index, fault) in faults.iter().enumerate() {
            let begin = match fault {
                Fault::WallStep { .. } => Edge::Point,
                _ if fault.duration_ns() == 0 => continue,
                _ => Edge::Begin,
            };
            edges.push(FaultEdge {
                at_ns: fault.at_ns(),
                edge: begin,
                fault_index,
                fault: *fault,
            });
            if begin == Edge::Begin {
                edges.push(FaultEdge {
                    at_ns: fault.end_ns(),
                    edge: Edge::End,
                    fault_index,
                    fault: *fault,
                });
            }
        }
        edges.sort_by_key(|e| (e.at_ns, e.edge == Edge::End, e.fault_index));
        FaultSchedule { edges, next: 0 }
    }

    /// When the next edge happens, if any is left.
    #[inline]
    pub fn peek_ns(&self) -> Option<u64> {
        self.edges.get(self.next).map(|edge| edge.at_ns)
    }

    pub fn pop(&mut self) -> Option<FaultEdge> {
        let edge = self.edges.get(self.next).copied();
        self.next += usize::from(edge.is_some());
        edge
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_back_faults_begin_before_the_earlier_one_ends() {
        let schedule = FaultSchedule::new(&[
            Fault::ProcessSuspend {
                at_ns: 10,
                duration_ns: 5,
            },
            Fault::ProcessSuspend {
                at_ns: 15,
                duration_ns: 5,
            },
            Fault::WallStep {
                at_ns: 12,
                by_ns: -1,
            },
        ]);
        let order: Vec<_> = schedule
            .edges
            .iter()
            .map(|e| (e.at_ns, e.edge, e.fault_index))
            .collect();
        assert_eq!(
            order,
            [
                (10, Edge::Begin, 0),
                (12, Edge::Point, 2),
                (15, Edge::Begin, 1),
                (15, Edge::End, 0),
                (20, Edge::End, 1)
            ]
        );
    }

    #[test]
    fn faults_that_last_no_time_have_no_edges() {
        let schedule = FaultSchedule::new(&[
            Fault::SystemSuspend {
                at_ns: 10,
                duration_ns: 0,
            },
            Fault::WallSlew {
                at_ns: 10,
                duration_ns: 0,
                rate_ppb: 7,
            },
            Fault::WallStep {
                at_ns: 10,
                by_ns: 0,
            },
        ]);
        let edges: Vec<_> = schedule
            .edges
            .iter()
            .map(|e| (e.edge, e.fault_index))
            .collect();
        assert_eq!(edges, [(Edge::Point, 2)]);
    }

    #[test]
    fn faults_describe_themselves_as_in_scenario_files() {
        let slew = Fault::WallSlew {
            at_ns: 0,
            duration_ns: 60_000_000_000,
            rate_ppb: 500_000,
        };
        assert_eq!(slew.to_string(), "wall-slew at rate +0.0005 for 1m");
        let step = Fault::WallStep {
            at_ns: 0,
            by_ns: -3_600_000_000_000,
        };
        assert_eq!(step.to_string(), "wall-step by -1h");
    }
}
