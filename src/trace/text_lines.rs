//! How each event reads as a line of text: physical time first, then what happened, like a
//! program's own log.

use std::io::{self, Write};

use ticklab_sim::{Approx, Compact, Secs};

use super::event::SignedSecs;
use super::{Event, StartEvent, Summary, Wall};

pub(super) fn write_start(out: &mut impl Write, start: &StartEvent) -> io::Result<()> {
    writeln!(out, "# {}", one_line(&start.about))?;
    writeln!(
        out,
        "# {} model, {}; seed {}; run for {}; wall clock starts at {}",
        start.model,
        start.source,
        start.seed,
        Compact(start.run_for_ns as i64),
        start.wall
    )?;
    match start.instant_source {
        Some(source) => writeln!(
            out,
            "# platform {}: Instant reads {} ({source})",
            start.platform, start.instant_clock
        )?,
        None => writeln!(
            out,
            "# platform {}: Instant reads {} (overridden by the scenario)",
            start.platform, start.instant_clock
        )?,
    }
    if let Some(profile) = &start.profile {
        writeln!(out, "# system calls cost what the profile {profile} says")?;
    }
    Ok(())
}

pub(super) fn write_summary(out: &mut impl Write, summary: &Summary) -> io::Result<()> {
    writeln!(
        out,
        "--- summary of the {} run at {}",
        summary.model,
        Secs(summary.t_ns)
    )?;
    for (metric, value) in &summary.values {
        writeln!(out, "{:<28}{}", metric.text_key(), metric.show(*value))?;
    }
    for thread in &summary.threads {
        writeln!(
            out,
            "{:<28}busy {}, worst second {} from {}",
            format!("thread {}", thread.name),
            Approx(thread.busy_ns),
            Approx(thread.worst_second_busy_ns),
            Secs(thread.worst_second_start_ns)
        )?;
    }
    for section in summary.groups.iter().chain(&summary.parts) {
        let values: Vec<String> = section
            .values
            .iter()
            .map(|(metric, value)| format!("{} {}", metric.name, metric.show(*value)))
            .collect();
        writeln!(
            out,
            "{:<28}{}",
            format!("{} {}", section.kind, section.name),
            values.join(", ")
        )?;
    }
    Ok(())
}

/// Writes one event as its line (or, for the start and the summary, its lines).
pub(super) fn write_event(out: &mut impl Write, event: &Event<'_>) -> io::Result<()> {
    let t = Secs(event.t_ns());
    match event {
        Event::Start(start) => write_start(out, start),
        Event::Summary(summary) => write_summary(out, summary),
        Event::Tick(tick) => writeln!(
            out,
            "{t:>17} tick      i{} #{}  wall {}  instant {}  deadline {}",
            tick.interval,
            tick.seq,
            tick.wall,
            SignedSecs(tick.instant_ns),
            SignedSecs(tick.deadline_ns)
        ),
        Event::Call(call) => {
            let lock = if call.global_lock {
                "  global lock"
            } else {
                ""
            };
            let woke = if call.woke { "  woke thread" } else { "" };
            match call.timer {
                0 => writeln!(
                    out,
                    "{t:>17} call      c{} #{}  no timer slot free",
                    call.client, call.call
                ),
                timer => writeln!(
                    out,
                    "{t:>17} call      c{} #{}  timer {:#x} on thread {}{lock}{woke}",
                    call.client, call.call, timer, call.thread
                ),
            }
        }
        Event::Response(response) => {
            writeln!(
                out,
                "{t:>17} response  #{}  {}",
                response.call, response.outcome
            )
        }
        Event::Fire(fire) => {
            let how = if fire.lateness_ns < 0 {
                "early by"
            } else {
                "late by"
            };
            let by = Approx(fire.lateness_ns.unsigned_abs());
            writeln!(
                out,
                "{t:>17} fire      #{}  on thread {}  {how} {by}",
                fire.call, fire.thread
            )
        }
        Event::TimerRound(round) => match round.sleep_until_ns {
            Some(until) if round.clock == "wall" => writeln!(
                out,
                "{t:>17} round     thread {}  fired {}  sleeps until wall {}",
                round.thread,
                round.fired,
                Wall(until)
            ),
            Some(until) => writeln!(
                out,
                "{t:>17} round     thread {}  fired {}  sleeps until monotonic {}",
                round.thread,
                round.fired,
                SignedSecs(until)
            ),
            None => writeln!(
                out,
                "{t:>17} round     thread {}  fired {}  sleeps until signalled",
                round.thread, round.fired
            ),
        },
        Event::Poll(poll) => {
            let from = match &poll.victim {
                Some(victim) => format!("stolen from {victim}"),
                None => format!("from {}", poll.source),
            };
            writeln!(
                out,
                "{t:>17} poll      {} runs {} {from}, waited {}",
                poll.worker,
                poll.task,
                Approx(poll.waited_ns)
            )
        }
        Event::Spawn(spawn) => writeln!(
            out,
            "{t:>17} spawn     {} spawns {} into {}",
            spawn.task, spawn.spawned, spawn.queued
        ),
        Event::TaskDone(done) => writeln!(
            out,
            "{t:>17} done      {} after {}",
            done.task,
            Approx(done.latency_ns)
        ),
        Event::Io(io) => writeln!(
            out,
            "{t:>17} io        {} took {} on {} conn{} of {}: send wait {}, network {}, driver wait {}, resume wait {}",
            io.task,
            Approx(io.latency_ns),
            if io.reused { "reused" } else { "new" },
            io.connection,
            io.owner,
            Approx(io.send_wait_ns),
            Approx(io.network_ns),
            Approx(io.driver_wait_ns),
            Approx(io.resume_wait_ns)
        ),
        Event::Park(park) => writeln!(
            out,
            "{t:>17} park      {} {}",
            park.worker,
            if park.on_driver {
                "on the driver"
            } else {
                "asleep"
            }
        ),
        Event::DriverPoll(poll) => writeln!(
            out,
            "{t:>17} driver    {} woke {} ({})",
            poll.worker, poll.woke, poll.when
        ),
        Event::Blocking(blocking) => {
            let took = Approx(blocking.t_ns - blocking.started_ns);
            let verb = if blocking.finished {
                "ran"
            } else {
                "was still in"
            };
            match &blocking.worker {
                Some(worker) => writeln!(
                    out,
                    "{t:>17} blocking  {} {verb} block_in_place for {took} on the thread of {worker}",
                    blocking.task
                ),
                None => writeln!(
                    out,
                    "{t:>17} blocking  {} {verb} spawn_blocking for {took} on a blocking thread of {}",
                    blocking.task, blocking.runtime
                ),
            }
        }
        Event::Starvation(starved) => match &starved.polled_by {
            Some(worker) => writeln!(
                out,
                "{t:>17} STARVED   {} waited {} in {} before {worker} polled it",
                starved.task,
                Approx(starved.waited_ns),
                starved.queued
            ),
            None => writeln!(
                out,
                "{t:>17} STARVED   {} still waiting after {} in {}",
                starved.task,
                Approx(starved.waited_ns),
                starved.queued
            ),
        },
        Event::LockWait(wait) => writeln!(
            out,
            "{t:>17} lock      {} took it for {} after {}, holds it {} ({} MiB mapped)",
            wait.thread,
            wait.access,
            Approx(wait.waited_ns),
            Approx(wait.hold_ns),
            wait.memory_mib
        ),
        Event::LockWindow(window) => writeln!(
            out,
            "{t:>17} window    from {}: {} acquisitions, wait p50 {} p99 {} max {}, {} MiB mapped",
            Secs(window.from_ns),
            window.acquisitions,
            Approx(window.p50_wait_ns),
            Approx(window.p99_wait_ns),
            Approx(window.max_wait_ns),
            window.memory_mib
        ),
        Event::IdleWake(wake) => writeln!(
            out,
            "{t:>17} wake      {} noticed {} event(s) {} after the first arrived, after {} idle calls",
            wake.strategy,
            wake.events,
            Approx(wake.latency_ns),
            wake.idle_calls
        ),
        Event::Invariant(invariant) => {
            writeln!(out, "{t:>17} BROKEN    {}", invariant.what)
        }
        Event::FaultBegin(fault) => writeln!(
            out,
            "{t:>17} begin     {} (fault {})",
            fault.what, fault.fault
        ),
        Event::FaultEnd(fault) => writeln!(
            out,
            "{t:>17} end       {} (fault {})",
            fault.what, fault.fault
        ),
        Event::WallStep(fault) => writeln!(
            out,
            "{t:>17} step      {} (fault {}): wall now {}",
            fault.what, fault.fault, fault.wall
        ),
        Event::Resume(resume) => writeln!(
            out,
            "{t:>17} resume    after {} stopped  wall {}  instant {}",
            Compact(resume.stopped_ns as i64),
            resume.wall,
            SignedSecs(resume.instant_ns)
        ),
    }
}

/// The noun for a run of routine events of one kind, for elision summaries.
pub(super) fn plural(event: &Event<'_>) -> &'static str {
    match event {
        Event::Tick(_) => "ticks",
        Event::Call(_) => "calls",
        Event::Response(_) => "responses",
        Event::Fire(_) => "fires",
        Event::TimerRound(_) => "timer rounds",
        Event::Poll(_) => "polls",
        Event::Spawn(_) => "spawns",
        Event::TaskDone(_) => "finished tasks",
        Event::Io(_) => "io calls",
        Event::Park(_) => "parks",
        Event::DriverPoll(_) => "driver polls",
        Event::Blocking(_) => "blocking sections",
        Event::LockWait(_) => "lock acquisitions",
        Event::IdleWake(_) => "wakes",
        _ => "events",
    }
}

/// Text a scenario wrote, made safe for one trace line: line breaks and tabs become spaces, and
/// other control characters are escaped, so a header never spills over or drives the terminal.
pub(super) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => " ".to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multi_line_about_stays_on_its_header_line() {
        assert_eq!(one_line("two\nlines\x1b[31m"), "two lines\\u{1b}[31m");
    }
}
