//! How each event reads as a line of text: physical time first, then what happened, like a
//! program's own log.

use std::io::{self, Write};

use ticklab_sim::{Approx, Compact, Secs, ThreadCpu};

use super::event::SignedSecs;
use super::{Event, StartEvent, Summary};

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
    for note in &start.notes {
        writeln!(out, "# {}", one_line(note))?;
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
    let (shown, rest) = busiest_threads(&summary.threads);
    for thread in shown {
        writeln!(
            out,
            "{:<28}busy {}, worst second {} from {}",
            format!("thread {}", thread.name),
            Approx(thread.busy_ns),
            Approx(thread.worst_second_busy_ns),
            Secs(thread.worst_second_start_ns)
        )?;
    }
    if !rest.is_empty() {
        let busy_ns: u64 = rest.iter().map(|thread| thread.busy_ns).sum();
        let worst_ns = rest.iter().map(|thread| thread.worst_second_busy_ns).max();
        writeln!(
            out,
            "{:<28}busy {} in all, none more than {} in a second (the JSON summary lists each)",
            format!("thread +{} more", rest.len()),
            Approx(busy_ns),
            Approx(worst_ns.unwrap_or(0)),
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

/// Most threads a text summary gives a line each: a cluster of 10,000 machine hosts has as many
/// threads, which no one reads line by line.
const THREAD_LINES: usize = 16;

/// The threads a text summary lists, in their own order, and those it sums up in one line: with
/// more than [`THREAD_LINES`], the ones busiest in their worst second are listed, so the thread
/// that matters is never among the summed.
fn busiest_threads<'a>(threads: &'a [ThreadCpu]) -> (Vec<&'a ThreadCpu>, Vec<&'a ThreadCpu>) {
    if threads.len() <= THREAD_LINES {
        return (threads.iter().collect(), Vec::new());
    }
    let mut by_load: Vec<usize> = (0..threads.len()).collect();
    by_load.sort_by_key(|&index| {
        let thread = &threads[index];
        (
            std::cmp::Reverse(thread.worst_second_busy_ns),
            std::cmp::Reverse(thread.busy_ns),
            index,
        )
    });
    let mut listed = vec![false; threads.len()];
    for &index in &by_load[..THREAD_LINES] {
        listed[index] = true;
    }
    let (shown, rest): (Vec<_>, Vec<_>) =
        threads.iter().zip(listed).partition(|(_, listed)| *listed);
    let strip = |pairs: Vec<(&'a ThreadCpu, bool)>| pairs.into_iter().map(|(thread, _)| thread);
    (strip(shown).collect(), strip(rest).collect())
}

/// Writes one event as its line (or, for the start and the summary, its lines). A model's own
/// event writes itself.
pub(super) fn write_event(out: &mut impl Write, event: &Event<'_>) -> io::Result<()> {
    let t = Secs(event.t_ns());
    match event {
        Event::Start(start) => write_start(out, start),
        Event::Summary(summary) => write_summary(out, summary),
        Event::Model(event) => event.write_text(out),
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
            "{t:>17} resume    {}after {} stopped  wall {}  instant {}",
            resume
                .host
                .as_ref()
                .map_or(String::new(), |host| format!("{host}: ")),
            Compact(resume.stopped_ns as i64),
            resume.wall,
            SignedSecs(resume.instant_ns)
        ),
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

    fn thread(name: String, busy_ns: u64, worst_ns: u64) -> ThreadCpu {
        ThreadCpu {
            name,
            busy_ns,
            worst_second_busy_ns: worst_ns,
            worst_second_start_ns: 0,
            bins: ticklab_sim::BusyBins::default(),
        }
    }

    #[test]
    fn a_summary_lists_the_busiest_threads_and_sums_up_the_rest() {
        // 10,000 idle hosts' threads, and one starved gossip thread in the middle.
        let mut threads: Vec<ThreadCpu> = (0..10_000)
            .map(|host| thread(format!("node-{host}/gossip"), 1_000, 1_000))
            .collect();
        threads[5_000] = thread("node-5000/gossip".into(), 60_000_000_000, 1_000_000_000);
        let summary = Summary {
            t_ns: 60_000_000_000,
            model: "hosts",
            values: Vec::new(),
            threads,
            groups: Vec::new(),
            parts: Vec::new(),
        };
        let mut out = Vec::new();
        write_summary(&mut out, &summary).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("thread "))
            .collect();
        assert_eq!(lines.len(), THREAD_LINES + 1, "{text}");
        assert!(
            lines
                .iter()
                .any(|line| line.starts_with("thread node-5000/gossip "))
        );
        assert!(
            lines[THREAD_LINES].starts_with("thread +9984 more")
                && lines[THREAD_LINES].contains("none more than 1us in a second"),
            "{text}"
        );
    }

    #[test]
    fn a_multi_line_about_stays_on_its_header_line() {
        assert_eq!(one_line("two\nlines\x1b[31m"), "two lines\\u{1b}[31m");
    }
}
