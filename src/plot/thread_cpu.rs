//! The CPU each thread of a run used, per second over the run: the busiest threads' lines, from
//! the summary's bins, for any kind whose summary lists threads.

use plotters::prelude::*;

use super::collect::Collected;
use super::error::PlotError;
use super::style::{Area, legend, series_color, time_panel, y_range_to};
use ticklab_sim::{Approx, BusyBins};

/// At most this many threads' CPU lines; the busiest are kept.
const MAX_CPU_LINES: usize = 8;

const NS_PER_SEC: u64 = 1_000_000_000;

/// Each busiest thread's CPU per second over the run, from the summary's bins.
pub(crate) fn draw(area: &Area<'_>, collected: &Collected) -> Result<(), PlotError> {
    let mut threads: Vec<_> = collected
        .summary
        .iter()
        .flat_map(|summary| &summary.threads)
        .filter(|thread| thread.busy_ns > 0)
        .collect();
    threads.sort_by(|a, b| b.busy_ns.cmp(&a.busy_ns).then_with(|| a.name.cmp(&b.name)));
    threads.truncate(MAX_CPU_LINES);
    let run_for_ns = collected.run_for_ns();
    let lines: Vec<Vec<(f64, f64)>> = threads
        .iter()
        .map(|thread| busy_percent(&thread.bins, run_for_ns))
        .collect();
    let highest = lines
        .iter()
        .flatten()
        .map(|&(_, percent)| percent)
        .fold(0.0, f64::max);
    // Every thread of a run is binned alike: a long run draws the busiest second of each span.
    let bin_secs = threads.iter().map(|thread| thread.bins.bin_secs).max();
    let caption = match bin_secs {
        None => "CPU utilisation per second: no thread used any".to_string(),
        Some(1) => format!(
            "CPU utilisation per second from 0 s, per thread (busiest such second {highest:.1}%)"
        ),
        Some(bin_secs) => format!(
            "CPU utilisation: the busiest second of every {} from 0 s, per thread (busiest {highest:.1}%)",
            Approx(bin_secs * NS_PER_SEC)
        ),
    };
    let mut chart = time_panel(
        area,
        collected,
        &caption,
        y_range_to(0.0, highest.max(1.0)),
        "% of a core",
        false,
    )?;
    for (index, (thread, points)) in threads.iter().zip(lines).enumerate() {
        let color = series_color(index);
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(thread.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
    }
    if !threads.is_empty() {
        legend(&mut chart)?;
    }
    Ok(())
}

/// A thread's busy time as a step line in percent of a second, over the whole run: each bin at
/// the height of its busiest second, spans after the last busy one at 0, and a last, partial
/// second measured against its own length.
fn busy_percent(bins: &BusyBins, run_for_ns: u64) -> Vec<(f64, f64)> {
    let bin_ns = bins.bin_secs * NS_PER_SEC;
    let spans = run_for_ns.div_ceil(bin_ns) as usize;
    (0..spans.max(bins.busiest_second_ns.len()))
        .flat_map(|bin| {
            let from_ns = bin as u64 * bin_ns;
            let length_ns = run_for_ns.saturating_sub(from_ns).clamp(1, bin_ns);
            let busy_ns = bins.busiest_second_ns.get(bin).copied().unwrap_or(0);
            let percent = busy_ns as f64 * 100.0 / length_ns.min(NS_PER_SEC) as f64;
            let (from_s, to_s) = (from_ns as f64 / 1e9, (from_ns + length_ns) as f64 / 1e9);
            [(from_s, percent), (to_s, percent)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn cpu_is_a_share_of_each_second_through_the_end_of_the_run() {
        let bins = BusyBins {
            bin_secs: 1,
            busiest_second_ns: vec![S / 2, 0, S / 4],
        };
        let line = busy_percent(&bins, 5 * S / 2);
        assert_eq!(
            line,
            [
                (0.0, 50.0),
                (1.0, 50.0),
                (1.0, 0.0),
                (2.0, 0.0),
                (2.0, 50.0),
                (2.5, 50.0)
            ],
            "the last half second was half busy"
        );
        assert_eq!(
            busy_percent(&BusyBins::default(), 2 * S).len(),
            4,
            "idle seconds read 0"
        );
    }

    #[test]
    fn a_long_run_draws_the_busiest_second_of_each_span_at_full_height() {
        let bins = BusyBins {
            bin_secs: 4,
            busiest_second_ns: vec![0, 9 * S / 10],
        };
        let line = busy_percent(&bins, 10 * S);
        assert_eq!(
            line,
            [
                (0.0, 0.0),
                (4.0, 0.0),
                (4.0, 90.0),
                (8.0, 90.0),
                (8.0, 0.0),
                (10.0, 0.0)
            ]
        );
    }
}
