//! The keys of an executor scenario's `[model]` table, its runtimes, pools, task groups and
//! steps, for the reference and the schema.

use ticklab_models::executor::{DriverKind, SchedulerConfig};
use ticklab_models::interval::MissedTick;

use super::spec::{
    DEFAULT_BLOCKING_THREADS, DEFAULT_STARVATION_THRESHOLD_NS, ExecutorSpec, PoolSpec, RuntimeSpec,
    StepSpec, TaskSpec,
};
use crate::scenario::key_table::{KeyDoc, KeyTable, Need, ValueType};

/// `[model]` with `kind = "executor"`.
pub static MODEL: KeyTable = KeyTable {
    header: "[model]",
    about: "a tokio-like work-stealing executor: its runtimes, connection pools and task groups",
    serde_fields: crate::scenario::keys_of::<ExecutorSpec>,
    keys: &[
        KeyDoc::new(
            "kind",
            ValueType::Choice(&["executor"]),
            Need::Required,
            "the model kind",
        ),
        crate::machine::keys::MODEL_CORES,
        crate::machine::keys::MODEL_TIME_SLICE,
        KeyDoc::new(
            "starvation_threshold",
            ValueType::POSITIVE_DURATION,
            Need::DefaultDuration(DEFAULT_STARVATION_THRESHOLD_NS),
            "a runnable wait longer than this is a STARVED event",
        ),
        KeyDoc::new(
            "runtime",
            ValueType::Tables(&RUNTIME),
            Need::Required,
            "`[[model.runtime]]`: one or more runtimes",
        ),
        KeyDoc::new(
            "pool",
            ValueType::Tables(&POOL),
            Need::Optional,
            "`[[model.pool]]`: zero or more connection pools",
        ),
        KeyDoc::new(
            "task",
            ValueType::Tables(&TASK),
            Need::Required,
            "`[[model.task]]`: one or more task groups",
        ),
    ],
};

/// `[[model.runtime]]`.
pub static RUNTIME: KeyTable = KeyTable {
    header: "[[model.runtime]]",
    about: "one runtime: its workers, scheduler settings, blocking pool and driver",
    serde_fields: crate::scenario::keys_of::<RuntimeSpec>,
    keys: &[
        KeyDoc::new(
            "name",
            ValueType::Text,
            Need::Required,
            "what task groups call it",
        ),
        KeyDoc::new(
            "workers",
            ValueType::Count { min: 1, max: 1024 },
            Need::Required,
            "worker threads",
        ),
        KeyDoc::new(
            "lifo_slot",
            ValueType::Bool,
            Need::Default("true"),
            "`false` is tokio's `disable_lifo_slot`",
        ),
        KeyDoc::new(
            "global_queue_interval",
            ValueType::Count {
                min: 1,
                max: 1_000_000,
            },
            Need::DefaultCount(SchedulerConfig::TOKIO_GLOBAL_QUEUE_INTERVAL as i64),
            "ticks between inject-queue-first checks",
        ),
        KeyDoc::new(
            "event_interval",
            ValueType::Count {
                min: 1,
                max: 1_000_000,
            },
            Need::DefaultCount(SchedulerConfig::TOKIO_EVENT_INTERVAL as i64),
            "ticks between driver polls of a busy worker",
        ),
        KeyDoc::new(
            "blocking_threads",
            ValueType::Count {
                min: 1,
                max: 100_000,
            },
            Need::DefaultCount(DEFAULT_BLOCKING_THREADS),
            "the blocking pool's limit; more work queues",
        ),
        KeyDoc::new(
            "driver",
            ValueType::Choice(DriverKind::NAMES),
            Need::Default("\"tokio\""),
            "the I/O and timer driver (tokio's wheel)",
        ),
    ],
};

/// `[[model.pool]]`.
pub static POOL: KeyTable = KeyTable {
    header: "[[model.pool]]",
    about: "a connection pool `io` steps draw from",
    serde_fields: crate::scenario::keys_of::<PoolSpec>,
    keys: &[
        KeyDoc::new(
            "name",
            ValueType::Text,
            Need::Required,
            "what `io` steps call it",
        ),
        KeyDoc::new(
            "idle",
            ValueType::Count {
                min: 0,
                max: 100_000,
            },
            Need::Required,
            "idle connections kept; 0 disables reuse",
        ),
        KeyDoc::new(
            "shared",
            ValueType::Bool,
            Need::Default("true"),
            "one pool for every runtime, else one each",
        ),
        KeyDoc::new(
            "connect",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "added to the first request of a new connection",
        ),
    ],
};

/// `[[model.task]]`.
pub static TASK: KeyTable = KeyTable {
    header: "[[model.task]]",
    about: "a group of alike tasks: when they arrive, where they run, their steps",
    serde_fields: crate::scenario::keys_of::<TaskSpec>,
    keys: &[
        KeyDoc::new(
            "name",
            ValueType::Text,
            Need::Required,
            "what `spawn` steps and `[expect.<name>]` call it",
        ),
        KeyDoc::new(
            "runtime",
            ValueType::Text,
            Need::Required,
            "the runtime its instances run on",
        ),
        KeyDoc::new(
            "count",
            ValueType::Count {
                min: 0,
                max: 10_000_000,
            },
            Need::DefaultCount(0),
            "instances that arrive on their own (0: only spawned)",
        ),
        KeyDoc::new(
            "start",
            ValueType::DURATION,
            Need::DefaultDuration(0),
            "the first arrival",
        ),
        KeyDoc::new(
            "every",
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "the gap between arrivals; without it, all arrive at `start`",
        ),
        KeyDoc::new(
            "arrival",
            ValueType::Choice(&["periodic", "poisson"]),
            Need::Default("\"periodic\""),
            "`poisson` draws exponential gaps with `every` as the mean",
        ),
        KeyDoc::new(
            "repeat",
            ValueType::Count {
                min: 1,
                max: 100_000_000,
            },
            Need::DefaultCount(1),
            "times each instance runs its steps, as a loop",
        ),
        KeyDoc::new(
            "steps",
            ValueType::Tables(&STEP),
            Need::Required,
            "what each instance does, in order, such as `[{ cpu = \"1ms\" }, { io = \"http\", \
             latency = \"50ms\" }]`",
        ),
    ],
};

/// One step of a task: exactly one of the step keys, with `latency` and `timeout` for `io` and
/// `missed_tick` for `tick`.
pub static STEP: KeyTable = KeyTable {
    header: "steps = [{ ... }]",
    about: "one step: exactly one of its kind keys",
    serde_fields: crate::scenario::keys_of::<StepSpec>,
    keys: &[
        KeyDoc::new(
            "cpu",
            ValueType::DURATION,
            Need::Optional,
            "busy on its worker for that much CPU time, without yielding",
        ),
        KeyDoc::new(
            "yield",
            ValueType::Bool,
            Need::Optional,
            "`tokio::task::yield_now`: its wake is deferred to the worker's next park or \
             zero-timeout driver check",
        ),
        KeyDoc::new(
            "sleep",
            ValueType::DURATION,
            Need::Optional,
            "`tokio::time::sleep` on `Instant`: a timer in its runtime's driver, rounded up to \
             1 ms",
        ),
        KeyDoc::new(
            "tick",
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "`interval.tick().await` on the task's own `tokio::time::interval` of this period; \
             one `tick` step per task",
        ),
        KeyDoc::new(
            "missed_tick",
            ValueType::Choice(MissedTick::NAMES),
            Need::Default("\"burst\""),
            "with `tick`: the interval's behaviour after a missed tick",
        ),
        KeyDoc::new(
            "block",
            ValueType::DURATION,
            Need::Optional,
            "`std::thread::sleep` or another blocking call inside the task: the worker blocks \
             for that long without using CPU",
        ),
        KeyDoc::new(
            "io",
            ValueType::Text,
            Need::Optional,
            "a request over a connection from the pool of that name",
        ),
        KeyDoc::new(
            "latency",
            ValueType::DurationOrRange,
            Need::Optional,
            "with `io`: the reply's latency, or a range drawn per request",
        ),
        KeyDoc::new(
            "timeout",
            ValueType::POSITIVE_DURATION,
            Need::Optional,
            "with `io`: `tokio::time::timeout` around the request",
        ),
        KeyDoc::new(
            "spawn",
            ValueType::Text,
            Need::Optional,
            "starts one instance of the group of that name; spawns may not form a cycle",
        ),
        KeyDoc::new(
            "spawn_blocking",
            ValueType::DURATION,
            Need::Optional,
            "CPU work on the runtime's blocking pool, awaited; the worker is free meanwhile",
        ),
        KeyDoc::new(
            "block_in_place",
            ValueType::DURATION,
            Need::Optional,
            "CPU work on this thread after handing the worker's core to a blocking-pool thread",
        ),
    ],
};
