//! One machine: its clocks, the platform that decides what `Instant` reads, and whether the
//! simulated process can run right now.

use crate::clock::{ClockId, Clocks};
use crate::fault::{Edge, Fault, FaultEdge};
use crate::platform::Platform;

/// What applying a fault edge changed, for the world to act on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeEffect {
    /// The process could run before the edge and cannot after it.
    pub stopped: bool,
    /// The process can run again; the value is how long it could not, in physical ns.
    pub resumed_after_ns: Option<u64>,
    /// A clock whose mapping to physical time changed, so waits on it must be re-derived.
    pub changed_clock: Option<ClockId>,
    /// Outside load that starts or stops on the machine's cores.
    pub cpu_load: Option<LoadEdge>,
}

/// Threads of outside load that start or stop computing at a `cpu-load` fault's edge: `threads`
/// of them (one per core if `None`), each wanting `share_ppm` of its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadEdge {
    Starts {
        threads: Option<u32>,
        share_ppm: u32,
    },
    Stops {
        threads: Option<u32>,
        share_ppm: u32,
    },
}

#[derive(Clone, Debug)]
pub struct Machine {
    platform: Platform,
    instant_clock: ClockId,
    /// `instant_clock`'s reading at physical zero, so `Instant` readings start at zero.
    instant_origin_ns: i64,
    clocks: Clocks,
    system_suspends: u32,
    process_suspends: u32,
    stopped_since_ns: Option<u64>,
    /// When the process last became able to run: physical zero until a fault stops it.
    running_since_ns: u64,
}

impl Machine {
    /// A machine on `platform` whose `Instant` reads `instant_clock` (normally
    /// `platform.instant_clock()`), with the wall clock at `wall_start_ns` at physical zero.
    pub fn new(platform: Platform, instant_clock: ClockId, wall_start_ns: i64) -> Self {
        let clocks = Clocks::new(wall_start_ns);
        Machine {
            platform,
            instant_clock,
            instant_origin_ns: clocks.read(instant_clock, 0),
            clocks,
            system_suspends: 0,
            process_suspends: 0,
            stopped_since_ns: None,
            running_since_ns: 0,
        }
    }

    pub fn platform(&self) -> Platform {
        self.platform
    }

    pub fn instant_clock(&self) -> ClockId {
        self.instant_clock
    }

    pub fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    /// `Instant::now()` at physical time `now_ns`, as nanoseconds since the run started.
    #[inline]
    pub fn instant_ns(&self, now_ns: u64) -> i64 {
        self.clocks
            .read(self.instant_clock, now_ns)
            .saturating_sub(self.instant_origin_ns)
    }

    /// Converts an `Instant` reading into the reading of the clock behind it.
    #[inline]
    pub fn instant_to_clock_ns(&self, instant_ns: i64) -> i64 {
        instant_ns.saturating_add(self.instant_origin_ns)
    }

    /// `SystemTime::now()` at `now_ns`, as nanoseconds since the Unix epoch.
    #[inline]
    pub fn wall_ns(&self, now_ns: u64) -> i64 {
        self.clocks.read(ClockId::Wall, now_ns)
    }

    /// The process runs only while the system is awake and the process is not frozen.
    #[inline]
    pub fn can_run(&self) -> bool {
        self.system_suspends == 0 && self.process_suspends == 0
    }

    /// Since when the process has been able to run, in physical ns; `None` while it cannot. A
    /// check of what the process should have done counts only from here.
    #[inline]
    pub fn running_since_ns(&self) -> Option<u64> {
        self.can_run().then_some(self.running_since_ns)
    }

    /// Whether the system is awake, whatever its process is doing: a frozen process's machine
    /// still takes packets off the wire.
    #[inline]
    pub fn system_awake(&self) -> bool {
        self.system_suspends == 0
    }

    /// Applies one fault edge at physical time `edge.at_ns`.
    pub fn apply(&mut self, edge: &FaultEdge) -> EdgeEffect {
        let now_ns = edge.at_ns;
        let could_run = self.can_run();
        let mut changed_clock = None;
        match (edge.fault, edge.edge) {
            (Fault::SystemSuspend { .. }, Edge::Begin) => {
                self.system_suspends += 1;
                if self.system_suspends == 1 {
                    self.clocks.suspend(now_ns);
                    changed_clock = Some(ClockId::Monotonic);
                }
            }
            (Fault::SystemSuspend { .. }, _) => {
                self.system_suspends -= 1;
                if self.system_suspends == 0 {
                    self.clocks.resume(now_ns);
                    changed_clock = Some(ClockId::Monotonic);
                }
            }
            (Fault::ProcessSuspend { .. }, Edge::Begin) => self.process_suspends += 1,
            (Fault::ProcessSuspend { .. }, _) => self.process_suspends -= 1,
            (Fault::WallStep { by_ns, .. }, _) => {
                self.clocks.step_wall(now_ns, by_ns);
                changed_clock = Some(ClockId::Wall);
            }
            (Fault::WallSlew { rate_ppb, .. }, edge) => {
                let delta_ppb = if edge == Edge::End {
                    -rate_ppb
                } else {
                    rate_ppb
                };
                self.clocks.slew_wall(now_ns, delta_ppb);
                changed_clock = Some(ClockId::Wall);
            }
            (Fault::CpuLoad { .. }, _) => {}
        }
        let cpu_load = match (edge.fault, edge.edge) {
            (
                Fault::CpuLoad {
                    threads, share_ppm, ..
                },
                Edge::Begin,
            ) => Some(LoadEdge::Starts { threads, share_ppm }),
            (
                Fault::CpuLoad {
                    threads, share_ppm, ..
                },
                _,
            ) => Some(LoadEdge::Stops { threads, share_ppm }),
            _ => None,
        };
        let mut effect = EdgeEffect {
            changed_clock,
            cpu_load,
            ..EdgeEffect::default()
        };
        match (could_run, self.can_run()) {
            (true, false) => {
                self.stopped_since_ns = Some(now_ns);
                effect.stopped = true;
            }
            (false, true) => {
                let since_ns = self.stopped_since_ns.take().unwrap_or(now_ns);
                effect.resumed_after_ns = Some(now_ns - since_ns);
                self.running_since_ns = now_ns;
            }
            _ => {}
        }
        effect
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::FaultSchedule;

    fn apply_all(machine: &mut Machine, faults: &[Fault]) -> Vec<(u64, EdgeEffect)> {
        let mut schedule = FaultSchedule::new(faults);
        std::iter::from_fn(|| schedule.pop())
            .map(|edge| (edge.at_ns, machine.apply(&edge)))
            .collect()
    }

    #[test]
    fn freezer_around_a_system_suspend_stops_once_and_resumes_once() {
        let mut machine = Machine::new(Platform::Linux, ClockId::Monotonic, 0);
        let effects = apply_all(
            &mut machine,
            &[
                Fault::ProcessSuspend {
                    at_ns: 90,
                    duration_ns: 130,
                },
                Fault::SystemSuspend {
                    at_ns: 100,
                    duration_ns: 100,
                },
            ],
        );
        let stops: Vec<_> = effects
            .iter()
            .filter(|(_, e)| e.stopped)
            .map(|(t, _)| *t)
            .collect();
        let resumes: Vec<_> = effects
            .iter()
            .filter_map(|(t, e)| e.resumed_after_ns.map(|d| (*t, d)))
            .collect();
        assert_eq!(stops, [90]);
        assert_eq!(resumes, [(220, 130)]);
        // Monotonic stopped only for the system suspend itself.
        assert_eq!(machine.instant_ns(220), 120);
        assert!(machine.can_run());
    }

    #[test]
    fn windows_instant_counts_sleep_and_linux_instant_does_not() {
        let sleep = [Fault::SystemSuspend {
            at_ns: 10,
            duration_ns: 1_000,
        }];
        for (platform, expected_ns) in [(Platform::Windows, 2_000), (Platform::Linux, 1_000)] {
            let mut machine = Machine::new(platform, platform.instant_clock(), 0);
            apply_all(&mut machine, &sleep);
            assert_eq!(machine.instant_ns(2_000), expected_ns, "{platform:?}");
        }
    }

    #[test]
    fn instant_on_the_wall_clock_starts_at_zero() {
        let mut machine = Machine::new(Platform::Linux, ClockId::Wall, 1_584_022_098_000_000_000);
        assert_eq!(machine.instant_ns(5), 5);
        apply_all(
            &mut machine,
            &[Fault::WallStep {
                at_ns: 10,
                by_ns: -100,
            }],
        );
        assert_eq!(machine.instant_ns(10), -90);
    }
}
