//! The world: one machine, its faults, its simulated threads and the event queue, advanced one
//! event at a time.
//!
//! The world knows nothing about the model it hosts. A runner asks it for wakes on some clock
//! (`wake_at`), pulls [`Step`]s, and reacts; the world decides when each wake really happens,
//! given suspends, freezes and clock changes.

use crate::clock::ClockId;
use crate::cpu::{SimThread, ThreadCpu, ThreadId};
use crate::fault::{Fault, FaultEdge, FaultSchedule};
use crate::machine::{EdgeEffect, Machine};
use crate::platform::Platform;
use crate::queue::{Deadline, Due, EventQueue, MAX_SEQ};

/// Everything needed to build a world.
#[derive(Clone, Debug)]
pub struct WorldConfig {
    pub platform: Platform,
    /// The clock `Instant` reads; normally `platform.instant_clock()`.
    pub instant_clock: ClockId,
    /// The wall clock at physical zero, in ns since the Unix epoch.
    pub wall_start_ns: i64,
    /// Physical length of the run; events at or after it never happen.
    pub run_for_ns: u64,
    pub faults: Vec<Fault>,
}

/// What happened next.
#[derive(Clone, Copy, Debug)]
pub enum Step<P> {
    /// A wake asked for with [`World::wake_at`] is due, and the process can run.
    Wake { payload: P, deadline: Deadline },
    /// A fault edge was applied.
    Fault { edge: FaultEdge, effect: EdgeEffect },
    /// The run is over; the world's time is now `run_for_ns`.
    End,
}

#[derive(Debug)]
pub struct World<P> {
    now_ns: u64,
    end_ns: u64,
    machine: Machine,
    faults: FaultSchedule,
    queue: EventQueue<P>,
    /// Wakes that came due while nothing could run; re-filed when the process resumes.
    parked: Vec<Due<P>>,
    next_seq: u64,
    threads: Vec<SimThread>,
}

impl<P: Copy> World<P> {
    pub fn new(config: WorldConfig) -> Self {
        World {
            now_ns: 0,
            end_ns: config.run_for_ns,
            machine: Machine::new(config.platform, config.instant_clock, config.wall_start_ns),
            faults: FaultSchedule::new(&config.faults),
            queue: EventQueue::new(),
            parked: Vec::new(),
            next_seq: 0,
            threads: Vec::new(),
        }
    }

    /// Physical time, ns since the start of the run.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    pub fn end_ns(&self) -> u64 {
        self.end_ns
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// `Instant::now()`, ns since the start of the run.
    #[inline]
    pub fn instant_ns(&self) -> i64 {
        self.machine.instant_ns(self.now_ns)
    }

    /// `SystemTime::now()`, ns since the Unix epoch.
    #[inline]
    pub fn wall_ns(&self) -> i64 {
        self.machine.wall_ns(self.now_ns)
    }

    /// What `clock` reads now (monotonic and boottime since the run started, wall since the epoch).
    #[inline]
    pub fn read(&self, clock: ClockId) -> i64 {
        self.machine.clocks().read(clock, self.now_ns)
    }

    /// The deadline "when `Instant::now()` reaches `instant_ns`".
    #[inline]
    pub fn instant_deadline(&self, instant_ns: i64) -> Deadline {
        Deadline {
            clock: self.machine.instant_clock(),
            at_ns: self.machine.instant_to_clock_ns(instant_ns),
        }
    }

    /// Number of wakes waiting, parked ones included.
    pub fn pending(&self) -> usize {
        self.queue.len() + self.parked.len()
    }

    /// What one waiting wake costs in memory at most, for a run's memory bound.
    pub const BYTES_PER_WAKE: u64 = crate::queue::bytes_per_entry::<P>();

    /// Whether a wake was dropped because [`MAX_PENDING_WAKES`](crate::MAX_PENDING_WAKES)
    /// were already waiting: the run is no longer what its model asked for, and must stop with
    /// an error.
    pub fn overflowed(&self) -> bool {
        self.queue.overflowed()
    }

    /// Asks for a [`Step::Wake`] carrying `payload` once `deadline`'s clock reaches it and the
    /// process can run. A deadline already passed wakes at the current time, after anything
    /// already due then.
    #[inline(always)]
    pub fn wake_at(&mut self, deadline: Deadline, payload: P) {
        let seq = self.take_seq();
        self.file(Due {
            seq,
            deadline,
            payload,
        });
    }

    #[inline]
    fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        assert!(seq < MAX_SEQ, "a world can file at most {MAX_SEQ} wakes");
        self.next_seq += 1;
        seq
    }

    #[inline(always)]
    fn file(&mut self, due: Due<P>) {
        let clocks = self.machine.clocks();
        match clocks.phys_until(due.deadline.clock, self.now_ns, due.deadline.at_ns) {
            Some(wait_ns) => {
                self.queue.push(
                    self.now_ns.saturating_add(wait_ns),
                    due.seq,
                    due.deadline,
                    due.payload,
                );
            }
            // The clock is stopped, so the system is asleep; the resume re-files it.
            None => self.parked.push(due),
        }
    }

    /// Advances to the next event.
    #[inline]
    pub fn next_step(&mut self) -> Step<P> {
        loop {
            let wake_ns = self.queue.peek_ns();
            if let Some(fault_ns) = self.faults.peek_ns()
                && fault_ns < self.end_ns
                && wake_ns.is_none_or(|wake_ns| fault_ns <= wake_ns)
            {
                return self.apply_next_fault();
            }
            match wake_ns {
                Some(wake_ns) if wake_ns < self.end_ns => {
                    let entry = self.queue.pop().expect("peeked entry");
                    self.now_ns = wake_ns;
                    if self.machine.can_run() {
                        return Step::Wake {
                            payload: entry.payload,
                            deadline: entry.deadline,
                        };
                    }
                    self.parked.push(entry);
                }
                _ => {
                    self.now_ns = self.end_ns;
                    return Step::End;
                }
            }
        }
    }

    #[inline(never)]
    fn apply_next_fault(&mut self) -> Step<P> {
        let edge = self.faults.pop().expect("peeked fault");
        self.now_ns = edge.at_ns;
        let effect = self.machine.apply(&edge);
        if effect.stopped {
            self.threads
                .iter_mut()
                .for_each(|thread| thread.freeze(edge.at_ns));
        }
        if effect.resumed_after_ns.is_some() {
            self.threads
                .iter_mut()
                .for_each(|thread| thread.thaw(edge.at_ns));
        }
        if effect.resumed_after_ns.is_some() {
            self.refile(&ClockId::ALL);
        } else if let Some(clock) = effect.changed_clock
            && self.machine.can_run()
        {
            self.refile(&[clock]);
        }
        Step::Fault { edge, effect }
    }

    /// Re-derives the physical time of every wake on `clocks` after they changed, and re-files
    /// the parked ones: those that came due while nothing could run, and those whose clock had
    /// stopped short of their deadline.
    fn refile(&mut self, clocks: &[ClockId]) {
        let now_ns = self.now_ns;
        let machine = &self.machine;
        let at_ns_of = |deadline: Deadline| {
            let wait_ns = machine
                .clocks()
                .phys_until(deadline.clock, now_ns, deadline.at_ns)?;
            Some(now_ns.saturating_add(wait_ns))
        };
        let mut parked = std::mem::take(&mut self.parked);
        if clocks.iter().any(|clock| self.queue.waits_on(*clock)) {
            parked.extend(self.queue.retime(clocks, at_ns_of));
        }
        for due in parked {
            match at_ns_of(due.deadline) {
                Some(at_ns) => self.queue.push(at_ns, due.seq, due.deadline, due.payload),
                None => self.parked.push(due),
            }
        }
    }

    /// Adds a simulated thread for CPU accounting.
    pub fn add_thread(&mut self, name: impl Into<String>) -> ThreadId {
        self.threads.push(SimThread::new(name));
        ThreadId(self.threads.len() as u32 - 1)
    }

    #[inline]
    pub fn thread(&self, id: ThreadId) -> &SimThread {
        &self.threads[id.0 as usize]
    }

    /// Queues `cost_ns` of CPU work on `thread` now; returns when it will be done.
    #[inline]
    pub fn run_on(&mut self, thread: ThreadId, cost_ns: u64) -> u64 {
        let now_ns = self.now_ns;
        self.threads[thread.0 as usize].run(now_ns, cost_ns)
    }

    /// CPU totals per thread, charged up to the end of the run.
    pub fn finish_threads(&mut self) -> Vec<ThreadCpu> {
        let end_ns = self.end_ns;
        self.threads
            .iter_mut()
            .map(|thread| thread.finish(end_ns))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_SEC as S;

    fn world(platform: Platform, faults: Vec<Fault>) -> World<u32> {
        World::new(WorldConfig {
            platform,
            instant_clock: platform.instant_clock(),
            wall_start_ns: 0,
            run_for_ns: 1_000 * S,
            faults,
        })
    }

    fn wakes(world: &mut World<u32>) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        loop {
            match world.next_step() {
                Step::Wake { payload, .. } => out.push((world.now_ns(), payload)),
                Step::Fault { .. } => {}
                Step::End => return out,
            }
        }
    }

    #[test]
    fn a_wake_due_during_suspend_fires_at_resume_when_instant_counts_sleep() {
        let mut world = world(
            Platform::Windows,
            vec![Fault::SystemSuspend {
                at_ns: 10 * S,
                duration_ns: 100 * S,
            }],
        );
        world.wake_at(world.instant_deadline(20 * S as i64), 1);
        world.wake_at(world.instant_deadline(500 * S as i64), 2);
        assert_eq!(wakes(&mut world), [(110 * S, 1), (500 * S, 2)]);
    }

    #[test]
    fn a_wake_on_a_stopped_instant_is_pushed_back_by_the_suspend() {
        let mut world = world(
            Platform::Linux,
            vec![Fault::SystemSuspend {
                at_ns: 10 * S,
                duration_ns: 100 * S,
            }],
        );
        world.wake_at(world.instant_deadline(20 * S as i64), 1);
        world.wake_at(world.instant_deadline(500 * S as i64), 2);
        assert_eq!(wakes(&mut world), [(120 * S, 1), (600 * S, 2)]);
    }

    #[test]
    fn ties_after_a_resume_keep_the_order_they_were_asked_in() {
        let mut world = world(
            Platform::Windows,
            vec![Fault::ProcessSuspend {
                at_ns: S,
                duration_ns: 10 * S,
            }],
        );
        for (instant_s, payload) in [(5, 0), (3, 1), (4, 2)] {
            world.wake_at(world.instant_deadline(instant_s * S as i64), payload);
        }
        assert_eq!(wakes(&mut world), [(11 * S, 0), (11 * S, 1), (11 * S, 2)]);
    }

    #[test]
    fn a_wall_step_forward_makes_wall_deadlines_due_at_once() {
        let mut world = world(
            Platform::Linux,
            vec![Fault::WallStep {
                at_ns: S,
                by_ns: 3_600 * S as i64,
            }],
        );
        world.wake_at(
            Deadline {
                clock: ClockId::Wall,
                at_ns: 60 * S as i64,
            },
            7,
        );
        assert_eq!(wakes(&mut world), [(S, 7)]);
    }

    #[test]
    fn a_wall_clock_slewed_to_a_standstill_parks_its_wakes_until_the_slew_ends() {
        let mut world = world(
            Platform::Linux,
            vec![Fault::WallSlew {
                at_ns: S,
                duration_ns: 10 * S,
                rate_ppb: -1_000_000_000,
            }],
        );
        world.wake_at(
            Deadline {
                clock: ClockId::Wall,
                at_ns: 5 * S as i64,
            },
            4,
        );
        world.wake_at(world.instant_deadline(3 * S as i64), 5);
        assert_eq!(wakes(&mut world), [(3 * S, 5), (15 * S, 4)]);
    }

    #[test]
    fn fault_edges_at_the_same_time_come_before_wakes() {
        let mut world = world(
            Platform::Windows,
            vec![Fault::ProcessSuspend {
                at_ns: 5 * S,
                duration_ns: S,
            }],
        );
        world.wake_at(world.instant_deadline(5 * S as i64), 3);
        assert_eq!(wakes(&mut world), [(6 * S, 3)]);
    }
}
