//! Where simulated threads' time went, and how busy each core was: the per-thread and per-core
//! parts of a summary, for models whose threads share the machine's cores.

use ticklab_sim::CoreTime;

use crate::expect::Metric;
use crate::trace::Section;

const PERCENT: Metric = Metric::count("cpu_percent", "running time over the run, in percent");

/// Per thread, in the summary only.
pub const THREAD_METRICS: &[Metric] = &[
    Metric::duration("busy", "busy_ns", "running the program's own work"),
    Metric::duration("syscall", "syscall_ns", "running inside system calls"),
    Metric::duration("spinning", "spinning_ns", "spinning"),
    Metric::duration(
        "waiting_for_core",
        "waiting_for_core_ns",
        "runnable, but every core was taken",
    ),
    Metric::duration("blocked", "blocked_ns", "neither running nor runnable"),
    PERCENT,
];

/// Per core, in the summary only.
pub const CORE_METRICS: &[Metric] = &[
    Metric::duration("running", "running_ns", "time some thread ran on the core"),
    PERCENT,
];

/// `part` over `whole`, in whole percent, rounded to nearest.
pub fn percent(part_ns: u64, whole_ns: u64) -> u64 {
    if whole_ns == 0 {
        return 0;
    }
    ((u128::from(part_ns) * 100 + u128::from(whole_ns) / 2) / u128::from(whole_ns)) as u64
}

/// One section per named thread, then one per core, over a run of `end_ns`.
pub fn sections(threads: &[(String, CoreTime)], core_busy_ns: &[u64], end_ns: u64) -> Vec<Section> {
    let mut sections: Vec<Section> = threads
        .iter()
        .map(|(name, time)| {
            let blocked_ns = end_ns.saturating_sub(time.running_ns + time.waiting_ns);
            let values = [
                time.busy_ns(),
                time.syscall_ns,
                time.spinning_ns,
                time.waiting_ns,
                blocked_ns,
                percent(time.running_ns, end_ns),
            ];
            Section::new("thread", name.clone(), THREAD_METRICS, &values)
        })
        .collect();
    sections.extend(core_busy_ns.iter().enumerate().map(|(core, &busy_ns)| {
        Section::new(
            "core",
            core.to_string(),
            CORE_METRICS,
            &[busy_ns, percent(busy_ns, end_ns)],
        )
    }));
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_to_nearest_and_survive_an_empty_run() {
        assert_eq!(percent(385, 1000), 39);
        assert_eq!(percent(1, 3), 33);
        assert_eq!(percent(5, 0), 0);
    }
}
