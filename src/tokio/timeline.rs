//! The machine a harness run lives on: physical time, the platform's clocks and the fault
//! schedule, with what happened recorded as trace events. Nothing here touches tokio: each step
//! says how far tokio's paused clock must move, and the caller moves it.
//!
//! While the process runs, tokio's clock and physical time advance together, so one offset maps
//! either to the other. The offset changes only across a stop: a suspend whose clock `Instant`
//! does not count (a system sleep on Linux or Apple) leaves tokio's clock behind physical time.

use ticklab_sim::{ClockId, Edge, FaultEdge, FaultSchedule, Machine};

use super::events::{Busy, Note};
use crate::scenario::setting::Conditions;
use crate::trace::{Event, FaultEvent, ResumeEvent, TraceSink, Wall};

/// One recorded event, owned, in the order it happened.
#[derive(Clone, Debug)]
pub(crate) enum Recorded {
    FaultBegin(FaultEvent),
    FaultEnd(FaultEvent),
    WallStep(FaultEvent),
    Resume(ResumeEvent),
    Note(Note),
    Busy(Busy),
}

impl Recorded {
    pub(crate) fn write(&self, sink: &mut dyn TraceSink) -> std::io::Result<()> {
        match self {
            Recorded::FaultBegin(fault) => sink.record(&Event::FaultBegin(fault)),
            Recorded::FaultEnd(fault) => sink.record(&Event::FaultEnd(fault)),
            Recorded::WallStep(fault) => sink.record(&Event::WallStep(fault)),
            Recorded::Resume(resume) => sink.record(&Event::Resume(resume)),
            Recorded::Note(note) => sink.record(&Event::Model(note)),
            Recorded::Busy(busy) => sink.record(&Event::Model(busy)),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Timeline {
    machine: Machine,
    schedule: FaultSchedule,
    now_ns: u64,
    end_ns: u64,
    /// Physical time minus tokio's elapsed time, while the process runs.
    offset_ns: u64,
    over: bool,
    pub(crate) events: Vec<Recorded>,
    pub(crate) resumes: u64,
    pub(crate) busy_ns: u64,
    pub(crate) slept_ns: u64,
}

impl Timeline {
    pub(crate) fn new(conditions: &Conditions) -> Self {
        Timeline {
            machine: Machine::new(
                conditions.platform,
                conditions.instant_clock,
                conditions.wall_start_ns,
            ),
            schedule: FaultSchedule::new(&conditions.faults),
            now_ns: 0,
            end_ns: conditions.run_for_ns,
            offset_ns: 0,
            over: false,
            events: Vec::new(),
            resumes: 0,
            busy_ns: 0,
            slept_ns: 0,
        }
    }

    pub(crate) fn now_ns(&self) -> u64 {
        self.now_ns
    }

    pub(crate) fn is_over(&self) -> bool {
        self.over
    }

    /// `Instant::now()` since the run began, as tokio's clock must read it now.
    pub(crate) fn instant_ns(&self) -> u64 {
        self.machine.instant_ns(self.now_ns) as u64
    }

    /// `CLOCK_BOOTTIME` since the run began: it counts every suspend.
    pub(crate) fn boottime_ns(&self) -> u64 {
        self.machine.clocks().read(ClockId::Boottime, self.now_ns) as u64
    }

    pub(crate) fn wall(&self) -> Wall {
        Wall(self.machine.wall_ns(self.now_ns))
    }

    /// Catches physical time up with tokio's clock, which the runtime moved on its own while the
    /// process ran: auto-advance to a timer.
    pub(crate) fn catch_up(&mut self, instant_ns: u64) {
        let now_ns = instant_ns + self.offset_ns;
        assert!(
            now_ns >= self.now_ns,
            "tokio's clock went back from {} to {}",
            self.now_ns,
            now_ns
        );
        self.now_ns = now_ns;
    }

    /// When the next thing happens to the process, in physical time: a fault edge, or the end.
    /// `None` once the run is over.
    pub(crate) fn next_event_ns(&self) -> Option<u64> {
        if self.over {
            return None;
        }
        Some(
            self.schedule
                .peek_ns()
                .map_or(self.end_ns, |edge_ns| edge_ns.min(self.end_ns)),
        )
    }

    /// tokio's clock reading at physical `t_ns`, if the process runs until then.
    pub(crate) fn instant_at(&self, t_ns: u64) -> u64 {
        t_ns - self.offset_ns
    }

    /// Runs the process to physical `target_ns`, no later than the next event, and applies every
    /// fault edge due then, and those that follow while the process cannot run. Returns how far
    /// tokio's clock must move: the running time, plus any jump across a stop that `Instant`
    /// counts.
    pub(crate) fn run_to(&mut self, target_ns: u64) -> u64 {
        debug_assert!(self.next_event_ns().is_some_and(|next| target_ns <= next));
        let instant_before_ns = self.instant_ns();
        self.now_ns = target_ns.max(self.now_ns);
        while let Some(edge_ns) = self.schedule.peek_ns() {
            let due = edge_ns <= self.now_ns || !self.machine.can_run();
            if !due || edge_ns >= self.end_ns {
                break;
            }
            let edge = self.schedule.pop().expect("peeked edge");
            self.now_ns = edge_ns.max(self.now_ns);
            self.apply(&edge);
        }
        if !self.machine.can_run() || self.now_ns >= self.end_ns {
            self.now_ns = self.end_ns.max(self.now_ns);
            self.over = true;
        }
        let instant_after_ns = self.instant_ns();
        if !self.over {
            self.offset_ns = self.now_ns - instant_after_ns;
        }
        instant_after_ns.saturating_sub(instant_before_ns)
    }

    fn apply(&mut self, edge: &FaultEdge) {
        let effect = self.machine.apply(edge);
        let fault = FaultEvent {
            t_ns: self.now_ns,
            fault: edge.fault_index,
            kind: edge.fault.kind().name(),
            what: edge.fault.to_string(),
            host: None,
            instant_ns: self.instant_ns() as i64,
            wall: self.wall(),
        };
        self.events.push(match edge.edge {
            Edge::Begin => Recorded::FaultBegin(fault),
            Edge::End => Recorded::FaultEnd(fault),
            Edge::Point => Recorded::WallStep(fault),
        });
        if let Some(stopped_ns) = effect.resumed_after_ns {
            self.resumes += 1;
            self.events.push(Recorded::Resume(ResumeEvent {
                t_ns: self.now_ns,
                host: None,
                stopped_ns,
                instant_ns: self.instant_ns() as i64,
                wall: self.wall(),
            }));
        }
    }

    /// The label and physical time of the latest note.
    pub(crate) fn last_note(&self) -> Option<(&'static str, u64)> {
        self.events.iter().rev().find_map(|event| match event {
            Recorded::Note(note) => Some((note.label, note.t_ns)),
            _ => None,
        })
    }

    /// Records a note at the current moment.
    pub(crate) fn note(&mut self, label: &'static str, detail: String) {
        let gap_ns = self.events.iter().rev().find_map(|event| match event {
            Recorded::Note(note) if note.label == label => Some(self.now_ns - note.t_ns),
            _ => None,
        });
        self.events.push(Recorded::Note(Note {
            t_ns: self.now_ns,
            label,
            detail,
            instant_ns: self.instant_ns() as i64,
            wall: self.wall(),
            gap_ns,
        }));
    }

    /// Records a busy section, or a sleep, that began at `began` (physical, instant, wall) and has
    /// just ended.
    pub(crate) fn busy(&mut self, began: (u64, i64, Wall), busy_ns: u64, slept: bool) {
        if slept {
            self.slept_ns = self.slept_ns.saturating_add(busy_ns);
        } else {
            self.busy_ns = self.busy_ns.saturating_add(busy_ns);
        }
        self.events.push(Recorded::Busy(Busy {
            t_ns: began.0,
            busy_ns,
            took_ns: self.now_ns - began.0,
            instant_ns: began.1,
            wall: began.2,
            slept,
        }));
    }
}

#[cfg(test)]
mod tests {
    use ticklab_sim::{Fault, Platform};

    use super::*;

    const S: u64 = 1_000_000_000;

    fn timeline(platform: Platform, faults: Vec<Fault>) -> Timeline {
        Timeline::new(&Conditions {
            source: "test".into(),
            about: String::new(),
            platform,
            instant_clock: platform.instant_clock(),
            seed: 0,
            run_for_ns: 1_000 * S,
            wall_start_ns: 0,
            faults,
        })
    }

    #[test]
    fn a_sleep_jumps_tokio_on_windows_and_not_on_linux() {
        let sleep = vec![Fault::SystemSuspend {
            at_ns: 10 * S,
            duration_ns: 392 * S,
        }];
        for (platform, jump_ns, offset_ns) in [
            (Platform::Windows, 392 * S, 0),
            (Platform::Linux, 0, 392 * S),
        ] {
            let mut line = timeline(platform, sleep.clone());
            assert_eq!(line.next_event_ns(), Some(10 * S));
            // Ten seconds of running, then the stop, in one step.
            assert_eq!(line.run_to(10 * S), 10 * S + jump_ns, "{platform:?}");
            assert_eq!(line.now_ns(), 402 * S);
            assert_eq!(line.instant_at(500 * S), 500 * S - offset_ns);
            assert_eq!(line.resumes, 1);
        }
    }

    #[test]
    fn a_freeze_always_jumps_and_a_wall_step_never_does() {
        let mut line = timeline(
            Platform::Linux,
            vec![
                Fault::ProcessSuspend {
                    at_ns: 5 * S,
                    duration_ns: 264 * S,
                },
                Fault::WallStep {
                    at_ns: 300 * S,
                    by_ns: -3_600 * S as i64,
                },
            ],
        );
        assert_eq!(line.run_to(5 * S), 269 * S);
        assert_eq!(line.next_event_ns(), Some(300 * S));
        assert_eq!(line.run_to(300 * S), 31 * S);
        assert_eq!(line.wall().0, (300 - 3_600) * S as i64);
        assert_eq!(
            line.machine.clocks().read(ClockId::Monotonic, 300 * S),
            300 * S as i64
        );
    }

    #[test]
    fn a_suspend_past_the_end_ends_the_run() {
        let mut line = timeline(
            Platform::Windows,
            vec![Fault::SystemSuspend {
                at_ns: 990 * S,
                duration_ns: 100 * S,
            }],
        );
        line.run_to(990 * S);
        assert!(line.is_over());
        assert_eq!(line.now_ns(), 1_000 * S);
        assert_eq!(line.next_event_ns(), None);
    }
}
