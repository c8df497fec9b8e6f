//! A heartbeat failure detector's decision, sans time: given how long a peer has been silent on
//! the detector's clock, does it suspect the peer now?
//!
//! ```
//! use ticklab_models::detector::Detector;
//!
//! const S: i64 = 1_000_000_000;
//! assert!(!Detector::Timeout.suspects(4 * S, 5 * S));
//! assert!(Detector::Timeout.suspects(5 * S, 5 * S));
//! ```

/// How a detector decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Detector {
    /// Suspects a peer silent for `suspect_after` or longer, as most heartbeat detectors do.
    Timeout,
    /// A planted bug, for testing ticklab itself: it never suspects anyone, so every failure goes
    /// unnoticed. Only ticklab's own tests build it (the `planted-bugs` feature).
    #[cfg(feature = "planted-bugs")]
    NeverSuspects,
}

impl Detector {
    pub const ALL: [Detector; 1] = [Detector::Timeout];
    pub const NAMES: &'static [&'static str] = &["timeout"];

    /// Detectors with planted bugs, accepted by name but listed nowhere.
    #[cfg(feature = "planted-bugs")]
    pub const PLANTED: &'static [(Detector, &'static str)] =
        &[(Detector::NeverSuspects, "never-suspects")];
    #[cfg(not(feature = "planted-bugs"))]
    pub const PLANTED: &'static [(Detector, &'static str)] = &[];

    pub fn name(self) -> &'static str {
        match self {
            Detector::Timeout => Self::NAMES[0],
            #[cfg(feature = "planted-bugs")]
            Detector::NeverSuspects => Self::PLANTED[0].1,
        }
    }

    /// Whether a peer silent for `silent_ns` is suspected under a timeout of `suspect_after_ns`.
    pub fn suspects(self, silent_ns: i64, suspect_after_ns: i64) -> bool {
        match self {
            Detector::Timeout => silent_ns >= suspect_after_ns,
            #[cfg(feature = "planted-bugs")]
            Detector::NeverSuspects => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_detector_suspects_from_the_timeout_on() {
        assert!(!Detector::Timeout.suspects(99, 100));
        assert!(Detector::Timeout.suspects(100, 100));
        assert_eq!(Detector::Timeout.name(), "timeout");
    }
}
