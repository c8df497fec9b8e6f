//! The timer model's events: calls, responses, fires and timer-thread rounds.

use serde::Serialize;
use ticklab_sim::{Approx, Secs};

use crate::trace::{ModelEvent, SignedSecs, Wall};

/// A client started a call and armed its timeout.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CallEvent {
    pub t_ns: u64,
    pub client: u32,
    pub call: u32,
    /// The timer's id, or 0 if no slot was free.
    pub timer: u64,
    /// The timer thread that owns it.
    pub thread: u32,
    /// Whether arming it took the lock all schedulers share.
    pub global_lock: bool,
    /// Whether it woke the timer thread.
    pub woke: bool,
}

/// A call's response arrived and cancelled its timer, or found it already fired.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ResponseEvent {
    pub t_ns: u64,
    pub call: u32,
    /// `cancelled`, `running` or `not-found`, as `unschedule` said.
    pub outcome: &'static str,
}

/// A call's timeout fired.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FireEvent {
    pub t_ns: u64,
    pub call: u32,
    pub thread: u32,
    /// Physical time past the call's real timeout; negative for a timer that fired early.
    pub lateness_ns: i64,
}

/// A timer thread woke, ran what was due, and went back to sleep.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RoundEvent {
    pub t_ns: u64,
    pub thread: u32,
    pub fired: u32,
    /// The deadline it sleeps until, on the design's clock; absent if it sleeps until signalled.
    pub sleep_until_ns: Option<i64>,
    /// The design's clock: `wall` (readings are ns since 1970) or `monotonic`.
    pub clock: &'static str,
}

/// The design's timer slots in use, sampled at a fixed period of physical time.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct MemoryEvent {
    pub t_ns: u64,
    /// Scheduled timers, and cancelled or fired ones not yet freed.
    pub live_slots: u64,
    /// `live_slots` times the scenario's `task_bytes`.
    pub live_bytes: u64,
}

impl ModelEvent for MemoryEvent {
    crate::model_event_basics!("memory");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} memory    {} live slots  {}",
            Secs(self.t_ns),
            self.live_slots,
            Bytes(self.live_bytes)
        )
    }

    fn plural(&self) -> &'static str {
        "memory samples"
    }
}

/// Bytes in binary units, three significant digits: `1.79 GiB`.
pub(crate) struct Bytes(pub(crate) u64);

impl std::fmt::Display for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
        let mut value = self.0 as f64;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        match unit {
            0 => write!(f, "{} B", self.0),
            _ if value >= 100.0 => write!(f, "{value:.0} {}", UNITS[unit]),
            _ if value >= 10.0 => write!(f, "{value:.1} {}", UNITS[unit]),
            _ => write!(f, "{value:.2} {}", UNITS[unit]),
        }
    }
}

impl ModelEvent for CallEvent {
    crate::model_event_basics!("call");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let t = Secs(self.t_ns);
        if self.timer == 0 {
            return writeln!(
                out,
                "{t:>17} call      c{} #{}  no timer slot free",
                self.client, self.call
            );
        }
        let lock = if self.global_lock {
            "  global lock"
        } else {
            ""
        };
        let woke = if self.woke { "  woke thread" } else { "" };
        writeln!(
            out,
            "{t:>17} call      c{} #{}  timer {:#x} on thread {}{lock}{woke}",
            self.client, self.call, self.timer, self.thread
        )
    }

    fn plural(&self) -> &'static str {
        "calls"
    }
}

impl ModelEvent for ResponseEvent {
    crate::model_event_basics!("response");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:>17} response  #{}  {}",
            Secs(self.t_ns),
            self.call,
            self.outcome
        )
    }

    fn plural(&self) -> &'static str {
        "responses"
    }
}

impl ModelEvent for FireEvent {
    crate::model_event_basics!("fire");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let how = if self.lateness_ns < 0 {
            "early by"
        } else {
            "late by"
        };
        writeln!(
            out,
            "{:>17} fire      #{}  on thread {}  {how} {}",
            Secs(self.t_ns),
            self.call,
            self.thread,
            Approx(self.lateness_ns.unsigned_abs())
        )
    }

    fn plural(&self) -> &'static str {
        "fires"
    }

    fn delay_ns(&self) -> Option<u64> {
        Some(self.lateness_ns.max(0) as u64)
    }
}

impl ModelEvent for RoundEvent {
    crate::model_event_basics!("timer-round");

    fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let t = Secs(self.t_ns);
        let (thread, fired) = (self.thread, self.fired);
        match self.sleep_until_ns {
            Some(until) if self.clock == "wall" => writeln!(
                out,
                "{t:>17} round     thread {thread}  fired {fired}  sleeps until wall {}",
                Wall(until)
            ),
            Some(until) => writeln!(
                out,
                "{t:>17} round     thread {thread}  fired {fired}  sleeps until monotonic {}",
                SignedSecs(until)
            ),
            None => writeln!(
                out,
                "{t:>17} round     thread {thread}  fired {fired}  sleeps until signalled"
            ),
        }
    }

    fn plural(&self) -> &'static str {
        "timer rounds"
    }
}
