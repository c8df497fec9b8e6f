//! Binds a timer design into the world: clients that call at a rate and arm a timeout per call,
//! responses that cancel it, and timer threads that sleep the way brpc's does.
//!
//! A timer thread sleeps like brpc's: a futex wait on its signal count for the time left until its
//! earliest deadline, measured on `CLOCK_MONOTONIC`, whatever clock the design keeps its
//! deadlines on. So a wall-clock design notices a wall step only when it next wakes, and a
//! suspend does not count towards its sleep.

mod bounds;
mod calls;
mod liveness;

use ticklab_models::timer::{TimerClock, TimerId, TimerParams, Unscheduled};
use ticklab_sim::{ClockId, CpuKind, Deadline, EdgeEffect, FaultEdge, SimRng, ThreadId};

use super::designs::SimTimers;
use super::spec::TimerConfig;
use super::stats::{Memory, TimerStats};
use super::thaw::ThawOrder;
use super::{CallEvent, FireEvent, MemoryEvent, ResponseEvent, RoundEvent};
use crate::machine::{Binding, Machine, MachineReport, drive, physical};
use crate::memory::Footprint;
use crate::runner::error::RunError;
use crate::runner::options::RunOptions;
use crate::runner::start::{Plan, begin, world_config};
use crate::scenario::setting::Setting;
use crate::trace::{Event, Summary, TraceSink};
use bounds::{BYTES_PER_CALL, CALLS, MEMORY_SAMPLES, TIMERS, check_work, peak_footprint};
use calls::{Call, CallRef, Calls};
use liveness::ThreadSleep;

/// What a wake in the world is for.
#[derive(Clone, Copy, Debug)]
enum Wake {
    /// A client starts its next call.
    Call { client: u32 },
    /// A call's response arrives.
    Response { call: u32 },
    /// A timer thread wakes; stale if its generation has moved on (it was woken sooner).
    TimerThread { thread: u32, generation: u32 },
    /// The design's slots in use are read for the trace.
    MemorySample,
    /// A call answered after its timeout: its timer must have fired by now.
    Check { call: CallRef },
}

/// How often memory is sampled in a run of `run_for_ns`.
fn memory_sample_every_ns(run_for_ns: u64) -> u64 {
    (run_for_ns / MEMORY_SAMPLES).max(ticklab_sim::NS_PER_MS)
}

/// How late the platform's timed waits end at most: its timer resolution plus its slack.
fn machine_overshoot_ns(machine: &Machine<Wake>) -> u64 {
    let timing = machine.timing();
    timing.resolution_ns + timing.slack_ns
}

pub(crate) fn run(
    scenario: &Setting,
    config: &TimerConfig,
    seed: u64,
    options: &RunOptions,
    sink: &mut dyn TraceSink,
) -> Result<Summary, RunError> {
    let steps = check_work(scenario, config, options)?;
    // A call keeps its timer's thread in 16 bits.
    if config.most_timer_threads() > usize::from(u16::MAX) {
        return Err(RunError::Simulator(format!(
            "the {} design runs more than {} timer threads",
            config.design.name,
            u16::MAX
        )));
    }
    let plan = Plan {
        steps,
        peak: peak_footprint(scenario, config),
        design: format!("{} timer", config.design.name),
        fewer_by: "shorten `latency` or `timeout`, lengthen `call_interval` or lower `clients`",
    };
    let mut started =
        begin::<crate::timer::TimerModel>(scenario, config, seed, options, plan, Vec::new(), sink)?;
    let mut machine = Machine::new(world_config(scenario), &scenario.machine, seed);
    let run = TimerRun::new(config, seed, scenario.run_for_ns, &mut machine, sink);
    drive(machine, run, &mut started.watchdog)
}

impl Binding for TimerRun<'_> {
    type Wake = Wake;

    fn on_wake(&mut self, wake: Wake, m: &mut Machine<Wake>) -> Result<(), RunError> {
        match wake {
            Wake::Call { client } => self.call(m, client),
            Wake::Response { call } => self.response(m, call),
            Wake::TimerThread { thread, generation } => {
                self.timer_thread(m, thread as usize, generation)
            }
            Wake::MemorySample => self.memory_sample(m),
            Wake::Check { call } => self.check(m, call),
        }
    }

    fn on_cpu_done(&mut self, cpu: ThreadId, m: &mut Machine<Wake>) -> Result<(), RunError> {
        // A wake that came while the thread ran its callbacks is answered now.
        let Some(thread) = self.threads.iter().position(|(id, _)| *id == cpu) else {
            return Ok(());
        };
        if let Some(generation) = self.deferred[thread].take() {
            self.timer_thread(m, thread, generation)?;
        }
        self.recheck(m)
    }

    fn on_fault(
        &mut self,
        _edge: &FaultEdge,
        effect: &EdgeEffect,
        m: &mut Machine<Wake>,
    ) -> Result<(), RunError> {
        if effect.resumed_after_ns.is_some() {
            self.thaw(m)?;
        }
        Ok(())
    }

    fn footprint(&self) -> Footprint {
        Footprint::new()
            .with(CALLS, self.calls.slots.len() as u128, BYTES_PER_CALL)
            .with(
                TIMERS,
                self.timers.slots_in_use() as u128,
                self.config.design.bytes_per_timer,
            )
    }

    fn sink(&mut self) -> &mut dyn TraceSink {
        self.sink
    }

    fn finish(
        &mut self,
        m: &mut Machine<Wake>,
        report: &MachineReport,
    ) -> Result<Summary, RunError> {
        let end_ns = m.end_ns();
        // A run that ends while the machine holds the timer threads back cannot tell.
        let held_back = self.machine_delays(m);
        let unfired = self
            .calls
            .live()
            .filter(|call| {
                call.timer.is_some()
                    && !call.fired
                    && !call.overdue
                    && !held_back
                    && call
                        .timeout_at_ns
                        .saturating_add(self.allowance_ns(call.lag_ns()))
                        <= end_ns
            })
            .count() as u64;
        let stats = std::mem::replace(&mut self.stats, TimerStats::new(0));
        // Missed by the design, or left waiting at the end past the caller's timeout, as a clock
        // stepped back leaves a wall-clock deadline.
        let lost = stats.missed + unfired;
        let memory = Memory {
            live_slots: self.timers.slots_in_use() as u64,
            task_bytes: self.config.task_bytes,
        };
        let own = self.design_metrics()?;
        Ok(stats.into_summary(
            end_ns,
            lost,
            memory,
            (&self.config.metrics, &own),
            report.model_cpu(),
        ))
    }
}

impl TimerRun<'_> {
    /// The values of the design's own metrics, in the order it declares them.
    fn design_metrics(&self) -> Result<Vec<u64>, RunError> {
        self.config
            .design
            .metrics
            .iter()
            .map(|metric| {
                self.timers
                    .metric(metric.name)
                    .ok_or(RunError::UnreportedMetric {
                        design: self.config.design.name,
                        metric: metric.name,
                    })
            })
            .collect()
    }
}

struct TimerRun<'a> {
    timers: Box<dyn SimTimers>,
    config: &'a TimerConfig,
    /// Each timer thread's CPU, and the generation of its one valid wake.
    threads: Vec<(ThreadId, u32)>,
    /// A wake that came while the thread was running its callbacks, answered when they end.
    deferred: Vec<Option<u32>>,
    /// How each timer thread sleeps, for the checks that its timers fire in time.
    sleeps: Vec<ThreadSleep>,
    /// The design's clock as each timer thread's last round began.
    round_started_ns: Vec<i64>,
    /// Checks that found a thread about to act: looked at again once it has.
    rechecks: Vec<CallRef>,
    /// How late the machine ends a timed wait: its timer resolution and slack, or the
    /// scenario's `sleep_overshoot`.
    overshoot_ns: u64,
    calls: Calls,
    latency: SimRng,
    fires_so_far: u64,
    memory_every_ns: u64,
    stats: TimerStats,
    wants_events: bool,
    sink: &'a mut dyn TraceSink,
}

impl<'a> TimerRun<'a> {
    fn new(
        config: &'a TimerConfig,
        seed: u64,
        run_for_ns: u64,
        world: &mut Machine<Wake>,
        sink: &'a mut dyn TraceSink,
    ) -> Self {
        let memory_every_ns = memory_sample_every_ns(run_for_ns);
        world.wake_at(physical(memory_every_ns), Wake::MemorySample);
        // Go's GOMAXPROCS defaults to the machine's cores; a machine with a core per thread
        // gets the default Ps.
        let cores = match world.cores() {
            cores if cores.is_unlimited() => TimerParams::new(config.clock, 1).cores,
            cores => cores.count(),
        };
        let timers = config.design.build(&config.params(cores));
        let threads: Vec<(ThreadId, u32)> = (0..timers.timer_threads())
            .map(|thread| (world.add_thread(format!("timer-{thread}")), 0))
            .collect();
        let mut phases = SimRng::for_purpose(seed, "timer-client-phases");
        for client in 0..config.clients {
            let phase_ns = phases.in_range(0, config.call_interval_ns - 1);
            world.wake_at(physical(phase_ns), Wake::Call { client });
        }
        for thread in 0..threads.len() as u32 {
            world.wake_at(
                physical(0),
                Wake::TimerThread {
                    thread,
                    generation: 0,
                },
            );
        }
        let overshoot_ns = config
            .sleep_overshoot_ns
            .unwrap_or_else(|| machine_overshoot_ns(world));
        let promise_ns = config.design.promise.late_ns(config.timeout_ns);
        let first_round = ThreadSleep {
            wake: Some(physical(0)),
            ..ThreadSleep::default()
        };
        TimerRun {
            timers,
            config,
            deferred: vec![None; threads.len()],
            sleeps: vec![first_round; threads.len()],
            round_started_ns: vec![0; threads.len()],
            rechecks: Vec::new(),
            overshoot_ns,
            threads,
            calls: Calls::default(),
            latency: SimRng::for_purpose(seed, "timer-latency"),
            fires_so_far: 0,
            memory_every_ns,
            stats: TimerStats::new(promise_ns.saturating_add(overshoot_ns)),
            wants_events: sink.wants_events(),
            sink,
        }
    }

    /// The process runs again: every timer thread whose wait ran out meanwhile runs its round
    /// now, before the calls and responses that came due, or is put after them, as the
    /// scenario's thaw order says. A thread still busy with callbacks goes on with them.
    fn thaw(&mut self, m: &mut Machine<Wake>) -> Result<(), RunError> {
        for thread in 0..self.threads.len() {
            let (cpu, generation) = self.threads[thread];
            let due = self.sleeps[thread]
                .wake
                .is_some_and(|wake| m.read(wake.clock) >= wake.at_ns);
            if !due || m.is_busy(cpu) {
                continue;
            }
            match self.config.thaw_order {
                ThawOrder::TimersFirst => self.timer_thread(m, thread, generation)?,
                ThawOrder::CallersFirst => {
                    // Filed now, it comes after every wake that came due while nothing ran. The
                    // thread's sleep keeps the deadline that ran out: it lags from there.
                    let generation = generation + 1;
                    self.threads[thread].1 = generation;
                    let wake = Wake::TimerThread {
                        thread: thread as u32,
                        generation,
                    };
                    m.wake_at_physical(m.now_ns(), wake);
                }
            }
        }
        Ok(())
    }

    /// What the design's clock reads now.
    fn design_now(&self, m: &Machine<Wake>) -> i64 {
        match self.timers.clock() {
            TimerClock::Wall => m.wall_ns(),
            TimerClock::Monotonic => m.read(ClockId::Monotonic),
        }
    }

    fn call(&mut self, m: &mut Machine<Wake>, client: u32) -> Result<(), RunError> {
        let now_ns = m.now_ns();
        m.wake_at(
            physical(now_ns + self.config.call_interval_ns),
            Wake::Call { client },
        );
        self.stats.calls += 1;
        let armed_at_ns = self.design_now(m);
        let deadline_ns = armed_at_ns.saturating_add(self.config.timeout_ns as i64);
        let call_ref = self.calls.start(Call {
            timeout_at_ns: now_ns + self.config.timeout_ns,
            deadline_ns,
            timer: None,
            thread: 0,
            fired: false,
            overdue: false,
            lag_us: 0,
        });
        let call = call_ref.index;
        let event = CallEvent {
            t_ns: now_ns,
            client,
            call,
            timer: 0,
            thread: 0,
            global_lock: false,
            woke: false,
        };
        let event = self.arm(m, armed_at_ns, deadline_ns, event);
        let latency_ns = self.draw_latency();
        m.wake_at_physical(now_ns + latency_ns, Wake::Response { call });
        // Answered after its timeout: the timer must fire. One answered in time is checked only
        // if its response finds the timer overdue (a clock stepped under it).
        let armed = self
            .calls
            .get_mut(call)
            .filter(|call| call.timer.is_some())
            .map(|call| call.lag_ns());
        if let Some(lag_ns) = armed
            && latency_ns > self.config.timeout_ns
        {
            self.file_check(m, call_ref, deadline_ns, lag_ns);
        }
        if self.wants_events {
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }

    /// Schedules the timer of the call `event` starts, armed at `armed_at_ns` on the design's
    /// clock, and wakes its thread if the design asks to; returns the event with what happened.
    fn arm(
        &mut self,
        m: &mut Machine<Wake>,
        armed_at_ns: i64,
        deadline_ns: i64,
        event: CallEvent,
    ) -> CallEvent {
        let call = event.call;
        let scheduled =
            match self
                .timers
                .schedule(armed_at_ns, deadline_ns, call, u64::from(event.client))
            {
                Ok(scheduled) => scheduled,
                Err(_) => {
                    self.stats.schedule_failures += 1;
                    return event;
                }
            };
        let lag_ns = self.lag_ns(m, scheduled.thread);
        let started = self.calls.get_mut(call).expect("just started");
        started.timer = Some(scheduled.id);
        started.thread = scheduled.thread as u16;
        // Rounded up, so that the excuse covers the whole lag.
        started.lag_us = u32::try_from(lag_ns.div_ceil(1_000)).unwrap_or(u32::MAX);
        self.stats.global_lock_schedules += u64::from(scheduled.took_global_lock);
        self.stats.waking_schedules += u64::from(scheduled.wake);
        if scheduled.wake {
            self.wake_timer_thread(m, scheduled.thread);
        }
        CallEvent {
            timer: scheduled.id.raw(),
            thread: scheduled.thread as u32,
            global_lock: scheduled.took_global_lock,
            woke: scheduled.wake,
            ..event
        }
    }

    fn memory_sample(&mut self, m: &mut Machine<Wake>) -> Result<(), RunError> {
        let now_ns = m.now_ns();
        m.wake_at_physical(now_ns + self.memory_every_ns, Wake::MemorySample);
        let live_slots = self.timers.slots_in_use() as u64;
        self.stats.on_live(live_slots);
        if self.wants_events {
            self.sink.record(&Event::Model(&MemoryEvent {
                t_ns: now_ns,
                live_slots,
                live_bytes: live_slots.saturating_mul(self.config.task_bytes),
            }))?;
        }
        Ok(())
    }

    fn draw_latency(&mut self) -> u64 {
        let config = self.config;
        if config.slow_responses_ppm > 0
            && self.latency.in_range(0, 999_999) < u64::from(config.slow_responses_ppm)
        {
            return config.slow_latency_ns;
        }
        self.latency
            .in_range(config.latency_ns.0, config.latency_ns.1)
    }

    fn response(&mut self, m: &mut Machine<Wake>, index: u32) -> Result<(), RunError> {
        let call = self.calls.end(index).expect("a response ends a live call");
        let outcome = match call.timer {
            Some(id) => self.timers.unschedule(id),
            None => Unscheduled::NotFound,
        };
        match outcome {
            Unscheduled::Cancelled => {
                self.stats.cancels += 1;
                if !call.overdue {
                    self.check_at_cancel(m, index, &call)?;
                }
            }
            // Late only if the timer it found gone had fired: a call that never got a timer slot
            // is a schedule failure, counted where it failed.
            Unscheduled::NotFound | Unscheduled::Running if call.fired => {
                self.stats.late_responses += 1;
            }
            Unscheduled::NotFound | Unscheduled::Running if call.timer.is_some() => {
                // Neither fired nor cancelled, yet gone: the design lost the timer.
                self.stats.vanished += 1;
                let what = format!("timer of call #{index} was gone at its response, never fired");
                let at_ns = m.now_ns();
                crate::invariant::report(self.sink, at_ns, self.stats.violations(), what)?;
            }
            Unscheduled::NotFound | Unscheduled::Running => {}
        }
        if self.wants_events {
            let outcome = match outcome {
                Unscheduled::Cancelled => "cancelled",
                Unscheduled::Running => "running",
                Unscheduled::NotFound => "not-found",
            };
            self.sink.record(&Event::Model(&ResponseEvent {
                t_ns: m.now_ns(),
                call: index,
                outcome,
            }))?;
        }
        Ok(())
    }

    /// Wakes timer thread `thread` now, as a futex wake would, or once it has finished its
    /// callbacks; any timed wake it had is void. A thread asleep on a signal count that has not
    /// moved sleeps on, as a futex waiter that finds its word unchanged does: a design must bump
    /// the count it is woken by, and one that forgets is caught here as under loom.
    fn wake_timer_thread(&mut self, m: &mut Machine<Wake>, thread: usize) {
        let (cpu, _) = self.threads[thread];
        if !m.is_busy(cpu) && self.sleeps[thread].seen_signals == Some(self.timers.signals(thread))
        {
            return;
        }
        let (cpu, generation) = &mut self.threads[thread];
        *generation += 1;
        if m.is_busy(*cpu) {
            self.deferred[thread] = Some(*generation);
            return;
        }
        let wake = Wake::TimerThread {
            thread: thread as u32,
            generation: *generation,
        };
        m.wake_at_physical(m.now_ns(), wake);
        self.sleeps[thread].wake = Some(physical(m.now_ns()));
    }

    fn timer_thread(
        &mut self,
        m: &mut Machine<Wake>,
        thread: usize,
        generation: u32,
    ) -> Result<(), RunError> {
        let (cpu, current) = self.threads[thread];
        if generation != current {
            return Ok(());
        }
        let now_ns = m.now_ns();
        if m.is_busy(cpu) {
            self.deferred[thread] = Some(generation);
            return Ok(());
        }
        self.stats.wakeups += 1;
        // The built-in designs free slots only in a round: just before one, they peak.
        let live_slots = self.timers.slots_in_use() as u64;
        self.stats.on_live(live_slots);
        let design_start_ns = self.design_now(m);
        self.round_started_ns[thread] = design_start_ns;
        let (fired, spent_ns, sleep) = self.run_round(thread, design_start_ns);
        if let Some(other) = self.timers.woken_by_round(thread) {
            // The round handed the clock to another timer thread (Go's `wakep`).
            self.wake_timer_thread(m, other);
        }
        for &(call, id, offset_ns) in &fired {
            self.on_fire(call, id, thread, now_ns, offset_ns)?;
        }
        if spent_ns > 0 {
            m.run(cpu, spent_ns, CpuKind::Busy);
        }
        self.record_round(now_ns, thread, fired.len(), &sleep)?;
        if sleep.stopped {
            self.note_sleep(m, thread, &sleep, None);
            return self.recheck(m);
        }
        self.sleep_after_round(m, thread, &sleep, now_ns, spent_ns, design_start_ns);
        self.recheck(m)
    }

    /// Records the round in the trace, when events are wanted.
    fn record_round(
        &mut self,
        now_ns: u64,
        thread: usize,
        fired: usize,
        sleep: &ticklab_models::timer::Sleep,
    ) -> Result<(), RunError> {
        if self.wants_events {
            let clock = self.timers.clock().name();
            let round = RoundEvent {
                t_ns: now_ns,
                thread: thread as u32,
                fired: fired as u32,
                sleep_until_ns: sleep.until_ns,
                clock,
            };
            self.sink.record(&Event::Model(&round))?;
        }
        Ok(())
    }

    /// Puts the thread to sleep after its round: woken at once if signalled during it, else at
    /// the design's next deadline, or only by a signal.
    fn sleep_after_round(
        &mut self,
        m: &mut Machine<Wake>,
        thread: usize,
        sleep: &ticklab_models::timer::Sleep,
        now_ns: u64,
        spent_ns: u64,
        design_start_ns: i64,
    ) {
        self.threads[thread].1 += 1;
        let generation = self.threads[thread].1;
        let wake = Wake::TimerThread {
            thread: thread as u32,
            generation,
        };
        if self.timers.signals(thread) != sleep.seen_signals {
            // Signalled during the round: the futex wait returns at once.
            m.wake_at_physical(now_ns + spent_ns, wake);
            let woken = Some(physical(now_ns + spent_ns));
            self.note_sleep(m, thread, sleep, woken);
        } else if let Some(until_ns) = sleep.until_ns {
            // brpc sleeps for the time left on its own clock, measured on CLOCK_MONOTONIC.
            let left_ns = until_ns
                .saturating_sub(design_start_ns + spent_ns as i64)
                .max(0);
            let deadline = Deadline {
                clock: ClockId::Monotonic,
                at_ns: m.read(ClockId::Monotonic) + spent_ns as i64 + left_ns,
            };
            match self.config.sleep_overshoot_ns {
                // The scenario says how late this thread's sleeps end.
                Some(overshoot_ns) => m.wake_at(
                    Deadline {
                        at_ns: deadline.at_ns + overshoot_ns as i64,
                        ..deadline
                    },
                    wake,
                ),
                // As the platform's timed waits end.
                None => m.timed_wake(deadline, wake),
            }
            self.note_sleep(m, thread, sleep, Some(deadline));
        } else {
            self.note_sleep(m, thread, sleep, None);
        }
    }

    /// Runs one round of the design; returns what fired (call, timer, offset into the round) and
    /// the CPU time the callbacks took.
    fn run_round(
        &mut self,
        thread: usize,
        design_start_ns: i64,
    ) -> (Vec<(u32, TimerId, u64)>, u64, ticklab_models::timer::Sleep) {
        let config = self.config;
        let mut fires_so_far = self.fires_so_far;
        let mut spent_ns = 0u64;
        let mut fired = Vec::new();
        let sleep = self
            .timers
            .run_round(thread, design_start_ns, &mut |id, call| {
                fired.push((call, id, spent_ns));
                fires_so_far += 1;
                spent_ns += match config.slow_callback {
                    Some((every, cost_ns)) if fires_so_far.is_multiple_of(every) => cost_ns,
                    _ => config.callback_cost_ns,
                };
                design_start_ns + spent_ns as i64
            });
        self.fires_so_far = fires_so_far;
        (fired, spent_ns, sleep)
    }

    /// A timer fired in the round that began at `round_ns`, after `offset_ns` of callbacks.
    fn on_fire(
        &mut self,
        index: u32,
        id: TimerId,
        thread: usize,
        round_ns: u64,
        offset_ns: u64,
    ) -> Result<(), RunError> {
        let at_ns = round_ns + offset_ns;
        let Some(call) = self
            .calls
            .get_mut(index)
            .filter(|call| call.timer == Some(id) && !call.fired)
        else {
            // The call ended (its timer was cancelled) or already fired.
            self.stats.duplicates += 1;
            let violations = self.stats.violations();
            let what = format!("timer of call #{index} fired after a cancel or a fire");
            crate::invariant::report(self.sink, at_ns, violations, what)?;
            return Ok(());
        };
        call.fired = true;
        let lateness_ns = at_ns as i64 - call.timeout_at_ns as i64;
        self.stats.on_fire(at_ns, lateness_ns, offset_ns);
        if lateness_ns < 0 {
            let violations = self.stats.violations();
            let what = format!(
                "timer of call #{index} fired {} before its timeout",
                ticklab_sim::Approx(lateness_ns.unsigned_abs())
            );
            crate::invariant::report(self.sink, at_ns, violations, what)?;
        }
        if self.wants_events {
            let fire = FireEvent {
                t_ns: at_ns,
                call: index,
                thread: thread as u32,
                lateness_ns,
            };
            self.sink.record(&Event::Model(&fire))?;
        }
        Ok(())
    }
}
