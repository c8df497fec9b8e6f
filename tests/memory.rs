//! The memory bound counts what a run holds, at sizes each model states. This checks those sizes
//! against an allocator that counts every byte: for runs that hold a lot of each kind of thing,
//! the footprint a run is refused by must cover what it really allocates, and not be far above
//! it, or a run that fits would be refused.
//!
//! One test in its own binary: the allocator counts every thread of the process.

use ticklab::measure::{CountingAllocator, bytes_per_timer, live_bytes, peak_bytes, reset_peak};
use ticklab::run::{RunError, RunOptions, run_scenario};
use ticklab::trace::NoTrace;

#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator;

/// What every run allocates whatever it holds: histograms, names, the trace's header.
const BASELINE_BYTES: u64 = 16 << 20;

fn options(max_memory_bytes: u64) -> RunOptions {
    RunOptions {
        max_memory_bytes,
        ..RunOptions::default()
    }
}

/// The most the run really allocates at once, with no memory bound.
fn measure(scenario: &ticklab::scenario::Scenario) -> u64 {
    let before = live_bytes();
    reset_peak();
    run_scenario(scenario, &options(u64::MAX), &mut NoTrace)
        .unwrap_or_else(|error| panic!("{}: {error}", scenario.source));
    (peak_bytes() - before) as u64
}

/// How a run ends under a memory bound of `max_bytes`.
fn under(scenario: &ticklab::scenario::Scenario, max_bytes: u64) -> &'static str {
    match run_scenario(scenario, &options(max_bytes), &mut NoTrace) {
        Ok(_) => "ran",
        Err(RunError::TooMuchMemory { .. }) => "refused",
        Err(RunError::OutOfMemory { .. }) => "stopped",
        Err(other) => panic!("{}: {other}", scenario.source),
    }
}

fn timer(design: &str, latency: &str, timeout: &str) -> String {
    format!(
        r#"
        about = "100k calls a second on {design}, responses in {latency}, timeouts of {timeout}"
        platform = "linux"
        run_for = "20s"
        [model]
        kind = "timer"
        design = "{design}"
        clock = "monotonic"
        clients = 100
        call_interval = "1ms"
        timeout = "{timeout}"
        latency = "{latency}"
        "#
    )
}

const EXECUTOR: &str = r#"
    about = "a million tasks, each doing one io request on a pooled connection"
    platform = "linux"
    run_for = "10s"
    [model]
    kind = "executor"
    [[model.runtime]]
    name = "rt"
    workers = 2
    [[model.pool]]
    name = "http"
    idle = 64
    connect = "1ms"
    [[model.task]]
    name = "request"
    runtime = "rt"
    count = 1000000
    every = "10us"
    steps = [{ io = "http", latency = "1ms" }]
"#;

const IDLE: &str = r#"
    about = "five million events for an idle loop"
    platform = "linux"
    run_for = "50s"
    [model]
    kind = "idle"
    profile = "profiles/reference.toml"
    strategies = ["epoll"]
    arrival = "periodic"
    every = "10us"
    handle = "1us"
    timeout = "10ms"
"#;

const INTERVAL: &str = r#"
    about = "a million intervals side by side"
    platform = "linux"
    run_for = "3s"
    [model]
    kind = "interval"
    missed_tick = "skip"
    period = "1s"
    count = 1000000
"#;

/// Each run is bounded just under what it really allocated: it must be refused or stopped, so
/// the footprint counts at least what the run holds. Bounded at four times that, it must run,
/// so the footprint is not far above. Where the run is refused before it starts, its estimate
/// alone covers the run.
#[test]
fn each_footprint_covers_what_its_run_allocates_and_not_far_more() {
    let mut files = vec![
        ("executor", EXECUTOR.to_string(), "refused"),
        ("idle", IDLE.to_string(), "refused"),
        ("interval", INTERVAL.to_string(), "refused"),
        // Cancelled timers linger until their deadline: only the run itself can see them.
        (
            "bucketed, lingering",
            timer("bucketed", "1ms", "300s"),
            "stopped",
        ),
    ];
    files.push(("hosts, heartbeats", heartbeats(), "refused"));
    files.push(("hosts, calls", calls(""), "refused"));
    files.push(("hosts, machines", machines(), "refused"));
    // Calls to a frozen server are held for it until it runs again: only the run sees them.
    files.push(("hosts, server frozen", calls(FROZEN_SERVER), "stopped"));
    for design in [
        "global-heap",
        "bucketed",
        "bucketed-reclaim",
        "hashed",
        "tokio-wheel",
        "go-timers",
        "hashed-wheel",
    ] {
        files.push((design, timer(design, "5s", "300s"), "either"));
    }
    let mut report = String::new();
    for (name, text, just_under) in &files {
        let scenario =
            ticklab::loader::parse(name, text).unwrap_or_else(|error| panic!("{name}: {error}"));
        let measured = measure(&scenario);
        assert!(
            measured > 2 * BASELINE_BYTES,
            "{name} holds too little to measure"
        );
        let (under_it, well_above) = (
            under(&scenario, measured - BASELINE_BYTES),
            under(&scenario, 4 * measured),
        );
        report.push_str(&format!(
            "{name}: allocated {measured} B; just under it {under_it}, at four times it {well_above}\n"
        ));
        let covered = match *just_under {
            "either" => under_it != "ran",
            expected => under_it == expected,
        };
        assert!(
            covered,
            "{name} was not caught just under what it allocates:\n{report}"
        );
        assert_eq!(
            well_above, "ran",
            "{name} was caught far above what it allocates:\n{report}"
        );
    }
    // Machines' threads are counted as each host runs them, not as a handful each: twice what
    // the run allocates is enough.
    let machines = ticklab::loader::parse("machines", &machines()).unwrap();
    let measured = measure(&machines);
    assert_eq!(
        under(&machines, 2 * measured),
        "ran",
        "machines were refused at twice what they allocate:\n{report}"
    );
    println!("{report}");
    each_design_declares_what_a_timer_holds();
    // CPU is kept per span of the run in bounded bins, not per second: a century of callbacks
    // holds what a minute does.
    let century = ticklab::loader::parse("century", CENTURY).unwrap();
    let measured = measure(&century);
    assert!(
        measured < 100 << 20,
        "a century with callback costs allocated {measured} B"
    );
}

/// 1,000 hosts, each beating to 64 peers every second: every beat renews a check that waits in
/// the cluster's queue for `suspect_after`.
fn heartbeats() -> String {
    r#"
    about = "4,000 hosts heartbeating to 64 peers each"
    platform = "linux"
    run_for = "4s"
    [model]
    kind = "hosts"
    network = "events"
    [[model.host]]
    name = "node"
    count = 4000
    [model.heartbeat]
    every = "1s"
    suspect_after = "5s"
    clock = "monotonic"
    peers = 64
    "#
    .to_string()
}

/// 10,000 two-core hosts, each with a compaction busy all run long and a heartbeat thread.
fn machines() -> String {
    r#"
    about = "10,000 two-core hosts with a busy thread each, heartbeating"
    platform = "linux"
    run_for = "20s"
    [model]
    kind = "hosts"
    network = "events"
    [[model.host]]
    name = "node"
    count = 10000
    [model.host.machine]
    cores = 2
    busy_threads = 1
    [model.heartbeat]
    every = "1s"
    suspect_after = "5s"
    clock = "monotonic"
    peers = 3
    "#
    .to_string()
}

const FROZEN_SERVER: &str = r#"
        [[model.host.fault]]
        kind = "process-suspend"
        at = "1s"
        duration = "8s"
"#;

/// 100 clients calling one server every millisecond, `server_faults` on the server: every
/// call's record is kept.
fn calls(server_faults: &str) -> String {
    let clients: Vec<String> = (1..=100)
        .map(|client| format!("\"client-{client}\""))
        .collect();
    format!(
        r#"
        about = "100 clients calling a server every millisecond"
        platform = "linux"
        run_for = "10s"
        [model]
        kind = "hosts"
        network = "events"
        [[model.host]]
        name = "client"
        count = 100
        [[model.host]]
        name = "server"
        {server_faults}
        [model.rpc]
        clients = [{}]
        server = "server"
        design = "global-heap"
        clock = "monotonic"
        call_every = "1ms"
        timeout = "100ms"
        serve_time = "0ms"
        "#,
        clients.join(", "),
    )
}

const CENTURY: &str = r#"
    about = "one client calling every six months for a century, each call timing out"
    platform = "linux"
    run_for = "36500d"
    [model]
    kind = "timer"
    design = "global-heap"
    clock = "monotonic"
    clients = 1
    call_interval = "182d"
    timeout = "1s"
    latency = "2s"
    callback_cost = "1ms"
"#;

/// Every built-in design's `BYTES_PER_TIMER` covers what it holds with 131,073 or 262,144 timers
/// armed and its threads' first round run, measured as a user measures their own design
/// (`ticklab::measure`), and is no more than four times it. Called from the one test above,
/// since the allocator counts the whole process.
fn each_design_declares_what_a_timer_holds() {
    use ticklab::models::timer::builtin::{
        BucketedDesign, BucketedReclaimDesign, GlobalHeapDesign, HashedDesign,
    };
    use ticklab::models::timer::{
        GoTimersDesign, HashedWheelDesign, LinuxWheelDesign, TokioAltBefore8252Design,
        TokioAltDesign, TokioWheelDesign,
    };
    // Storage that grows by doubling is at its emptiest just past a power of two, and at its
    // fullest just before one: the worse of the two is what a timer costs.
    let worst = |a: ticklab::measure::Measured, b: ticklab::measure::Measured| {
        if a.per_timer >= b.per_timer { a } else { b }
    };
    macro_rules! measure {
        ($design:ty) => {
            worst(
                bytes_per_timer::<$design>((1 << 17) + 1),
                bytes_per_timer::<$design>(1 << 18),
            )
        };
    }
    let measured = [
        measure!(GlobalHeapDesign),
        measure!(BucketedDesign),
        measure!(BucketedReclaimDesign),
        measure!(HashedDesign),
        measure!(TokioWheelDesign),
        measure!(GoTimersDesign),
        measure!(HashedWheelDesign),
        measure!(LinuxWheelDesign),
        measure!(TokioAltDesign),
        measure!(TokioAltBefore8252Design),
    ];
    let report: Vec<String> = measured.iter().map(ToString::to_string).collect();
    println!("{}", report.join("\n"));
    let names: Vec<&str> = measured.iter().map(|measured| measured.design).collect();
    let registry = ticklab::Registry::builtin();
    let registered: Vec<&str> = registry.timer_designs().map(|entry| entry.name).collect();
    assert_eq!(names, registered, "a design was added: measure it here");
    for measured in measured {
        assert!(measured.per_timer <= measured.declared, "{measured}");
        assert!(4 * measured.per_timer >= measured.declared, "{measured}");
    }
}
