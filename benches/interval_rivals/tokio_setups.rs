//! tokio's own `Interval`s on a paused current-thread runtime, set up several ways, to find the
//! fastest: each way counts every tick whose deadline falls before the end of the virtual hour,
//! with `MissedTickBehavior::Burst`, so they all count what ticklab counts.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use ticklab::interval::runner::IntervalPlan;
use tokio::time::{Instant, Interval, MissedTickBehavior};

/// The ways of running the intervals on tokio that the bench knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokioSetup {
    /// One `spawn_local` task per interval in a `LocalSet`.
    LocalSet,
    /// One `tokio::spawn` task per interval on `Runtime::block_on`.
    Spawned,
    /// As `Spawned`, each task wrapped in `task::unconstrained`, so no coop budget is kept.
    SpawnedUnconstrained,
    /// One unconstrained future owns every `Interval` and polls only those whose timer fired,
    /// through a waker per interval (what `FuturesUnordered` does), with no task per interval.
    OneTask,
}

impl TokioSetup {
    pub const ALL: [TokioSetup; 4] = [
        TokioSetup::LocalSet,
        TokioSetup::Spawned,
        TokioSetup::SpawnedUnconstrained,
        TokioSetup::OneTask,
    ];

    /// The criterion id.
    pub fn id(self) -> &'static str {
        match self {
            TokioSetup::LocalSet => "tokio_local_set",
            TokioSetup::Spawned => "tokio_spawn",
            TokioSetup::SpawnedUnconstrained => "tokio_spawn_unconstrained",
            TokioSetup::OneTask => "tokio_one_task",
        }
    }

    /// Counts the ticks of `plans` whose deadlines fall within `run_for` of the start.
    pub fn ticks(self, plans: &[IntervalPlan], run_for: Duration) -> u64 {
        let mut builder = tokio::runtime::Builder::new_current_thread();
        builder.enable_time().start_paused(true);
        let runtime = builder.build().expect("a current-thread runtime builds");
        match self {
            TokioSetup::LocalSet => local_set(&runtime, plans, run_for),
            TokioSetup::Spawned => runtime.block_on(spawned(plans, run_for, false)),
            TokioSetup::SpawnedUnconstrained => runtime.block_on(spawned(plans, run_for, true)),
            TokioSetup::OneTask => runtime.block_on(tokio::task::unconstrained(async {
                OneTask::new(plans, run_for).await
            })),
        }
    }
}

/// `plan`'s interval, made the way a tokio user would, with its first tick at `start` plus the
/// plan's phase.
fn interval(plan: &IntervalPlan, start: Instant) -> Interval {
    let first = start + Duration::from_nanos(plan.created_ns);
    let mut interval = tokio::time::interval_at(first, Duration::from_nanos(plan.period_ns));
    interval.set_missed_tick_behavior(MissedTickBehavior::Burst);
    interval
}

fn local_set(runtime: &tokio::runtime::Runtime, plans: &[IntervalPlan], run_for: Duration) -> u64 {
    let ticks = Rc::new(Cell::new(0u64));
    let local = tokio::task::LocalSet::new();
    local.block_on(runtime, async {
        let start = Instant::now();
        let end = start + run_for;
        for plan in plans {
            let ticks = ticks.clone();
            let mut interval = interval(plan, start);
            tokio::task::spawn_local(async move {
                while interval.tick().await < end {
                    ticks.set(ticks.get() + 1);
                }
            });
        }
        tokio::time::sleep_until(end + Duration::from_secs(1)).await;
    });
    ticks.get()
}

/// Each task ends at its first tick past the hour and returns its count, so the runtime stops
/// as soon as the last interval has seen the hour out.
async fn spawned(plans: &[IntervalPlan], run_for: Duration, unconstrained: bool) -> u64 {
    let start = Instant::now();
    let end = start + run_for;
    let tasks: Vec<_> = plans
        .iter()
        .map(|plan| {
            let mut interval = interval(plan, start);
            let count = async move {
                let mut ticks = 0u64;
                while interval.tick().await < end {
                    ticks += 1;
                }
                ticks
            };
            if unconstrained {
                tokio::spawn(tokio::task::unconstrained(count))
            } else {
                tokio::spawn(count)
            }
        })
        .collect();
    let mut ticks = 0;
    for task in tasks {
        ticks += task.await.expect("an interval task completes");
    }
    ticks
}

/// Every interval in one future. Each interval's waker sets its bit in a shared bitmap and wakes
/// the future, which then polls just the intervals whose bits it finds: what `FuturesUnordered`
/// does, without a task or an allocation per interval.
struct OneTask {
    intervals: Vec<Interval>,
    wakers: Vec<Waker>,
    ready: Arc<ReadyBits>,
    end: Instant,
    running: usize,
    ticks: u64,
}

struct ReadyBits {
    words: Vec<AtomicU64>,
    /// Set by the first wake after a poll, so that later ones skip waking the future again.
    notified: AtomicBool,
    task: Mutex<Option<Waker>>,
}

struct IntervalWaker {
    index: usize,
    ready: Arc<ReadyBits>,
}

impl Wake for IntervalWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let bit = 1 << (self.index % 64);
        self.ready.words[self.index / 64].fetch_or(bit, Ordering::Release);
        if !self.ready.notified.swap(true, Ordering::AcqRel)
            && let Some(task) = self.ready.task.lock().expect("not poisoned").as_ref()
        {
            task.wake_by_ref();
        }
    }
}

impl OneTask {
    fn new(plans: &[IntervalPlan], run_for: Duration) -> Self {
        let start = Instant::now();
        let ready = Arc::new(ReadyBits {
            // Every interval starts out ready, so the first poll polls them all.
            words: (0..plans.len().div_ceil(64))
                .map(|word| {
                    let bits = (plans.len() - word * 64).min(64);
                    AtomicU64::new(u64::MAX >> (64 - bits))
                })
                .collect(),
            notified: AtomicBool::new(false),
            task: Mutex::new(None),
        });
        OneTask {
            intervals: plans.iter().map(|plan| interval(plan, start)).collect(),
            wakers: (0..plans.len())
                .map(|index| {
                    Waker::from(Arc::new(IntervalWaker {
                        index,
                        ready: ready.clone(),
                    }))
                })
                .collect(),
            ready,
            end: start + run_for,
            running: plans.len(),
            ticks: 0,
        }
    }

    /// Ticks interval `index` until it has to wait; it stops for good past the end.
    fn drive(&mut self, index: usize) {
        let mut cx = Context::from_waker(&self.wakers[index]);
        while let Poll::Ready(deadline) = self.intervals[index].poll_tick(&mut cx) {
            if deadline >= self.end {
                self.running -= 1;
                return;
            }
            self.ticks += 1;
        }
    }
}

impl Future for OneTask {
    type Output = u64;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        let this = self.get_mut();
        let mut task = this.ready.task.lock().expect("not poisoned");
        if !task.as_ref().is_some_and(|task| task.will_wake(cx.waker())) {
            *task = Some(cx.waker().clone());
        }
        drop(task);
        // Wakes that come while the intervals are polled notify the future again, and the
        // runtime polls it again.
        this.ready.notified.store(false, Ordering::Release);
        for word in 0..this.ready.words.len() {
            if this.ready.words[word].load(Ordering::Relaxed) == 0 {
                continue;
            }
            let mut bits = this.ready.words[word].swap(0, Ordering::Acquire);
            while bits != 0 {
                this.drive(word * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        if this.running == 0 {
            Poll::Ready(this.ticks)
        } else {
            Poll::Pending
        }
    }
}
