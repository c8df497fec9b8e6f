//! Real timer threads for a design: the harness behind the benchmarks, and proof that the sans-time
//! cores drive a real clock and real sleeps too.
//!
//! Each timer thread sleeps on its own mutex and condvar, a stand-in for brpc's futex: it waits
//! while its signal count is unchanged, until the deadline its round asked for.

use std::marker::PhantomData;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ticklab_models::timer::{ScheduleError, Scheduled, TimerDesign, TimerId, Unscheduled};

/// One timer thread's parking spot.
#[derive(Debug, Default)]
struct Parking {
    lock: Mutex<()>,
    wake: Condvar,
}

impl Parking {
    fn wake(&self) {
        let _guard = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.wake.notify_one();
    }
}

/// A design with its timer threads running; dropping it stops and joins them.
pub struct ThreadedTimers<D: TimerDesign<P> + 'static, P: Send + 'static> {
    design: Arc<D>,
    parking: Arc<[Parking]>,
    origin: Instant,
    threads: Vec<JoinHandle<()>>,
    _payload: PhantomData<fn(P)>,
}

impl<D: TimerDesign<P>, P: Send> std::fmt::Debug for ThreadedTimers<D, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadedTimers")
            .field("threads", &self.threads.len())
            .finish_non_exhaustive()
    }
}

impl<D: TimerDesign<P> + 'static, P: Send + 'static> ThreadedTimers<D, P> {
    /// Nanoseconds since the timers started, on the monotonic clock: the deadlines' clock.
    pub fn now_ns(&self) -> i64 {
        self.origin.elapsed().as_nanos() as i64
    }

    pub fn design(&self) -> &D {
        &self.design
    }

    /// Starts one thread per timer thread of `design`, calling `fire` with each due payload.
    pub fn start(design: D, fire: impl Fn(P) + Send + Sync + 'static) -> Self {
        let design = Arc::new(design);
        let parking: Arc<[Parking]> = (0..design.timer_threads())
            .map(|_| Parking::default())
            .collect();
        let origin = Instant::now();
        let fire = Arc::new(fire);
        let threads = (0..design.timer_threads())
            .map(|thread| {
                let (design, parking, fire) = (design.clone(), parking.clone(), fire.clone());
                std::thread::Builder::new()
                    .name(format!("timer-{thread}"))
                    .spawn(move || timer_loop(&*design, &parking, thread, origin, &*fire))
                    .expect("spawning a timer thread")
            })
            .collect();
        ThreadedTimers {
            design,
            parking,
            origin,
            threads,
            _payload: PhantomData,
        }
    }

    /// Schedules a timer, waking its timer thread if the design asks for it.
    pub fn schedule(
        &self,
        deadline_ns: i64,
        payload: P,
        caller: u64,
    ) -> Result<Scheduled, ScheduleError> {
        let scheduled = self
            .design
            .schedule(self.now_ns(), deadline_ns, payload, caller)?;
        if scheduled.wake {
            self.wake(scheduled.thread);
        }
        Ok(scheduled)
    }

    pub fn unschedule(&self, id: TimerId) -> Unscheduled {
        self.design.unschedule(id)
    }

    fn wake(&self, thread: usize) {
        self.parking[thread].wake();
    }

    /// Stops the design and joins its timer threads.
    pub fn stop(mut self) {
        self.stop_and_join();
    }

    /// Stops and joins, then lets `check` look at the stopped timers (their slots, say).
    pub fn stop_keeping_design(mut self, check: impl FnOnce(&Self)) {
        self.stop_and_join();
        check(&self);
    }

    fn stop_and_join(&mut self) {
        if self.threads.is_empty() {
            return;
        }
        if self.design.stop() {
            (0..self.parking.len()).for_each(|thread| self.wake(thread));
        }
        for thread in self.threads.drain(..) {
            thread.join().expect("a timer thread panicked");
        }
    }
}

impl<D: TimerDesign<P> + 'static, P: Send + 'static> Drop for ThreadedTimers<D, P> {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

fn timer_loop<D: TimerDesign<P>, P: Send>(
    design: &D,
    parkings: &[Parking],
    thread: usize,
    origin: Instant,
    fire: &(dyn Fn(P) + Send + Sync),
) {
    let now_ns = || origin.elapsed().as_nanos() as i64;
    let mut state = design.new_thread_state(thread);
    loop {
        let sleep = design.run_round(&mut state, now_ns(), &mut |_, payload| {
            fire(payload);
            now_ns()
        });
        if sleep.stopped {
            return;
        }
        if let Some(other) = design.woken_by_round(&mut state) {
            parkings[other].wake();
        }
        let parking = &parkings[thread];
        let mut guard = parking
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while design.signals(thread) == sleep.seen_signals {
            guard = match sleep.until_ns {
                None => parking
                    .wake
                    .wait(guard)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
                Some(until_ns) => {
                    let left_ns = until_ns - now_ns();
                    if left_ns <= 0 {
                        break;
                    }
                    let timeout = Duration::from_nanos(left_ns as u64);
                    parking
                        .wake
                        .wait_timeout(guard, timeout)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}
