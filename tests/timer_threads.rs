//! The timer designs on real threads with a real clock: what is scheduled and not cancelled fires
//! exactly once, what is cancelled never fires, and stopping frees every slot.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ticklab::timer::threads::ThreadedTimers;
use ticklab_models::sync::StdPrimitives;
use ticklab_models::timer::{Bucketed, GlobalHeap, Hashed, TimerClock, TimerDesign, Unscheduled};

const SCHEDULERS: u64 = 4;
const TIMERS_EACH: u64 = 300;
const MS: i64 = 1_000_000;

/// Schedules from several threads, cancels every other timer, and checks what fired.
fn fire_and_cancel_on_real_threads<D: TimerDesign<u64> + 'static>(design: D) {
    let fired: Arc<Mutex<BTreeMap<u64, u32>>> = Arc::default();
    let timers = {
        let fired = fired.clone();
        Arc::new(ThreadedTimers::start(design, move |payload: u64| {
            *fired.lock().unwrap().entry(payload).or_default() += 1;
        }))
    };
    let schedulers: Vec<_> = (0..SCHEDULERS)
        .map(|caller| {
            let timers = timers.clone();
            std::thread::spawn(move || {
                let mut expected = Vec::new();
                for n in 0..TIMERS_EACH {
                    let payload = caller * TIMERS_EACH + n;
                    let deadline_ns = timers.now_ns() + MS + (n as i64 % 5) * MS;
                    let id = timers
                        .schedule(deadline_ns, payload, caller)
                        .expect("slots to spare")
                        .id;
                    let cancelled = n % 2 == 0 && timers.unschedule(id) == Unscheduled::Cancelled;
                    expected.push((payload, !cancelled));
                }
                expected
            })
        })
        .collect();
    let expected: Vec<(u64, bool)> = schedulers
        .into_iter()
        .flat_map(|handle| handle.join().unwrap())
        .collect();
    let to_fire = expected.iter().filter(|(_, fires)| *fires).count();
    // Liveness, not speed: the deadlines are at most 5 ms away, and a generous bound only catches
    // a timer that never fires.
    let give_up = Instant::now() + Duration::from_secs(30);
    while fired.lock().unwrap().len() < to_fire && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(2));
    }
    let timers = Arc::into_inner(timers).expect("the schedulers are done");
    let design_slots = |timers: &ThreadedTimers<D, u64>| timers.design().slots_in_use();
    timers.stop_keeping_design(|timers| assert_eq!(design_slots(timers), 0, "slots leaked"));
    let fired = fired.lock().unwrap();
    for (payload, fires) in expected {
        let runs = fired.get(&payload).copied().unwrap_or(0);
        assert_eq!(
            runs,
            u32::from(fires),
            "timer {payload}: expected {} runs",
            u32::from(fires)
        );
    }
}

#[test]
fn bucketed_fires_and_cancels_correctly_on_real_threads() {
    fire_and_cancel_on_real_threads(Bucketed::<StdPrimitives, u64>::new(
        13,
        1 << 16,
        TimerClock::Monotonic,
    ));
}

#[test]
fn global_heap_fires_and_cancels_correctly_on_real_threads() {
    fire_and_cancel_on_real_threads(GlobalHeap::<StdPrimitives, u64>::new(
        1 << 16,
        TimerClock::Monotonic,
    ));
}

#[test]
fn hashed_fires_and_cancels_correctly_on_real_threads() {
    fire_and_cancel_on_real_threads(Hashed::<StdPrimitives, u64>::new(
        3,
        1 << 16,
        TimerClock::Monotonic,
    ));
}
