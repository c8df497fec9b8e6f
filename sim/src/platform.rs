//! Which clock `std::time::Instant` reads on each platform.
//!
//! This table is the one place in ticklab that knows it; everything else asks
//! [`Platform::instant_clock`]. Sources: the Rust standard library's `time.rs` for each target, the
//! Windows QueryPerformanceCounter documentation, and AOSP's toolchain patch.
//!
//! Android has two rows because its `Instant` depends on who built the code. Upstream std reads
//! `CLOCK_MONOTONIC` there, as on Linux (rust-lang/rust#71860 is open; #88714, #132331 and
//! #145360 were closed unmerged), so an app built with rustup's Android targets or cargo-ndk is
//! `android`. Only AOSP's own platform toolchain patches `Instant` to `CLOCK_BOOTTIME`
//! (`rustc-0018-Switch-Instant-to-use-CLOCK_BOOTTIME.patch`): that is `android-aosp`.

use crate::clock::ClockId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
    Windows,
    Macos,
    Ios,
    Linux,
    /// An app built with upstream Rust (rustup's Android targets, cargo-ndk).
    Android,
    /// Code built with AOSP's own platform toolchain.
    AndroidAosp,
}

impl Platform {
    pub const ALL: [Platform; 6] = [
        Platform::Windows,
        Platform::Macos,
        Platform::Ios,
        Platform::Linux,
        Platform::Android,
        Platform::AndroidAosp,
    ];

    /// Names as scenario files spell them, in the order of [`Platform::ALL`].
    pub const NAMES: &'static [&'static str] = &[
        "windows",
        "macos",
        "ios",
        "linux",
        "android",
        "android-aosp",
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The clock `Instant::now()` reads.
    pub fn instant_clock(self) -> ClockId {
        match self {
            // QueryPerformanceCounter keeps counting through sleep.
            Platform::Windows => ClockId::Boottime,
            // CLOCK_UPTIME_RAW (the mach_absolute_time domain) stops while asleep.
            Platform::Macos | Platform::Ios => ClockId::Monotonic,
            // CLOCK_MONOTONIC; upstream Rust never switched to CLOCK_BOOTTIME, on Linux or on
            // Android.
            Platform::Linux | Platform::Android => ClockId::Monotonic,
            // AOSP's toolchain patches Instant to CLOCK_BOOTTIME.
            Platform::AndroidAosp => ClockId::Boottime,
        }
    }

    /// The OS primitive behind `Instant` on this platform, for trace headers and docs.
    pub fn instant_source(self) -> &'static str {
        match self {
            Platform::Windows => "QueryPerformanceCounter",
            Platform::Macos | Platform::Ios => "CLOCK_UPTIME_RAW",
            Platform::Linux | Platform::Android => "CLOCK_MONOTONIC",
            Platform::AndroidAosp => "CLOCK_BOOTTIME",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_windows_and_aosp_built_android_instants_count_system_sleep() {
        let counting: Vec<_> = Platform::ALL
            .into_iter()
            .filter(|p| p.instant_clock() == ClockId::Boottime)
            .collect();
        assert_eq!(counting, [Platform::Windows, Platform::AndroidAosp]);
    }

    #[test]
    fn an_app_built_with_upstream_rust_reads_clock_monotonic_on_android() {
        assert_eq!(Platform::Android.instant_clock(), ClockId::Monotonic);
        assert_eq!(Platform::Android.instant_source(), "CLOCK_MONOTONIC");
        assert_eq!(Platform::AndroidAosp.instant_source(), "CLOCK_BOOTTIME");
    }

    #[test]
    fn names_follow_the_order_of_all() {
        for (platform, name) in Platform::ALL.into_iter().zip(Platform::NAMES) {
            assert_eq!(platform.name(), *name);
        }
        for (clock, name) in ClockId::ALL.into_iter().zip(ClockId::NAMES) {
            assert_eq!(clock.name(), *name);
        }
        for (kind, name) in crate::FaultKind::ALL
            .into_iter()
            .zip(crate::FaultKind::NAMES)
        {
            assert_eq!(kind.name(), *name);
        }
    }
}
