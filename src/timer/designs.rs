//! A timer design as the simulator drives it: any [`BuildTimerDesign`], built on std's
//! primitives with call numbers for payloads, behind one object-safe trait, so a runner can hold
//! whichever design a scenario names.

use ticklab_models::sync::StdPrimitives;
use ticklab_models::timer::{
    BuildTimerDesign, ScheduleError, Scheduled, Sleep, TimerClock, TimerDesign, TimerId,
    TimerParams, Unscheduled,
};

/// One design and the private state of each of its timer threads. Payloads are call numbers.
pub(crate) trait SimTimers {
    fn clock(&self) -> TimerClock;
    fn timer_threads(&self) -> usize;
    fn schedule(
        &self,
        now_ns: i64,
        deadline_ns: i64,
        call: u32,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError>;
    fn unschedule(&self, id: TimerId) -> Unscheduled;
    fn run_round(
        &mut self,
        thread: usize,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, u32) -> i64,
    ) -> Sleep;
    fn woken_by_round(&mut self, thread: usize) -> Option<usize>;
    fn signals(&self, thread: usize) -> u64;
    fn slots_in_use(&self) -> usize;
    fn metric(&self, name: &str) -> Option<u64>;
}

/// A built design with its threads' states.
struct Built<D: TimerDesign<u32>> {
    design: D,
    states: Vec<D::ThreadState>,
}

impl<D: TimerDesign<u32>> SimTimers for Built<D> {
    fn clock(&self) -> TimerClock {
        self.design.clock()
    }

    fn timer_threads(&self) -> usize {
        self.states.len()
    }

    fn schedule(
        &self,
        now_ns: i64,
        deadline_ns: i64,
        call: u32,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        self.design.schedule(now_ns, deadline_ns, call, caller)
    }

    fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.design.unschedule(id)
    }

    fn run_round(
        &mut self,
        thread: usize,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, u32) -> i64,
    ) -> Sleep {
        self.design
            .run_round(&mut self.states[thread], now_ns, fire)
    }

    fn woken_by_round(&mut self, thread: usize) -> Option<usize> {
        self.design.woken_by_round(&mut self.states[thread])
    }

    fn signals(&self, thread: usize) -> u64 {
        self.design.signals(thread)
    }

    fn slots_in_use(&self) -> usize {
        self.design.slots_in_use()
    }

    fn metric(&self, name: &str) -> Option<u64> {
        self.design.metric(name)
    }
}

/// Builds `B` for the simulator.
pub(crate) fn build<B: BuildTimerDesign>(params: &TimerParams) -> Box<dyn SimTimers> {
    let design = B::build::<StdPrimitives, u32>(params);
    let states = (0..design.timer_threads())
        .map(|thread| design.new_thread_state(thread))
        .collect();
    Box::new(Built { design, states })
}
