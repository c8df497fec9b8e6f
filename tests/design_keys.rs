//! What a design declares for itself is held to: a metric it declares must be reported, and a key
//! or metric may not hide one that every timer scenario has.

use ticklab::models::sync::Primitives;
use ticklab::models::timer::{BuildTimerDesign, DesignKey, DesignMetric, GlobalHeap, TimerParams};
use ticklab::run::{RunError, RunOptions, run_scenario};
use ticklab::trace::NoTrace;

/// Declares a metric its design never answers.
struct ForgetsItsMetric;

impl BuildTimerDesign for ForgetsItsMetric {
    const NAME: &'static str = "forgets-its-metric";
    const ABOUT: &'static str = "a heap that declares a metric and never reports it";
    const METRICS: &'static [DesignMetric] = &[DesignMetric {
        name: "heap_sifts",
        about: "sifts of the heap",
    }];
    type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
        GlobalHeap::new(params.capacity, params.clock)
    }
}

/// Declares a key every timer scenario already has.
struct ShadowsTimeout;

impl BuildTimerDesign for ShadowsTimeout {
    const NAME: &'static str = "shadows-timeout";
    const ABOUT: &'static str = "a heap that declares `timeout` as its own key";
    const KEYS: &'static [DesignKey] = &[DesignKey::count(
        "timeout",
        "not the call's timeout",
        1,
        9,
        Some(1),
    )];
    type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
        GlobalHeap::new(params.capacity, params.clock)
    }
}

/// Declares a metric every timer run already reports.
struct ShadowsCalls;

impl BuildTimerDesign for ShadowsCalls {
    const NAME: &'static str = "shadows-calls";
    const ABOUT: &'static str = "a heap that declares `calls` as its own metric";
    const METRICS: &'static [DesignMetric] = &[DesignMetric {
        name: "calls",
        about: "not the run's calls",
    }];
    type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;

    fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
        GlobalHeap::new(params.capacity, params.clock)
    }
}

#[test]
fn a_declared_metric_the_design_does_not_report_fails_the_run_naming_it() {
    let registry = ticklab::Registry::builtin().with_timer_design::<ForgetsItsMetric>();
    let text = r#"
        about = "a design that forgets its metric"
        platform = "linux"
        run_for = "1s"
        [model]
        kind = "timer"
        design = "forgets-its-metric"
        clock = "monotonic"
        clients = 2
        call_interval = "10ms"
        timeout = "100ms"
        latency = "1ms"
        [expect]
        max_heap_sifts = 10
    "#;
    let scenario = registry.parse("forgets.toml", text).unwrap();
    let error = run_scenario(&scenario, &RunOptions::default(), &mut NoTrace).unwrap_err();
    assert!(
        matches!(
            error,
            RunError::UnreportedMetric {
                design: "forgets-its-metric",
                metric: "heap_sifts"
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("did not report it"), "{error}");
}

#[test]
#[should_panic(
    expected = "timer design `shadows-timeout` declares the key `timeout`, which every timer \
                scenario already has"
)]
fn a_key_that_hides_a_timer_scenarios_own_is_refused_at_registration() {
    let _ = ticklab::Registry::builtin().with_timer_design::<ShadowsTimeout>();
}

#[test]
#[should_panic(
    expected = "timer design `shadows-calls` declares the metric `calls`, which every timer run \
                already reports"
)]
fn a_metric_that_hides_a_timer_runs_own_is_refused_at_registration() {
    let _ = ticklab::Registry::builtin().with_timer_design::<ShadowsCalls>();
}
