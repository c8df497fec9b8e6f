//! The three designs behind one type, so a runner picks one from a scenario file.

use ticklab_models::sync::StdPrimitives;
use ticklab_models::timer::{
    Bucketed, BucketedThread, GlobalHeap, GlobalHeapThread, Hashed, HashedThread, ScheduleError,
    Scheduled, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled,
};

use super::spec::{DesignKind, TimerConfig};

/// One design and the private state of each of its timer threads. Payloads are call numbers.
pub(crate) enum SimTimers {
    GlobalHeap(GlobalHeap<StdPrimitives, u32>, Vec<GlobalHeapThread>),
    Bucketed(Bucketed<StdPrimitives, u32>, Vec<BucketedThread<u32>>),
    Hashed(Hashed<StdPrimitives, u32>, Vec<HashedThread>),
}

/// Runs `$body` with the design bound to `$design` and its thread states to `$states`.
macro_rules! with_design {
    ($timers:expr, |$design:ident, $states:ident| $body:expr) => {
        match $timers {
            SimTimers::GlobalHeap($design, $states) => $body,
            SimTimers::Bucketed($design, $states) => $body,
            SimTimers::Hashed($design, $states) => $body,
        }
    };
}

fn states<D: TimerDesign<u32>>(design: &D) -> Vec<D::ThreadState> {
    (0..design.timer_threads())
        .map(|thread| design.new_thread_state(thread))
        .collect()
}

impl SimTimers {
    pub(crate) fn new(config: &TimerConfig) -> Self {
        match config.design {
            DesignKind::GlobalHeap => {
                let design = GlobalHeap::new(config.capacity, config.clock);
                let states = states(&design);
                SimTimers::GlobalHeap(design, states)
            }
            DesignKind::Bucketed => {
                let design = Bucketed::new(config.buckets, config.capacity, config.clock);
                let states = states(&design);
                SimTimers::Bucketed(design, states)
            }
            DesignKind::Hashed => {
                let design = Hashed::new(config.timer_threads, config.capacity, config.clock);
                let states = states(&design);
                SimTimers::Hashed(design, states)
            }
        }
    }

    pub(crate) fn clock(&self) -> TimerClock {
        with_design!(self, |design, _states| design.clock())
    }

    pub(crate) fn timer_threads(&self) -> usize {
        with_design!(self, |design, _states| design.timer_threads())
    }

    pub(crate) fn schedule(
        &self,
        deadline_ns: i64,
        call: u32,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        with_design!(self, |design, _states| design.schedule(
            deadline_ns,
            call,
            caller
        ))
    }

    pub(crate) fn unschedule(&self, id: TimerId) -> Unscheduled {
        with_design!(self, |design, _states| design.unschedule(id))
    }

    pub(crate) fn run_round(
        &mut self,
        thread: usize,
        now_ns: i64,
        fire: &mut dyn FnMut(TimerId, u32) -> i64,
    ) -> Sleep {
        with_design!(self, |design, states| design.run_round(
            &mut states[thread],
            now_ns,
            fire
        ))
    }

    pub(crate) fn signals(&self, thread: usize) -> u64 {
        with_design!(self, |design, _states| design.signals(thread))
    }
}
