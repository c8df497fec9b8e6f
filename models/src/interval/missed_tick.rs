const NS_PER_MS: i64 = 1_000_000;

/// tokio 1.x treats a tick at most this late as on time (`interval.rs`: `now > timeout + 5ms`).
pub const LATE_TOLERANCE_NS: i64 = 5 * NS_PER_MS;

/// tokio re-arms an interval whose next deadline would overflow at `now` plus about 30 years.
pub(crate) const FAR_FUTURE_NS: i64 = 86_400 * 365 * 30 * 1_000 * NS_PER_MS;

/// Missed start times past which Kubernetes's CronJob controller before v2 starts none: "too
/// many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock
/// skew".
pub const CRONJOB_MAX_MISSED: i64 = 100;

/// How an interval schedules its next tick, in particular after missing some.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MissedTick {
    /// tokio 0.1's `Interval`: the next deadline is always the previous one plus the period, so
    /// every missed period fires back to back when the task can run again.
    Naive,
    /// tokio 1.x `MissedTickBehavior::Burst`: like `Naive`, behind the 5 ms rule.
    Burst,
    /// tokio 1.x `MissedTickBehavior::Delay`: a late tick re-anchors the grid on `now`.
    Delay,
    /// tokio 1.x `MissedTickBehavior::Skip`: a late tick moves to the next grid point after `now`.
    Skip,
    /// The field report's fix to tokio 0.1: every next deadline is `now + period`, so missed
    /// periods are dropped instead of replayed.
    Fixed,
    /// Kubernetes's CronJob controller before its v2 rewrite (1.21): a late start runs once, for
    /// the most recent start time missed, and the next is the schedule's next after it, as
    /// `Skip`; but with more than [`CRONJOB_MAX_MISSED`] start times missed since the last one it
    /// starts none, and as the count only grows, never starts again (kubernetes#42649,
    /// `getRecentUnmetScheduleTimes`). The first start is a period after creation.
    CronJob,
    /// A planted bug, for testing ticklab itself: `fixed` that forgets to re-anchor on `now` and
    /// steps from the missed deadline instead, so after a gap it replays every missed period
    /// while claiming to drop them. Only ticklab's own tests build it (the `planted-bugs`
    /// feature), to show that `ticklab sweep` finds and shrinks such a bug.
    #[cfg(feature = "planted-bugs")]
    FixedWithoutReanchor,
    /// A planted bug, for testing ticklab itself: `skip` that, after a late tick, skips to the
    /// grid point after the next one, so the interval goes quiet for more than a period: the
    /// liveness check catches it.
    #[cfg(feature = "planted-bugs")]
    SkipTooFar,
}

impl MissedTick {
    pub const ALL: [MissedTick; 6] = [
        MissedTick::Naive,
        MissedTick::Burst,
        MissedTick::Delay,
        MissedTick::Skip,
        MissedTick::Fixed,
        MissedTick::CronJob,
    ];
    pub const NAMES: &'static [&'static str] =
        &["naive", "burst", "delay", "skip", "fixed", "cronjob"];
    /// tokio's designs and the 0.1 fix: what `ticklab table` compares through a suspend.
    pub const TOKIO: [MissedTick; 5] = [
        MissedTick::Naive,
        MissedTick::Burst,
        MissedTick::Delay,
        MissedTick::Skip,
        MissedTick::Fixed,
    ];

    /// Behaviours with planted bugs, accepted by name but listed nowhere.
    #[cfg(feature = "planted-bugs")]
    pub const PLANTED: &'static [(MissedTick, &'static str)] = &[
        (MissedTick::FixedWithoutReanchor, "fixed-without-reanchor"),
        (MissedTick::SkipTooFar, "skip-too-far"),
    ];
    #[cfg(not(feature = "planted-bugs"))]
    pub const PLANTED: &'static [(MissedTick, &'static str)] = &[];

    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "planted-bugs")]
            MissedTick::FixedWithoutReanchor => Self::PLANTED[0].1,
            #[cfg(feature = "planted-bugs")]
            MissedTick::SkipTooFar => Self::PLANTED[1].1,
            // The listed behaviours come first, in the order of `NAMES`.
            listed => Self::NAMES[listed as usize],
        }
    }

    /// The behaviour this one promises: itself, or for a planted bug the behaviour it imitates.
    /// Invariants hold a design to its promise.
    pub fn promised(self) -> MissedTick {
        match self {
            #[cfg(feature = "planted-bugs")]
            MissedTick::FixedWithoutReanchor => MissedTick::Fixed,
            #[cfg(feature = "planted-bugs")]
            MissedTick::SkipTooFar => MissedTick::Skip,
            other => other,
        }
    }

    /// tokio 1.x's `interval` ticks at once; tokio 0.1's `new_interval` waits one period.
    pub fn first_tick_is_immediate(self) -> bool {
        matches!(
            self,
            MissedTick::Burst | MissedTick::Delay | MissedTick::Skip
        )
    }

    /// Whether the behaviour can fire missed periods back to back after a gap.
    pub fn replays_missed_ticks(self) -> bool {
        matches!(self, MissedTick::Naive | MissedTick::Burst)
    }
}

/// The deadline after a tick scheduled for `deadline_ns` that fired when the clock read `now_ns`.
///
/// This is the whole difference between the designs, and a pure function so that property tests
/// and the real-tokio differential test can drive it directly.
#[inline]
pub fn next_deadline_ns(
    behavior: MissedTick,
    deadline_ns: i64,
    now_ns: i64,
    period_ns: i64,
) -> i64 {
    let on_grid = deadline_ns.checked_add(period_ns);
    let next = match behavior {
        MissedTick::Naive => on_grid,
        MissedTick::Fixed => now_ns.checked_add(period_ns),
        #[cfg(feature = "planted-bugs")]
        MissedTick::FixedWithoutReanchor => on_grid,
        _ if now_ns <= deadline_ns.saturating_add(LATE_TOLERANCE_NS) => on_grid,
        MissedTick::Burst => on_grid,
        MissedTick::Delay => now_ns.checked_add(period_ns),
        MissedTick::Skip | MissedTick::CronJob => {
            let behind_ns = (now_ns - deadline_ns) % period_ns;
            now_ns.checked_add(period_ns - behind_ns)
        }
        #[cfg(feature = "planted-bugs")]
        MissedTick::SkipTooFar => {
            let behind_ns = (now_ns - deadline_ns) % period_ns;
            now_ns.checked_add(2 * period_ns - behind_ns)
        }
    };
    next.unwrap_or_else(|| now_ns.saturating_add(FAR_FUTURE_NS))
}
