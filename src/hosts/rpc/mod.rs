//! RPC with deadlines between hosts. Each client calls the server every `call_every` (on its
//! `Instant`) and arms the call's deadline `timeout` ahead on a timer design of the registry,
//! read on the client's `clock`. The server answers after `serve_time`. Whichever comes first
//! resolves the call: the reply, if `unschedule` still cancels the timer, or the timer's
//! callback. A reply to a client asleep is lost; so is a call to a server asleep.
//!
//! Every call must resolve exactly once. A call never resolved by the end of the run is lost if
//! its client could have ended it: the client runs, and its own timer clock reads a whole
//! timeout past the deadline. One whose client is asleep or frozen at the end, or whose clock
//! stopped while it slept, is still waiting for that clock, and is no loss.

mod spec;
mod workload;

pub use spec::RpcConfig;
pub(crate) use spec::validate;

use ticklab_models::timer::{TimerClock, TimerId, TimerParams, Unscheduled};
use ticklab_sim::{ClockId, Platform};

use super::event_kind::HostEventKind;
use super::out::Out;
use super::spec::HostClock;
use super::workload::{HostId, Hosts, WakeId};
use crate::timer::designs::SimTimers;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RpcMsg {
    Call { call: u32 },
    Reply { call: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RpcWake {
    /// A client's next call.
    Call,
    /// A client's timer thread runs a round.
    Round { thread: u32 },
    /// The server has its answer to `call` from `client` ready.
    Serve { client: u32, call: u32 },
}

/// What one call's record costs: every call's is kept for the summary.
pub(crate) const BYTES_PER_CALL: u64 = crate::memory::grown::<CallRecord>();

#[derive(Clone, Copy, Debug)]
struct CallRecord {
    client: HostId,
    sent_ns: u64,
    /// The deadline, on the client's timer clock.
    deadline_ns: i64,
    timer: Option<TimerId>,
    resolutions: u8,
}

struct Client {
    timers: Box<dyn SimTimers>,
    /// Each timer thread's pending round.
    rounds: Vec<Option<WakeId>>,
    /// Each timer thread's signal count when it last went to sleep: `None` before its first
    /// round.
    seen: Vec<Option<u64>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("rounds", &self.rounds)
            .finish()
    }
}

#[derive(Debug)]
pub(crate) struct Rpc {
    config: RpcConfig,
    clocks: Vec<ClockId>,
    instants: Vec<ClockId>,
    clients: Vec<Option<Client>>,
    calls: Vec<CallRecord>,
    serve_rng: ticklab_sim::SimRng,
    replies: u64,
    timeouts: u64,
    early_timeouts: u64,
    late_replies: u64,
    twice: u64,
    max_lateness_ns: u64,
    /// When the latest deadline fired; the first of equals.
    worst_at_ns: Option<u64>,
    peak_live: u64,
}

/// Slots per client: every call in flight, with room to spare.
fn capacity(config: &RpcConfig) -> usize {
    let in_flight = config.timeout_ns / config.call_every_ns + 2;
    (in_flight.saturating_mul(4)).clamp(1_024, 1 << 22) as usize
}

impl Rpc {
    pub(crate) fn new(config: &RpcConfig, platforms: &[Platform], seed: u64) -> Self {
        let timer_clock = match config.clock {
            HostClock::Clock(ClockId::Wall) => TimerClock::Wall,
            _ => TimerClock::Monotonic,
        };
        let params = TimerParams::new(timer_clock, capacity(config));
        let mut clients: Vec<Option<Client>> = platforms.iter().map(|_| None).collect();
        for &client in &config.clients {
            let timers = config.design.build(&params);
            let rounds = vec![None; timers.timer_threads()];
            let seen = vec![None; timers.timer_threads()];
            clients[client] = Some(Client {
                timers,
                rounds,
                seen,
            });
        }
        Rpc {
            config: config.clone(),
            clocks: platforms.iter().map(|p| config.clock.on(*p)).collect(),
            instants: platforms.iter().map(|p| p.instant_clock()).collect(),
            clients,
            calls: Vec::new(),
            serve_rng: ticklab_sim::SimRng::for_purpose(seed, "hosts-serve-time"),
            replies: 0,
            timeouts: 0,
            early_timeouts: 0,
            late_replies: 0,
            twice: 0,
            max_lateness_ns: 0,
            worst_at_ns: None,
            peak_live: 0,
        }
    }

    /// What the workload holds now: its call records and its clients' timers.
    pub(crate) fn footprint(&self) -> crate::memory::Footprint {
        let timers: usize = self
            .clients
            .iter()
            .flatten()
            .map(|client| client.timers.slots_in_use())
            .sum();
        crate::memory::Footprint::new()
            .with(
                super::memory::CALLS,
                self.calls.len() as u128,
                BYTES_PER_CALL,
            )
            .with(
                super::memory::TIMERS,
                timers as u128,
                self.config.design.bytes_per_timer,
            )
    }

    pub(crate) fn start(&mut self, hosts: &mut Hosts<'_, Rpc>) {
        for client in self.config.clients.clone() {
            let now = hosts.read(client, self.instants[client]);
            hosts.wake_at(client, self.instants[client], now, RpcWake::Call);
            // Every timer thread runs a first round as it starts, as the one-machine timer runs
            // do: a design may need one to be waiting before a schedule can wake it (Go's
            // poller).
            let threads = self.clients[client].as_ref().map_or(0, |c| c.rounds.len());
            for thread in 0..threads {
                self.wake_thread(client, thread, hosts);
            }
        }
    }

    /// Puts timer thread `thread` to sleep until the design's clock reads `until_ns`. A design
    /// on the wall clock sleeps for the time left by it, measured on `CLOCK_MONOTONIC`, as brpc
    /// does: a wall step neither wakes it early nor keeps it asleep. Any other clock is waited
    /// on as it runs, as the other models' timed waits on `Instant` are.
    fn sleep_until(
        &mut self,
        host: HostId,
        thread: usize,
        until_ns: i64,
        hosts: &mut Hosts<'_, Rpc>,
    ) {
        let clock = self.clocks[host];
        let (wait_clock, wait_until_ns) = if clock == ClockId::Wall {
            let left_ns = until_ns.saturating_sub(hosts.read(host, clock)).max(0);
            let monotonic_ns = hosts.read(host, ClockId::Monotonic);
            (ClockId::Monotonic, monotonic_ns.saturating_add(left_ns))
        } else {
            (clock, until_ns)
        };
        let tag = RpcWake::Round {
            thread: thread as u32,
        };
        let client = self.clients[host].as_mut().expect("a client");
        client.rounds[thread] = Some(hosts.wake_at(host, wait_clock, wait_until_ns, tag));
    }

    pub(crate) fn on_wake(
        &mut self,
        host: HostId,
        wake: RpcWake,
        hosts: &mut Hosts<'_, Rpc>,
        out: &mut Out<'_>,
    ) {
        match wake {
            RpcWake::Call => self.call(host, hosts, out),
            RpcWake::Round { thread } => {
                if let Some(client) = self.clients[host].as_mut() {
                    client.rounds[thread as usize] = None;
                }
                self.round(host, thread as usize, hosts, out);
            }
            RpcWake::Serve { client, call } => {
                hosts.send(host, client as usize, RpcMsg::Reply { call });
            }
        }
    }

    fn call(&mut self, host: HostId, hosts: &mut Hosts<'_, Rpc>, out: &mut Out<'_>) {
        let call = self.calls.len() as u32;
        let armed_at_ns = hosts.read(host, self.clocks[host]);
        let deadline = armed_at_ns.saturating_add(self.config.timeout_ns as i64);
        let client = self.clients[host].as_mut().expect("a client");
        let scheduled = client
            .timers
            .schedule(armed_at_ns, deadline, call, host as u64);
        self.calls.push(CallRecord {
            client: host,
            sent_ns: hosts.now_ns(),
            deadline_ns: deadline,
            timer: scheduled.ok().map(|scheduled| scheduled.id),
            resolutions: 0,
        });
        match scheduled {
            Ok(scheduled) if scheduled.wake => self.signal_thread(host, scheduled.thread, hosts),
            Ok(_) => {}
            Err(error) => out.violation(hosts.now_ns(), || {
                format!("call {call}: its deadline could not be armed: {error:?}")
            }),
        }
        self.note_live(host);
        hosts.send(host, self.config.server, RpcMsg::Call { call });
        let next = hosts
            .read(host, self.instants[host])
            .saturating_add(self.config.call_every_ns as i64);
        hosts.wake_at(host, self.instants[host], next, RpcWake::Call);
    }

    fn note_live(&mut self, host: HostId) {
        if let Some(client) = &self.clients[host] {
            self.peak_live = self.peak_live.max(client.timers.slots_in_use() as u64);
        }
    }

    /// A schedule asked to wake timer thread `thread`: as a futex waiter, it wakes only if the
    /// design bumped the signal count it sleeps on, so a design that forgets to is caught here
    /// as under loom.
    fn signal_thread(&mut self, host: HostId, thread: usize, hosts: &mut Hosts<'_, Rpc>) {
        let client = self.clients[host].as_ref().expect("a client");
        if client.seen[thread] == Some(client.timers.signals(thread)) {
            return;
        }
        self.wake_thread(host, thread, hosts);
    }

    /// Runs timer thread `thread` now, instead of when it meant to wake.
    fn wake_thread(&mut self, host: HostId, thread: usize, hosts: &mut Hosts<'_, Rpc>) {
        let client = self.clients[host].as_mut().expect("a client");
        if let Some(pending) = client.rounds[thread].take() {
            hosts.cancel(pending);
        }
        // As a sleep of nothing, so that a wall step at this very moment cannot move it.
        let now = hosts.read(host, self.clocks[host]);
        self.sleep_until(host, thread, now, hosts);
    }

    fn round(
        &mut self,
        host: HostId,
        thread: usize,
        hosts: &mut Hosts<'_, Rpc>,
        out: &mut Out<'_>,
    ) {
        let clock = self.clocks[host];
        let now = hosts.read(host, clock);
        let mut fired = Vec::new();
        let client = self.clients[host].as_mut().expect("a client");
        let sleep = client.timers.run_round(thread, now, &mut |_, call| {
            fired.push(call);
            now
        });
        let woken = client.timers.woken_by_round(thread);
        let signalled = client.timers.signals(thread) != sleep.seen_signals;
        client.seen[thread] = Some(sleep.seen_signals);
        for call in fired {
            self.resolve(call, HostEventKind::Timeout, hosts, out);
        }
        self.note_live(host);
        if let Some(other) = woken {
            self.wake_thread(host, other, hosts);
        }
        if sleep.stopped {
            return;
        }
        if signalled {
            self.wake_thread(host, thread, hosts);
            return;
        }
        if let Some(until_ns) = sleep.until_ns {
            self.sleep_until(host, thread, until_ns, hosts);
        }
    }

    fn resolve(
        &mut self,
        call: u32,
        how: HostEventKind,
        hosts: &Hosts<'_, Rpc>,
        out: &mut Out<'_>,
    ) {
        let record = &mut self.calls[call as usize];
        record.resolutions += 1;
        let host = record.client;
        let deadline_ns = record.sent_ns.saturating_add(self.config.timeout_ns);
        let lateness_ns = hosts.now_ns().saturating_sub(deadline_ns);
        if record.resolutions > 1 {
            self.twice += 1;
            out.event(
                hosts.now_ns(),
                host,
                HostEventKind::ResolvedTwice,
                hosts.read(host, self.clocks[host]),
                |_| {
                    format!(
                        "call {call} resolved again, by its {}",
                        if how == HostEventKind::Reply {
                            "reply"
                        } else {
                            "deadline"
                        }
                    )
                },
                None,
            );
            out.violation(hosts.now_ns(), || format!("call {call} resolved twice"));
            return;
        }
        let early_ns = deadline_ns.saturating_sub(hosts.now_ns());
        let (kind, delay) = match how {
            HostEventKind::Reply => {
                self.replies += 1;
                (how, None)
            }
            _ if early_ns > 0 => {
                self.timeouts += 1;
                self.early_timeouts += 1;
                (HostEventKind::EarlyTimeout, None)
            }
            _ => {
                self.timeouts += 1;
                if self.worst_at_ns.is_none() || lateness_ns > self.max_lateness_ns {
                    self.max_lateness_ns = lateness_ns;
                    self.worst_at_ns = Some(hosts.now_ns());
                }
                (how, Some(lateness_ns))
            }
        };
        if out.wants_events() {
            let clock_ns = hosts.read(host, self.clocks[host]);
            let detail = |_: &super::out::Names<'_>| match kind {
                HostEventKind::EarlyTimeout => format!(
                    "call {call}, {} before its timeout was up",
                    ticklab_sim::Approx(early_ns)
                ),
                _ => format!("call {call}"),
            };
            out.event(hosts.now_ns(), host, kind, clock_ns, detail, delay);
        }
    }

    pub(crate) fn on_message(
        &mut self,
        from: HostId,
        to: HostId,
        msg: RpcMsg,
        hosts: &mut Hosts<'_, Rpc>,
        out: &mut Out<'_>,
    ) {
        match msg {
            RpcMsg::Call { call } => {
                let (low, high) = self.config.serve_ns;
                let serve_ns = self.serve_rng.in_range(low, high);
                let at = hosts
                    .read(to, self.instants[to])
                    .saturating_add(serve_ns as i64);
                let tag = RpcWake::Serve {
                    client: from as u32,
                    call,
                };
                hosts.done_at(to, self.instants[to], at, tag);
            }
            RpcMsg::Reply { call } => {
                let Some(timer) = self.calls[call as usize].timer else {
                    return;
                };
                let client = self.clients[to].as_mut().expect("a client");
                match client.timers.unschedule(timer) {
                    Unscheduled::Cancelled => self.resolve(call, HostEventKind::Reply, hosts, out),
                    _ => self.late_replies += 1,
                }
                self.note_live(to);
            }
        }
    }

    /// The metrics of [`super::RPC_METRICS`], by name. Every call must end, answered or
    /// timed out: one its client could have ended (see the module's text) and did not is a
    /// broken invariant as well as a count.
    pub(crate) fn finish(
        &mut self,
        hosts: &Hosts<'_, Rpc>,
        end_ns: u64,
        out: &mut Out<'_>,
    ) -> Vec<(&'static str, u64)> {
        let timeout_ns = self.config.timeout_ns as i64;
        let mut lost = 0u64;
        for (call, record) in self.calls.iter().enumerate() {
            let client = record.client;
            // A whole timeout past its deadline: a timer design's own resolution is no loss.
            let overdue_ns = hosts.read(client, self.clocks[client]) - record.deadline_ns;
            if record.resolutions == 0 && hosts.can_run(client) && overdue_ns > timeout_ns {
                lost += 1;
                let sent_ns = record.sent_ns;
                out.violation(end_ns, || {
                    format!(
                        "call {call}, sent at {}, never ended: no reply and no timeout by the end, \
                         {} past its deadline on its client's clock",
                        ticklab_sim::Secs(sent_ns),
                        ticklab_sim::Approx(overdue_ns as u64)
                    )
                });
            }
        }
        let once = self
            .calls
            .iter()
            .filter(|record| record.resolutions == 1)
            .count() as u64;
        vec![
            ("calls", self.calls.len() as u64),
            ("calls_resolved_once", once),
            ("replies", self.replies),
            ("timeouts", self.timeouts),
            ("early_timeouts", self.early_timeouts),
            ("late_replies", self.late_replies),
            ("calls_lost", lost),
            ("calls_resolved_twice", self.twice),
            ("max_timeout_lateness", self.max_lateness_ns),
            (
                "worst_timeout_at",
                self.worst_at_ns.unwrap_or(super::NOT_YET),
            ),
            ("peak_live_timers", self.peak_live),
        ]
    }
}
