//! An RPC-timeout workload on turmoil's simulated network and clock, with ticklab's `Bucketed`
//! timer (brpc's `TimerThread`) arming every call's deadline.
//!
//! A client host sends one call every 10 ms over UDP to a server host and arms a 50 ms deadline
//! for it. The timer design is a sans-time core, so a "timer thread" task drives it on turmoil's
//! clock: it runs a round, then sleeps until the next deadline or until a `schedule` asks for a
//! wake. Whichever comes first resolves a call: the reply, if `unschedule` still cancels the
//! timer, or else the timer's callback, which makes the reply late. The server delays its replies
//! far past the deadline during latency spikes, and partitions the two hosts for a while and then
//! repairs the link, so datagrams are lost.
//!
//! The workload checks that every call resolves exactly once; that calls well inside a fault
//! window time out and calls far from every fault get their reply; that fired and cancelled timers
//! account for every call; that no timer slot is left behind and a stopped design stops its
//! thread; and that two runs with the same seed log the same outcomes. The report is a snapshot.

use std::cell::RefCell;
use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use ticklab_models::sync::StdPrimitives;
use ticklab_models::timer::{Bucketed, Sleep, TimerClock, TimerDesign, TimerId, Unscheduled};
use tokio::sync::Notify;
use tokio::task::{JoinError, JoinHandle, spawn_local};
use tokio::time::{Instant, sleep, sleep_until};
use turmoil::Sim;
use turmoil::net::UdpSocket;

/// Fixed, so that the message latencies turmoil draws, and with them the report, never change.
const SEED: u64 = 7;
const CLIENT: &str = "client";
const SERVER: &str = "server";
const PORT: u16 = 9000;

const CALLS: u64 = 400;
const CALL_PERIOD_MS: u64 = 10;
const CALL_DEADLINE_MS: u64 = 50;

/// One-way datagram latency: a round trip takes at most 16 ms, well inside the deadline, so only
/// the faults below make calls time out. Turmoil draws min + (max - min) * Exp(5), truncated to
/// whole milliseconds, so most datagrams take 1 or 2 ms and a few take longer.
const MIN_LATENCY_MS: u64 = 1;
const MAX_LATENCY_MS: u64 = 8;

/// Windows of time in which the server holds each reply back far past the deadline.
const SPIKES: [Spike; 2] = [
    Spike {
        window: Window {
            start_ms: 1_000,
            end_ms: 1_500,
        },
        reply_delay_ms: 200,
    },
    Spike {
        window: Window {
            start_ms: 2_500,
            end_ms: 2_800,
        },
        reply_delay_ms: 80,
    },
];

/// The link between client and server is cut for this window, then repaired.
const PARTITION: Window = Window {
    start_ms: 1_800,
    end_ms: 2_200,
};

/// Calls sent this close to a fault window's edge may go either way: a datagram's latency, or a
/// reply still in flight when the link breaks, decides. Twice the longest round trip is ample.
const EDGE_MARGIN_MS: u64 = 20;

/// How long the client keeps listening after its last deadline, so that replies the longest spike
/// held back still arrive and are counted as late.
const DRAIN_MS: u64 = 300;

/// Long enough for every call, its deadline and the drain; a hang fails in well under a second of
/// real time instead of running on.
const SIMULATION_DURATION: Duration = Duration::from_secs(10);

/// brpc's default bucket count. Every call is scheduled by one caller, so all of them share one
/// bucket's slots (1,024 / 13, rounded up: 79), far more than the handful of deadlines in flight.
const TIMER_BUCKETS: usize = 13;
const TIMER_CAPACITY: usize = 1_024;
/// The client is one thread: the bucketed design hashes this to pick its bucket.
const CLIENT_THREAD: u64 = 1;

const NS_PER_MS: i64 = 1_000_000;

/// Timers whose payload is the call they time out.
type Timers = Bucketed<StdPrimitives, u64>;
type TimerThreadState = <Timers as TimerDesign<u64>>::ThreadState;

/// A span of simulated time, in milliseconds since the simulation started.
#[derive(Clone, Copy, Debug)]
struct Window {
    start_ms: u64,
    end_ms: u64,
}

impl Window {
    fn contains_ms(self, at_ms: u64) -> bool {
        self.start_ms <= at_ms && at_ms < self.end_ms
    }

    /// Whether the window holds `at_ms` with `margin_ms` to spare on both sides.
    fn holds_well_inside(self, at_ms: u64, margin_ms: u64) -> bool {
        self.start_ms + margin_ms <= at_ms && at_ms + margin_ms < self.end_ms
    }

    /// Whether `at_ms` lies in the window widened by `margin_ms` on both sides.
    fn is_near(self, at_ms: u64, margin_ms: u64) -> bool {
        self.start_ms <= at_ms + margin_ms && at_ms < self.end_ms + margin_ms
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{} ms", self.start_ms, self.end_ms)
    }
}

#[derive(Clone, Copy, Debug)]
struct Spike {
    window: Window,
    reply_delay_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Reply,
    Timeout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resolution {
    outcome: Outcome,
    at_ns: i64,
}

/// One call, as the client logged it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Call {
    sent_ns: i64,
    timer: TimerId,
    resolution: Option<Resolution>,
}

/// What the client saw of the timer design once every call had resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shutdown {
    fired_in_final_round: u64,
    slots_in_use_after_final_round: usize,
    /// What the timer thread's round after `stop` reported.
    last_round: Sleep,
    slots_in_use_after_stop: usize,
}

/// Everything the client records: one entry per call, the timer counts, and every broken rule.
#[derive(Debug, Default)]
struct Ledger {
    calls: Vec<Call>,
    timers_fired: u64,
    timers_cancelled: u64,
    late_replies: u64,
    /// Rules broken inside the simulation, recorded rather than panicking there: a panic in a
    /// spawned task would only surface as a stalled client.
    violations: Vec<String>,
    shutdown: Option<Shutdown>,
}

impl Ledger {
    fn open(&mut self, call: u64, sent_ns: i64, timer: TimerId) {
        assert_eq!(call, self.calls.len() as u64, "calls open in order");
        self.calls.push(Call {
            sent_ns,
            timer,
            resolution: None,
        });
    }

    fn timer_of(&self, call: u64) -> Option<TimerId> {
        self.calls.get(call as usize).map(|call| call.timer)
    }

    /// Resolves `call` once; a second resolution is a violation and leaves the first in place.
    fn resolve(&mut self, call: u64, outcome: Outcome, at_ns: i64) {
        let Some(entry) = self.calls.get_mut(call as usize) else {
            self.violations
                .push(format!("call {call} resolved but never sent"));
            return;
        };
        match entry.resolution {
            Some(first) => self.violations.push(format!(
                "call {call} resolved twice: {first:?}, then {outcome:?} at {at_ns} ns"
            )),
            None => entry.resolution = Some(Resolution { outcome, at_ns }),
        }
    }

    /// The timer's callback: the deadline won the race.
    fn time_out(&mut self, call: u64, at_ns: i64) {
        self.timers_fired += 1;
        self.resolve(call, Outcome::Timeout, at_ns);
    }

    /// A reply arrived and `unschedule` said whether it beat the timer.
    fn reply_arrived(&mut self, call: u64, unscheduled: Unscheduled, at_ns: i64) {
        if unscheduled == Unscheduled::Cancelled {
            self.timers_cancelled += 1;
            self.resolve(call, Outcome::Reply, at_ns);
            return;
        }
        // The timer ran (or is running) first, so its callback resolves the call as a timeout.
        self.late_replies += 1;
        let timed_out = self.calls[call as usize]
            .resolution
            .is_some_and(|resolution| resolution.outcome == Outcome::Timeout);
        if !timed_out && unscheduled == Unscheduled::NotFound {
            self.violations.push(format!(
                "call {call}: unschedule found no timer at {at_ns} ns, yet the call has not timed out"
            ));
        }
    }

    fn count(&self, outcome: Outcome) -> u64 {
        let resolved_as = |call: &&Call| call.resolution.is_some_and(|r| r.outcome == outcome);
        self.calls.iter().filter(resolved_as).count() as u64
    }
}

/// The figures the test prints and snapshots.
#[derive(Debug)]
struct Report {
    calls: u64,
    replies: u64,
    timeouts: u64,
    timers_fired: u64,
    timers_cancelled: u64,
    late_replies: u64,
}

impl Report {
    fn of(ledger: &Ledger) -> Self {
        Report {
            calls: ledger.calls.len() as u64,
            replies: ledger.count(Outcome::Reply),
            timeouts: ledger.count(Outcome::Timeout),
            timers_fired: ledger.timers_fired,
            timers_cancelled: ledger.timers_cancelled,
            late_replies: ledger.late_replies,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spikes: Vec<String> = SPIKES
            .iter()
            .map(|spike| format!("{} (+{} ms)", spike.window, spike.reply_delay_ms))
            .collect();
        writeln!(
            f,
            "turmoil seed {SEED}; a call every {CALL_PERIOD_MS} ms with a {CALL_DEADLINE_MS} ms \
             deadline; spikes {}; partition {PARTITION}",
            spikes.join(", ")
        )?;
        writeln!(f, "calls            {}", self.calls)?;
        writeln!(f, "replies          {}", self.replies)?;
        writeln!(f, "timeouts         {}", self.timeouts)?;
        writeln!(f, "timers fired     {}", self.timers_fired)?;
        writeln!(f, "timers cancelled {}", self.timers_cancelled)?;
        write!(f, "late replies     {}", self.late_replies)
    }
}

/// Turmoil's clock as a host sees it, anchored to the start of the simulation, so that the client,
/// the server and the fault schedule all speak of the same instants.
#[derive(Clone, Copy, Debug)]
struct SimClock {
    start: Instant,
}

impl SimClock {
    /// Must be called inside a host: each host runs its own paused tokio runtime, whose `Instant`s
    /// mean nothing to another host until anchored to the simulation's start.
    fn anchor() -> Self {
        let sim_elapsed = turmoil::sim_elapsed().expect("called inside a turmoil host");
        SimClock {
            start: Instant::now() - sim_elapsed,
        }
    }

    fn now_ns(self) -> i64 {
        i64::try_from(self.start.elapsed().as_nanos()).expect("the simulation lasts seconds")
    }

    fn now_ms(self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn instant_at_ns(self, at_ns: i64) -> Instant {
        self.start + Duration::from_nanos(u64::try_from(at_ns).expect("deadlines follow the start"))
    }

    fn instant_at_ms(self, at_ms: u64) -> Instant {
        self.start + Duration::from_millis(at_ms)
    }
}

fn ms_to_ns(ms: u64) -> i64 {
    ms as i64 * NS_PER_MS
}

/// The outcome the fault schedule dictates for a call sent at `sent_ms`, or `None` near a window's
/// edge, where latency decides.
fn expected_outcome(sent_ms: u64) -> Option<Outcome> {
    let faults = || SPIKES.iter().map(|spike| spike.window).chain([PARTITION]);
    if faults().any(|window| window.holds_well_inside(sent_ms, EDGE_MARGIN_MS)) {
        Some(Outcome::Timeout)
    } else if faults().any(|window| window.is_near(sent_ms, EDGE_MARGIN_MS)) {
        None
    } else {
        Some(Outcome::Reply)
    }
}

/// How long the server holds back its reply to a call it received at `received_ms`.
fn reply_delay_ms(received_ms: u64) -> u64 {
    SPIKES
        .iter()
        .find(|spike| spike.window.contains_ms(received_ms))
        .map_or(0, |spike| spike.reply_delay_ms)
}

fn encode_call(call: u64) -> [u8; 8] {
    call.to_be_bytes()
}

fn decode_call(datagram: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(datagram.try_into().ok()?))
}

/// The server host: echoes every call back, late during a spike, and cuts its link to the client
/// for `PARTITION`.
async fn run_server() -> turmoil::Result {
    let clock = SimClock::anchor();
    spawn_local(cut_the_link(clock));
    let socket = Rc::new(UdpSocket::bind((Ipv4Addr::UNSPECIFIED, PORT)).await?);
    let mut datagram = [0; 8];
    loop {
        let (len, client) = socket.recv_from(&mut datagram).await?;
        let delay_ms = reply_delay_ms(clock.now_ms());
        spawn_local(reply_after(
            Rc::clone(&socket),
            datagram[..len].to_vec(),
            client,
            delay_ms,
        ));
    }
}

/// Partitions the hosts at the start of `PARTITION` and repairs the link at its end.
async fn cut_the_link(clock: SimClock) {
    sleep_until(clock.instant_at_ms(PARTITION.start_ms)).await;
    turmoil::partition(CLIENT, SERVER);
    sleep_until(clock.instant_at_ms(PARTITION.end_ms)).await;
    turmoil::repair(CLIENT, SERVER);
}

/// Sends one reply after `delay_ms`. Each reply waits in a task of its own, so a spike stalls the
/// replies, not the server's receive loop, as a handler stuck on a slow dependency would.
async fn reply_after(
    socket: Rc<UdpSocket>,
    reply: Vec<u8>,
    client: SocketAddr,
    delay_ms: u64,
) -> io::Result<()> {
    if delay_ms > 0 {
        sleep(Duration::from_millis(delay_ms)).await;
    }
    socket.send_to(&reply, client).await.map(drop)
}

/// The client host: issues every call, then checks the timer design is left clean and stops it.
async fn run_client(ledger: Rc<RefCell<Ledger>>) -> turmoil::Result {
    let clock = SimClock::anchor();
    let socket = Rc::new(UdpSocket::bind((Ipv4Addr::UNSPECIFIED, PORT)).await?);
    let timers = Rc::new(Timers::new(
        TIMER_BUCKETS,
        TIMER_CAPACITY,
        TimerClock::Monotonic,
    ));
    // Shared with the client only for the final round, which it runs once every call resolved.
    let thread_state = Rc::new(RefCell::new(timers.new_thread_state(0)));
    let wake = Rc::new(Notify::new());
    let timer_thread = spawn_local(run_timer_thread(
        Rc::clone(&timers),
        Rc::clone(&thread_state),
        Rc::clone(&wake),
        clock,
        Rc::clone(&ledger),
    ));
    let receiver = spawn_local(receive_replies(
        Rc::clone(&socket),
        Rc::clone(&timers),
        clock,
        Rc::clone(&ledger),
    ));

    for call in 0..CALLS {
        sleep_until(clock.instant_at_ms(call * CALL_PERIOD_MS)).await;
        start_call(call, &socket, &timers, &wake, clock, &ledger).await?;
    }
    let last_deadline_ms = (CALLS - 1) * CALL_PERIOD_MS + CALL_DEADLINE_MS;
    sleep_until(clock.instant_at_ms(last_deadline_ms + DRAIN_MS)).await;
    if receiver.is_finished() {
        // It only ever stops on a socket error: report that rather than a pile of missing replies.
        return Ok(receiver.await??);
    }
    receiver.abort();

    let shutdown = shut_down_timers(&timers, &thread_state, &wake, timer_thread, clock, &ledger);
    ledger.borrow_mut().shutdown = Some(shutdown.await?);
    Ok(())
}

/// Once every deadline has passed: runs one more round, which must find nothing left to run and
/// leave no slot in use, then stops the design and waits for the timer thread to report the stop.
async fn shut_down_timers(
    timers: &Timers,
    thread_state: &RefCell<TimerThreadState>,
    wake: &Notify,
    timer_thread: JoinHandle<Sleep>,
    clock: SimClock,
    ledger: &RefCell<Ledger>,
) -> Result<Shutdown, JoinError> {
    let fired_before = ledger.borrow().timers_fired;
    // The bucketed design hands the slots a round freed back to their buckets only on its next
    // drain, so this round also returns what the timer thread's last round freed.
    run_round_now(timers, thread_state, clock, ledger);
    let slots_in_use_after_final_round = timers.slots_in_use();
    let fired_in_final_round = ledger.borrow().timers_fired - fired_before;

    if timers.stop() {
        wake.notify_one();
    }
    let last_round = timer_thread.await?;
    Ok(Shutdown {
        fired_in_final_round,
        slots_in_use_after_final_round,
        last_round,
        slots_in_use_after_stop: timers.slots_in_use(),
    })
}

/// Arms call `call`'s deadline, then sends it.
async fn start_call(
    call: u64,
    socket: &UdpSocket,
    timers: &Timers,
    wake: &Notify,
    clock: SimClock,
    ledger: &RefCell<Ledger>,
) -> io::Result<()> {
    let sent_ns = clock.now_ns();
    let deadline_ns = sent_ns + ms_to_ns(CALL_DEADLINE_MS);
    let scheduled = timers
        .schedule(deadline_ns, call, CLIENT_THREAD)
        .expect("a running design with free slots accepts every call");
    if scheduled.wake {
        wake.notify_one();
    }
    ledger.borrow_mut().open(call, sent_ns, scheduled.id);
    socket.send_to(&encode_call(call), (SERVER, PORT)).await?;
    Ok(())
}

/// Resolves calls as their replies arrive: a reply wins only if it still cancels the timer.
async fn receive_replies(
    socket: Rc<UdpSocket>,
    timers: Rc<Timers>,
    clock: SimClock,
    ledger: Rc<RefCell<Ledger>>,
) -> io::Result<()> {
    let mut datagram = [0; 8];
    loop {
        let (len, _) = socket.recv_from(&mut datagram).await?;
        let call = decode_call(&datagram[..len]);
        let Some((call, timer)) =
            call.and_then(|call| Some((call, ledger.borrow().timer_of(call)?)))
        else {
            let violation = format!("a reply for no call sent: {:?}", &datagram[..len]);
            ledger.borrow_mut().violations.push(violation);
            continue;
        };
        let unscheduled = timers.unschedule(timer);
        ledger
            .borrow_mut()
            .reply_arrived(call, unscheduled, clock.now_ns());
    }
}

/// The timer thread: runs a round at turmoil's now, then sleeps until the next deadline or a
/// wake, until the design is stopped. Returns the round that reported the stop.
async fn run_timer_thread(
    timers: Rc<Timers>,
    thread_state: Rc<RefCell<TimerThreadState>>,
    wake: Rc<Notify>,
    clock: SimClock,
    ledger: Rc<RefCell<Ledger>>,
) -> Sleep {
    loop {
        let sleep = run_round_now(&timers, &thread_state, clock, &ledger);
        if sleep.stopped {
            return sleep;
        }
        // A schedule that bumped the signal count after the round took it asked for a wake the
        // round did not see: sleeping now would miss its deadline, as a futex wait would refuse to.
        if timers.signals(0) != sleep.seen_signals {
            continue;
        }
        wait_for_wake_or_deadline(&wake, clock, sleep.until_ns).await;
    }
}

/// One round at the current simulated time; every timer it fires resolves its call as a timeout.
fn run_round_now(
    timers: &Timers,
    thread_state: &RefCell<TimerThreadState>,
    clock: SimClock,
    ledger: &RefCell<Ledger>,
) -> Sleep {
    let now_ns = clock.now_ns();
    let mut fire = |_: TimerId, call: u64| {
        ledger.borrow_mut().time_out(call, now_ns);
        // The callback takes no simulated time.
        now_ns
    };
    timers.run_round(&mut thread_state.borrow_mut(), now_ns, &mut fire)
}

/// Sleeps until `until_ns` (forever if `None`) or until a scheduler or `stop` notifies. A
/// notification sent while the thread was busy is kept as a permit, so it is not lost either.
async fn wait_for_wake_or_deadline(wake: &Notify, clock: SimClock, until_ns: Option<i64>) {
    let Some(until_ns) = until_ns else {
        wake.notified().await;
        return;
    };
    // `biased` keeps the poll order fixed: tokio's random branch choice would break determinism.
    tokio::select! {
        biased;
        () = wake.notified() => {}
        () = sleep_until(clock.instant_at_ns(until_ns)) => {}
    }
}

fn build_sim(seed: u64) -> Sim<'static> {
    turmoil::Builder::new()
        .rng_seed(seed)
        // Turmoil's default epoch is the real time now; the workload never reads it, but a fixed
        // one keeps every run identical.
        .epoch(UNIX_EPOCH)
        .tick_duration(Duration::from_millis(1))
        .simulation_duration(SIMULATION_DURATION)
        .min_message_latency(Duration::from_millis(MIN_LATENCY_MS))
        .max_message_latency(Duration::from_millis(MAX_LATENCY_MS))
        .build()
}

/// Runs the whole workload once and returns the client's ledger.
fn simulate(seed: u64) -> Ledger {
    let ledger = Rc::new(RefCell::new(Ledger::default()));
    let mut sim = build_sim(seed);
    sim.host(SERVER, run_server);
    sim.client(CLIENT, run_client(Rc::clone(&ledger)));
    sim.run()
        .expect("the client finishes within the simulation's duration");
    ledger.take()
}

fn assert_no_violations(ledger: &Ledger) {
    assert!(
        ledger.violations.is_empty(),
        "violations: {:#?}",
        ledger.violations
    );
}

fn assert_every_call_resolved(ledger: &Ledger) {
    assert_eq!(ledger.calls.len() as u64, CALLS, "every call was sent");
    let unresolved: Vec<usize> = (0..ledger.calls.len())
        .filter(|&call| ledger.calls[call].resolution.is_none())
        .collect();
    assert!(
        unresolved.is_empty(),
        "calls never resolved: {unresolved:?}"
    );
}

fn assert_outcomes_follow_fault_schedule(ledger: &Ledger) {
    let mut checked = 0;
    for (call, entry) in ledger.calls.iter().enumerate() {
        let sent_ms = (entry.sent_ns / NS_PER_MS) as u64;
        let Some(expected) = expected_outcome(sent_ms) else {
            continue;
        };
        let outcome = entry.resolution.map(|resolution| resolution.outcome);
        assert_eq!(outcome, Some(expected), "call {call} sent at {sent_ms} ms");
        checked += 1;
    }
    // Guards against a schedule so wide that it checks next to nothing.
    assert!(
        checked > ledger.calls.len() * 3 / 4,
        "only {checked} calls were far enough from a window's edge to check"
    );
}

fn assert_timers_account_for_calls(report: &Report) {
    assert_eq!(
        report.timers_fired + report.timers_cancelled,
        report.calls,
        "every timer fired or was cancelled, never both: {report:#?}"
    );
    assert_eq!(report.timers_fired, report.timeouts, "{report:#?}");
    assert_eq!(report.timers_cancelled, report.replies, "{report:#?}");
    assert!(report.timers_fired > 0, "no deadline ever won: {report:#?}");
    assert!(
        report.timers_cancelled > 0,
        "no reply ever won: {report:#?}"
    );
}

fn assert_no_timer_left_behind(ledger: &Ledger) {
    let shutdown = ledger.shutdown.expect("the client reached its shutdown");
    assert_eq!(
        shutdown.fired_in_final_round, 0,
        "a round past every deadline found a timer the timer thread had not run"
    );
    assert_eq!(
        shutdown.slots_in_use_after_final_round, 0,
        "timer slots leaked"
    );
    assert!(
        shutdown.last_round.stopped,
        "after stop, the timer thread's round reports stopped"
    );
    assert_eq!(shutdown.slots_in_use_after_stop, 0, "stop leaked slots");
}

#[test]
fn every_rpc_resolves_once_through_spikes_and_a_partition() {
    let ledger = simulate(SEED);
    let report = Report::of(&ledger);
    println!("{report}");

    assert_no_violations(&ledger);
    assert_every_call_resolved(&ledger);
    assert_outcomes_follow_fault_schedule(&ledger);
    assert_timers_account_for_calls(&report);
    assert_no_timer_left_behind(&ledger);

    let mut settings = insta::Settings::clone_current();
    // A folder of its own: tests/scenarios.rs flags every .snap directly in snapshots/ that has
    // no scenario file.
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/turmoil"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("rpc-timeouts", report.to_string()));
}

#[test]
fn the_same_seed_gives_the_same_outcomes() {
    let first = simulate(SEED);
    let second = simulate(SEED);
    assert_eq!(first.calls, second.calls, "per-call outcomes differ");
    assert_eq!(first.late_replies, second.late_replies);
}
