//! The keys of an executor scenario's `[model]` table, its runtimes, pools, task groups and steps,
//! each read and documented in one declaration (`key_struct!`).

use serde::Deserialize;
use ticklab_models::executor::DriverKind;
use ticklab_models::interval::MissedTick;
use toml::Spanned;

use super::spec::{DEFAULT_BLOCKING_THREADS, DEFAULT_STARVATION_THRESHOLD_NS};
use crate::scenario::key_struct::key_struct;
use crate::scenario::key_table::{KeyDoc, Need, ValueType};
use crate::scenario::values::{DurationNs, DurationOrRange, Name};

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [model] table")]
    pub struct ExecutorSpec;
    /// `[model]` with `kind = "executor"`.
    pub static MODEL = (
        "[model]",
        "a tokio-like work-stealing executor: its runtimes, connection pools and task groups",
    );
    {
        /// Read by the model probe; kept here for its position.
        pub(super) kind: Spanned<String> => KeyDoc::unnamed(
            ValueType::Choice(&["executor"]),
            Need::Required,
            "the model kind",
        ),
        pub(super) cores: Option<Spanned<i64>> => crate::machine::keys::MODEL_CORES,
        pub(super) time_slice: Option<Spanned<DurationNs>> =>
            crate::machine::keys::MODEL_TIME_SLICE,
        pub(super) starvation_threshold: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::DefaultDuration(DEFAULT_STARVATION_THRESHOLD_NS),
            "a runnable wait longer than this is a STARVED event",
        ),
        #[serde(default)]
        pub(super) runtime: Vec<RuntimeSpec> => KeyDoc::unnamed(
            ValueType::Tables(&RUNTIME),
            Need::Required,
            "`[[model.runtime]]`: one or more runtimes",
        ),
        #[serde(default)]
        pub(super) pool: Vec<PoolSpec> => KeyDoc::unnamed(
            ValueType::Tables(&POOL),
            Need::Optional,
            "`[[model.pool]]`: zero or more connection pools",
        ),
        #[serde(default)]
        pub(super) task: Vec<TaskSpec> => KeyDoc::unnamed(
            ValueType::Tables(&TASK),
            Need::Required,
            "`[[model.task]]`: one or more task groups",
        ),
    }
}

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[model.runtime]] table")]
    pub(crate) struct RuntimeSpec;
    /// `[[model.runtime]]`.
    pub static RUNTIME = (
        "[[model.runtime]]",
        "one runtime: its workers, scheduler settings, blocking pool and driver",
    );
    {
        pub(super) name: Spanned<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Required,
            "what task groups call it",
        ),
        pub(super) workers: Spanned<i64> => KeyDoc::unnamed(
            ValueType::Count { min: 1, max: 1024 },
            Need::Required,
            "worker threads",
        ),
        pub(super) scheduler: Option<Spanned<String>> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Default("\"tokio-multi-thread\""),
            "its scheduler design: tokio-multi-thread, tokio-current-thread, async-executor, go, thread-per-core, or one a crate registers",
        ),
        pub(super) lifo_slot: Option<Spanned<bool>> => KeyDoc::unnamed(
            ValueType::Bool,
            Need::Default("true"),
            "`false` is tokio's `disable_lifo_slot`; read by tokio-multi-thread",
        ),
        pub(super) global_queue_interval: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: 1_000_000,
            },
            Need::Default("the scheduler's"),
            "ticks between global-queue-first checks (tokio-multi-thread 61, tokio-current-thread 31, go 61; async-executor: tasks between moves of half the global queue, 64)",
        ),
        pub(super) event_interval: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: 1_000_000,
            },
            Need::Default("the scheduler's"),
            "ticks between driver polls of a busy worker (61; async-executor 200)",
        ),
        pub(super) blocking_threads: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: 100_000,
            },
            Need::DefaultCount(DEFAULT_BLOCKING_THREADS),
            "the blocking pool's limit; more work queues",
        ),
        pub(super) driver: Option<Name<DriverKind>> => KeyDoc::unnamed(
            ValueType::Choice(DriverKind::NAMES),
            Need::Default("\"tokio\""),
            "the I/O and timer driver (tokio's wheel)",
        ),
    }
}

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[model.pool]] table")]
    pub(crate) struct PoolSpec;
    /// `[[model.pool]]`.
    pub static POOL = (
        "[[model.pool]]",
        "a connection pool `io` steps draw from",
    );
    {
        pub(super) name: Spanned<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Required,
            "what `io` steps call it",
        ),
        pub(super) idle: Spanned<i64> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: 100_000,
            },
            Need::Required,
            "idle connections kept; 0 disables reuse",
        ),
        pub(super) shared: Option<bool> => KeyDoc::unnamed(
            ValueType::Bool,
            Need::Default("true"),
            "one pool for every runtime, else one each",
        ),
        pub(super) connect: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "added to the first request of a new connection",
        ),
    }
}

key_struct! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a [[model.task]] table")]
    pub(crate) struct TaskSpec;
    /// `[[model.task]]`.
    pub static TASK = (
        "[[model.task]]",
        "a group of alike tasks: when they arrive, where they run, their steps",
    );
    {
        pub(super) name: Spanned<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Required,
            "what `spawn` steps and `[expect.<name>]` call it",
        ),
        pub(super) runtime: Spanned<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Required,
            "the runtime its instances run on",
        ),
        pub(super) count: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 0,
                max: 10_000_000,
            },
            Need::DefaultCount(0),
            "instances that arrive on their own (0: only spawned)",
        ),
        pub(super) start: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "the first arrival",
        ),
        pub(super) every: Option<Spanned<DurationNs>> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "the gap between arrivals; without it, all arrive at `start`",
        ),
        pub(super) arrival: Option<Spanned<String>> => KeyDoc::unnamed(
            ValueType::Choice(&["periodic", "poisson"]),
            Need::Default("\"periodic\""),
            "`poisson` draws exponential gaps with `every` as the mean",
        ),
        pub(super) repeat: Option<Spanned<i64>> => KeyDoc::unnamed(
            ValueType::Count {
                min: 1,
                max: 100_000_000,
            },
            Need::DefaultCount(1),
            "times each instance runs its steps, as a loop",
        ),
        pub(super) steps: Spanned<Vec<Spanned<StepSpec>>> => KeyDoc::unnamed(
            ValueType::Tables(&STEP),
            Need::Required,
            "what each instance does, in order, such as `[{ cpu = \"1ms\" }, { io = \"http\", \
             latency = \"50ms\" }]`",
        ),
    }
}

key_struct! {
    /// One step as written: exactly one of the kind keys, plus `latency` for `io` and `missed_tick`
    /// for `tick`.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, expecting = "a step such as { cpu = \"300ms\" }")]
    pub(crate) struct StepSpec;
    /// One step of a task: exactly one of the step keys, with `latency` and `timeout` for `io` and
    /// `missed_tick` for `tick`.
    pub static STEP = (
        "steps = [{ ... }]",
        "one step: exactly one of its kind keys",
    );
    {
        pub(super) cpu: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Optional,
            "busy on its worker for that much CPU time, without yielding",
        ),
        pub(super) yield_now as "yield": Option<bool> => KeyDoc::unnamed(
            ValueType::Bool,
            Need::Optional,
            "`tokio::task::yield_now`: its wake is deferred to the worker's next park or \
             zero-timeout driver check",
        ),
        pub(super) sleep: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Optional,
            "`tokio::time::sleep` on `Instant`: a timer in its runtime's driver, rounded up to \
             1 ms",
        ),
        pub(super) tick: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "`interval.tick().await` on the task's own `tokio::time::interval` of this period; \
             one `tick` step per task",
        ),
        pub(super) missed_tick: Option<Name<MissedTick>> => KeyDoc::unnamed(
            ValueType::Choice(MissedTick::NAMES),
            Need::Default("\"burst\""),
            "with `tick`: the interval's behaviour after a missed tick",
        ),
        pub(super) block: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Optional,
            "`std::thread::sleep` or another blocking call inside the task: the worker blocks \
             for that long without using CPU",
        ),
        pub(super) io: Option<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Optional,
            "a request over a connection from the pool of that name",
        ),
        pub(super) latency: Option<DurationOrRange> => KeyDoc::unnamed(
            ValueType::DurationOrRange,
            Need::Optional,
            "with `io`: the reply's latency, or a range drawn per request",
        ),
        pub(super) timeout: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "with `io`: `tokio::time::timeout` around the request",
        ),
        pub(super) spawn: Option<String> => KeyDoc::unnamed(
            ValueType::Text,
            Need::Optional,
            "starts one instance of the group of that name; spawns may not form a cycle",
        ),
        pub(super) spawn_blocking: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Optional,
            "CPU work on the runtime's blocking pool, awaited; the worker is free meanwhile",
        ),
        pub(super) block_in_place: Option<DurationNs> => KeyDoc::unnamed(
            ValueType::DURATION,
            Need::Optional,
            "CPU work on this thread after handing the worker's core to a blocking-pool thread",
        ),
    }
}
