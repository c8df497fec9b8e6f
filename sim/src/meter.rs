//! Busy time of one thread, as the summaries and plots report it: the total, the busiest
//! one-second window of the run, and the busiest second of each span of it ([`BusyBins`]).

use std::collections::VecDeque;

use crate::bins::{BinMeter, BusyBins};
use crate::time::NS_PER_SEC;

/// A thread's busy time: the total, per physical second, and the busiest window.
#[derive(Clone, Debug, Default)]
pub(crate) struct BusyMeter {
    busy_ns: u64,
    per_window: WindowMeter,
    per_bin: BinMeter,
}

/// A thread's busy time at the end of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BusyTime {
    pub busy_ns: u64,
    /// The most busy time in any one second of physical time, and where that second starts.
    pub worst_second_busy_ns: u64,
    pub worst_second_start_ns: u64,
    /// The busiest second of each span of the run: what plots draw as utilisation.
    pub bins: BusyBins,
}

impl BusyMeter {
    /// Adds the busy stretch `[start_ns, end_ns)`; stretches come in time order and never overlap.
    pub(crate) fn add(&mut self, start_ns: u64, end_ns: u64) {
        if end_ns > start_ns {
            self.busy_ns += end_ns - start_ns;
            self.per_window.add(start_ns, end_ns);
            self.per_bin.add(start_ns, end_ns);
        }
    }

    pub(crate) fn finish(&mut self) -> BusyTime {
        self.per_window.finish();
        BusyTime {
            busy_ns: self.busy_ns,
            worst_second_busy_ns: self.per_window.worst_ns,
            worst_second_start_ns: self.per_window.worst_start_ns,
            bins: self.per_bin.finish(),
        }
    }
}

/// The most busy time in any one-second window, streamed.
///
/// Spans arrive in time order and never overlap. The busiest window can always be slid to start
/// where a span starts, so only windows anchored at span starts are measured: the spans that start
/// within a second of the oldest anchor are kept, and an anchor's window is final once a span
/// starts a second or more after it.
#[derive(Clone, Debug, Default)]
struct WindowMeter {
    spans: VecDeque<(u64, u64)>,
    /// Total length of the kept spans.
    kept_ns: u64,
    worst_start_ns: u64,
    worst_ns: u64,
}

impl WindowMeter {
    fn add(&mut self, start_ns: u64, end_ns: u64) {
        debug_assert!(
            self.spans
                .back()
                .is_none_or(|&(_, last_end)| last_end <= start_ns)
        );
        while let Some(&(anchor_ns, _)) = self.spans.front()
            && start_ns >= anchor_ns + NS_PER_SEC
        {
            self.close_front();
        }
        self.spans.push_back((start_ns, end_ns));
        self.kept_ns += end_ns - start_ns;
    }

    /// Measures the window anchored at the oldest kept span, then drops that span.
    fn close_front(&mut self) {
        let Some(&(anchor_ns, anchor_end_ns)) = self.spans.front() else {
            return;
        };
        let window_end_ns = anchor_ns + NS_PER_SEC;
        // Only the newest kept span can reach past the window.
        let overhang_ns = self
            .spans
            .back()
            .map_or(0, |&(_, end_ns)| end_ns.saturating_sub(window_end_ns));
        let busy_ns = self.kept_ns - overhang_ns;
        if busy_ns > self.worst_ns {
            self.worst_ns = busy_ns;
            self.worst_start_ns = anchor_ns;
        }
        self.kept_ns -= anchor_end_ns - anchor_ns;
        self.spans.pop_front();
    }

    fn finish(&mut self) {
        while !self.spans.is_empty() {
            self.close_front();
        }
    }
}
