//! How each event reads as a line of text: physical time first, then what happened, like a
//! program's own log.

use std::io::{self, Write};

use ticklab_sim::{Approx, Compact, Secs};

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

    #[test]
    fn a_multi_line_about_stays_on_its_header_line() {
        assert_eq!(one_line("two\nlines\x1b[31m"), "two lines\\u{1b}[31m");
    }
}
