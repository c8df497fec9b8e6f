//! The task that applies faults to a harness run, as a task on the same runtime as the code under
//! test.
//!
//! tokio's paused clock moves on its own whenever every task waits: it jumps to the next timer.
//! The driver keeps a timer of its own at the next fault, so the clock can never jump past one.
//! Once the clock stands at the fault and every task has run all it could before it, the driver
//! moves the machine through the fault and tokio's clock with it, in one step in which no task
//! runs: timers that fall due in a jump all complete at once, as on a real machine.
//!
//! tokio's timers have millisecond ticks, and its clock moves to a timer by whole milliseconds
//! from wherever it stands. The driver's timer is therefore at the last tick before the fault, and
//! the clock goes the rest of the way in steps that stop at each tick boundary, so that the timers
//! due at a tick fire before a fault later in it, and those due at the fault's own instant after
//! it: in the simulator too, a fault precedes the wakes due at its instant.

use std::sync::Arc;
use std::time::Duration;

use super::context::sync;
use super::shared::{Shared, advance_clock};

const MS_NS: u64 = 1_000_000;

pub(crate) async fn drive(shared: Arc<Shared>) {
    loop {
        let target_ns = {
            let mut state = shared.lock();
            sync(&shared, &mut state);
            match state.timeline.next_event_ns() {
                Some(next_ns) if state.broken.is_none() => next_ns,
                _ => return,
            }
        };
        let target = shared.lock().timeline.instant_at(target_ns);
        let now = shared.elapsed_ns();
        // The last tick before the target: timers due there run before the fault, and those due
        // at the target itself after it, as a fault comes first in the simulator too.
        let tick = (target.saturating_sub(1)) / MS_NS * MS_NS;
        if now < tick && now.is_multiple_of(MS_NS) {
            tokio::time::sleep_until(shared.start + Duration::from_nanos(tick)).await;
            continue;
        }
        shared.idle().await;
        if shared.elapsed_ns() != now {
            // A task marked busy moved the clock, and maybe the machine through the fault.
            continue;
        }
        let mut state = shared.lock();
        let next_boundary = (now / MS_NS + 1) * MS_NS;
        let step_to = target.min(next_boundary);
        let step_to_ns = target_ns - (target - step_to);
        advance_clock(state.timeline.run_to(step_to_ns));
        if state.timeline.is_over() {
            shared.end(&mut state);
            return;
        }
    }
}
