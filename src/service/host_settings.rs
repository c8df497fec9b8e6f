//! A host's platform, crystal, wall clock and faults, set in code as it is declared.

use std::time::Duration;

use ticklab_sim::{Fault, Platform};

use super::declare::{HostSpec, Service, ns};
use crate::hosts::thaw::ThawOrder;

/// A host's platform, clocks and faults, set as it is declared.
#[derive(Debug)]
pub struct HostSettings<'a> {
    pub(crate) service: &'a mut Service,
    pub(crate) index: usize,
}

impl HostSettings<'_> {
    fn spec(&mut self) -> &mut HostSpec {
        &mut self.service.hosts[self.index]
    }

    fn fault(mut self, fault: Fault) -> Self {
        self.spec().faults.push(fault);
        self
    }

    /// What the host's code finds first as it thaws: by default tokio's own order (the
    /// messages its kernel queued wake their tasks before the timers that fell due); with
    /// [`ThawOrder::TimersFirst`], the timers' tasks run before the messages are handed over.
    pub fn thaw_order(mut self, order: ThawOrder) -> Self {
        self.spec().thaw_order = order;
        self
    }

    /// The platform, which decides which clock `Instant` reads (Linux unless set).
    pub fn platform(mut self, platform: Platform) -> Self {
        self.spec().platform = platform;
        self
    }

    /// The host's crystal runs `ppm` parts per million fast (or slow, if negative): every clock
    /// it has counts that much fast.
    pub fn drift_ppm(mut self, ppm: f64) -> Self {
        let ppb = (ppm * 1_000.0).round();
        if !ppb.is_finite() || ppb.abs() > ticklab_sim::MAX_DRIFT_PPB as f64 {
            let name = self.spec().name.clone();
            self.service.invalid.push(format!(
                "host `{name}`: a drift of {ppm} ppm is beyond the {} ppm any crystal could be off",
                ticklab_sim::MAX_DRIFT_PPB / 1_000
            ));
            return self;
        }
        self.spec().drift_ppb = ppb as i64;
        self
    }

    /// The host's wall clock starts `offset` ahead of the others'.
    pub fn wall_ahead(mut self, offset: Duration) -> Self {
        self.spec().wall_offset_ns = i64::try_from(offset.as_nanos()).unwrap_or(i64::MAX);
        self
    }

    /// The host's wall clock starts `offset` behind the others'.
    pub fn wall_behind(mut self, offset: Duration) -> Self {
        self.spec().wall_offset_ns = -i64::try_from(offset.as_nanos()).unwrap_or(i64::MAX);
        self
    }

    /// The host's system sleeps from `at` for `duration`: nothing runs on it, its monotonic
    /// clock stops where its platform's does, and datagrams to it are lost.
    pub fn system_suspend(self, at: Duration, duration: Duration) -> Self {
        self.fault(Fault::SystemSuspend {
            at_ns: ns(at),
            duration_ns: ns(duration),
        })
    }

    /// The host's process is frozen from `at` for `duration` (a GC pause, SIGSTOP, a debugger):
    /// it runs nothing and sends nothing, its clocks go on, and its kernel queues what arrives.
    pub fn process_suspend(self, at: Duration, duration: Duration) -> Self {
        self.fault(Fault::ProcessSuspend {
            at_ns: ns(at),
            duration_ns: ns(duration),
        })
    }

    /// The host's wall clock jumps forward by `by` at `at`.
    pub fn wall_step_forward(self, at: Duration, by: Duration) -> Self {
        self.fault(Fault::WallStep {
            at_ns: ns(at),
            by_ns: i64::try_from(by.as_nanos()).unwrap_or(i64::MAX),
        })
    }

    /// The host's wall clock jumps back by `by` at `at`.
    pub fn wall_step_back(self, at: Duration, by: Duration) -> Self {
        self.fault(Fault::WallStep {
            at_ns: ns(at),
            by_ns: -i64::try_from(by.as_nanos()).unwrap_or(i64::MAX),
        })
    }

    /// The host's wall clock runs `rate` fast (or slow, if negative) from `at` for `duration`:
    /// NTP slews at up to 0.0005.
    pub fn wall_slew(self, at: Duration, duration: Duration, rate: f64) -> Self {
        self.fault(Fault::WallSlew {
            at_ns: ns(at),
            duration_ns: ns(duration),
            rate_ppb: (rate * 1e9).round() as i64,
        })
    }
}
