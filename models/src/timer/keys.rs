//! What a design adds to a scenario: the keys it reads from `[model]`, and the metrics it
//! reports in the run's summary.
//!
//! A design declares both as constants of its [`BuildTimerDesign`](super::BuildTimerDesign).
//! ticklab validates a key's value against its [`KeyKind`] (with the file's line and column on
//! a mistake), hands the values to the design's `build` in [`TimerParams`], and reads each
//! declared metric from [`TimerDesign::metric`](super::TimerDesign::metric) at the end of a run,
//! where `[expect]` and `compare` see it like any other metric.

use super::TimerClock;

/// A `[model]` key a design reads, such as `buckets = 13`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DesignKey {
    /// The key as scenario files write it.
    pub name: &'static str,
    /// What it sets, for errors and the reference.
    pub about: &'static str,
    pub kind: KeyKind,
}

/// The values a [`DesignKey`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// A whole number from `min` to `max`. `default` when the file leaves it out; `None`: the
    /// design decides (see [`TimerParams::count`]).
    Count {
        min: i64,
        max: i64,
        default: Option<i64>,
    },
    /// A duration such as `"1s"`, of at least `min_ns`; `None` when left out unless `default_ns`.
    Duration {
        min_ns: u64,
        default_ns: Option<u64>,
    },
    /// One of `names`, written as a string; `default` when left out.
    Choice {
        names: &'static [&'static str],
        default: &'static str,
    },
}

impl DesignKey {
    /// A whole number from `min` to `max`, `default` when left out.
    pub const fn count(
        name: &'static str,
        about: &'static str,
        min: i64,
        max: i64,
        default: Option<i64>,
    ) -> Self {
        DesignKey {
            name,
            about,
            kind: KeyKind::Count { min, max, default },
        }
    }

    /// A duration of at least `min_ns`.
    pub const fn duration(
        name: &'static str,
        about: &'static str,
        min_ns: u64,
        default_ns: Option<u64>,
    ) -> Self {
        DesignKey {
            name,
            about,
            kind: KeyKind::Duration { min_ns, default_ns },
        }
    }

    /// One of `names`.
    pub const fn choice(
        name: &'static str,
        about: &'static str,
        names: &'static [&'static str],
        default: &'static str,
    ) -> Self {
        DesignKey {
            name,
            about,
            kind: KeyKind::Choice { names, default },
        }
    }

    /// What the key takes, in the words of an error's hint.
    pub fn takes(&self) -> String {
        match self.kind {
            KeyKind::Count { min, max, .. } => format!("a whole number from {min} to {max}"),
            KeyKind::Duration { min_ns: 0, .. } => "a duration, such as \"1s\"".to_string(),
            KeyKind::Duration { min_ns, .. } => {
                format!("a duration of at least {min_ns} ns, such as \"1s\"")
            }
            KeyKind::Choice { names, .. } => {
                let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
                format!("one of {}", quoted.join(", "))
            }
        }
    }
}

/// A value a scenario gave a [`DesignKey`], validated against its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyValue {
    Count(i64),
    DurationNs(u64),
    /// One of the key's names.
    Choice(&'static str),
}

/// A number a design reports at the end of a run, such as the timers it filed per level.
///
/// ```
/// use ticklab_models::timer::DesignMetric;
///
/// const FILED_ON_LEVEL_0: DesignMetric =
///     DesignMetric::new("filed_on_level_0", "timers filed on the finest level");
/// assert_eq!(FILED_ON_LEVEL_0.name, "filed_on_level_0");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DesignMetric {
    /// Its name in the summary and in `[expect]` (after `min_` or `max_`).
    pub name: &'static str,
    pub about: &'static str,
}

impl DesignMetric {
    /// A metric named `name`, which `about` describes in a line.
    pub const fn new(name: &'static str, about: &'static str) -> Self {
        DesignMetric { name, about }
    }
}

/// What a scenario can set on a timer design: what every design gets, and the values of the
/// keys it declared in [`BuildTimerDesign::KEYS`](super::BuildTimerDesign::KEYS).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerParams {
    pub clock: TimerClock,
    /// The most timers the whole design holds at once, scheduled or cancelled and not yet freed.
    pub capacity: usize,
    /// The cores of the machine the design runs on, for designs that size themselves by it
    /// (Go's `GOMAXPROCS`).
    pub cores: usize,
    /// The design keys the scenario set, in the order the design declares them.
    settings: Vec<(&'static str, KeyValue)>,
}

impl TimerParams {
    /// `capacity` timers on `clock`, on a machine of 4 cores, every design key at its default.
    pub fn new(clock: TimerClock, capacity: usize) -> Self {
        TimerParams {
            clock,
            capacity,
            cores: 4,
            settings: Vec::new(),
        }
    }

    /// The same, with `key` set to `value`.
    ///
    /// # Panics
    /// If `value` is not of `key`'s kind, or out of its range: the scenario loader refuses such
    /// a value with an error, so only code that builds a design by hand can pass one.
    pub fn with(mut self, key: &DesignKey, value: KeyValue) -> Self {
        let fits = match (key.kind, value) {
            (KeyKind::Count { min, max, .. }, KeyValue::Count(count)) => {
                (min..=max).contains(&count)
            }
            (KeyKind::Duration { min_ns, .. }, KeyValue::DurationNs(ns)) => ns >= min_ns,
            (KeyKind::Choice { names, .. }, KeyValue::Choice(name)) => names.contains(&name),
            _ => false,
        };
        assert!(
            fits,
            "`{}` cannot be {value:?}: it takes {}",
            key.name,
            key.takes()
        );
        self.settings.retain(|(name, _)| *name != key.name);
        self.settings.push((key.name, value));
        self
    }

    fn set(&self, key: &DesignKey) -> Option<KeyValue> {
        self.settings
            .iter()
            .find(|(name, _)| *name == key.name)
            .map(|&(_, value)| value)
    }

    /// A count key's value, or its default; `None` if neither (the design decides).
    pub fn count(&self, key: &DesignKey) -> Option<i64> {
        match (self.set(key), key.kind) {
            (Some(KeyValue::Count(count)), _) => Some(count),
            (_, KeyKind::Count { default, .. }) => default,
            _ => None,
        }
    }

    /// A duration key's value in nanoseconds, or its default; `None` if neither.
    pub fn duration_ns(&self, key: &DesignKey) -> Option<u64> {
        match (self.set(key), key.kind) {
            (Some(KeyValue::DurationNs(ns)), _) => Some(ns),
            (_, KeyKind::Duration { default_ns, .. }) => default_ns,
            _ => None,
        }
    }

    /// A choice key's value, or its default.
    pub fn choice(&self, key: &DesignKey) -> &'static str {
        match (self.set(key), key.kind) {
            (Some(KeyValue::Choice(name)), _) => name,
            (_, KeyKind::Choice { default, .. }) => default,
            _ => "",
        }
    }

    /// Whether the scenario set `key` itself.
    pub fn is_set(&self, key: &DesignKey) -> bool {
        self.set(key).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLOTS: DesignKey = DesignKey::count("slots", "slots of the wheel", 1, 64, Some(8));
    const CAP: DesignKey = DesignKey::duration("cap", "the longest sleep", 1, None);
    const MODE: DesignKey = DesignKey::choice("mode", "how", &["fast", "slow"], "fast");

    #[test]
    fn a_key_left_out_reads_as_its_default() {
        let params = TimerParams::new(TimerClock::Monotonic, 8);
        assert_eq!(params.count(&SLOTS), Some(8));
        assert_eq!(params.duration_ns(&CAP), None);
        assert_eq!(params.choice(&MODE), "fast");
        assert!(!params.is_set(&SLOTS));
    }

    #[test]
    fn a_key_set_reads_as_set_and_a_second_set_replaces_the_first() {
        let params = TimerParams::new(TimerClock::Monotonic, 8)
            .with(&SLOTS, KeyValue::Count(3))
            .with(&SLOTS, KeyValue::Count(5))
            .with(&CAP, KeyValue::DurationNs(7))
            .with(&MODE, KeyValue::Choice("slow"));
        assert_eq!(params.count(&SLOTS), Some(5));
        assert_eq!(params.duration_ns(&CAP), Some(7));
        assert_eq!(params.choice(&MODE), "slow");
    }

    #[test]
    #[should_panic(expected = "`slots` cannot be Count(65): it takes a whole number from 1 to 64")]
    fn a_value_out_of_range_is_refused() {
        let _ = TimerParams::new(TimerClock::Monotonic, 8).with(&SLOTS, KeyValue::Count(65));
    }
}
