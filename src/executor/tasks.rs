//! The run's tasks: instances of the scenario's groups and one task per pooled connection, and
//! the io requests in flight between them.

use ticklab_models::executor::TaskId;
use ticklab_models::interval::IntervalCore;

use super::pool::ConnectionId;

/// What a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskKind {
    /// The `instance`th instance of a group, counting from 1.
    Group { group: usize, instance: u32 },
    /// The task that owns a connection's socket, as an HTTP client spawns one per connection.
    Connection { connection: ConnectionId },
}

/// Where a woken task was queued, for starvation reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Queued {
    Lifo {
        worker: usize,
    },
    Local {
        worker: usize,
    },
    Inject,
    /// Yielded: held by the worker until it runs out of other work, as tokio defers the wake.
    Deferred {
        worker: usize,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Task {
    pub kind: TaskKind,
    pub runtime: usize,
    /// The next step to run, for a group task, and how many times it has run them all.
    pub step: usize,
    /// What is left of a `cpu` step cut short by its scheduler's time slice.
    pub cpu_left_ns: u64,
    /// Its running `cpu` step was cut there: when it ends, the task is preempted.
    pub cpu_cut: bool,
    pub round: u32,
    /// Its `tick` step's interval, made the first time the step runs.
    pub interval: Option<IntervalCore>,
    /// The `Instant` deadline of the sleep it waits on, if any.
    pub sleep_deadline_ns: Option<i64>,
    /// The timeout around the io request it waits on, if any: the driver's registration and the
    /// `Instant` deadline.
    pub io_timeout: Option<(u64, i64)>,
    pub started_ns: u64,
    /// Since when it has been woken and not yet polled, and where it was queued.
    pub runnable: Option<(u64, Queued)>,
    /// The io request it waits on, if any.
    pub request: Option<usize>,
    pub finished: bool,
}

/// What a connection task has to do when next polled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConnectionState {
    Idle,
    /// A request was handed over; the task must write it.
    ToSend {
        request: usize,
    },
    /// Written; the reply is on its way.
    InFlight {
        request: usize,
    },
    /// The reply arrived and the driver noticed; the task must read it and wake the requester.
    Replied {
        request: usize,
    },
}

/// One io request, and when each phase of it ended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Request {
    pub requester: TaskId,
    pub connection: ConnectionId,
    pub reused: bool,
    pub started_ns: u64,
    /// Network latency plus, for a new connection, the connect time.
    pub network_ns: u64,
    pub sent_ns: u64,
    pub replied_ns: u64,
    pub noticed_ns: u64,
    /// The connection task read the reply and woke the requester.
    pub delivered: bool,
    /// The requester's timeout fired first: it went on without the reply.
    pub abandoned: bool,
}

/// Every task of the run, indexed by [`TaskId`].
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    tasks: Vec<Task>,
}

impl Tasks {
    pub fn add(&mut self, kind: TaskKind, runtime: usize, now_ns: u64) -> TaskId {
        self.tasks.push(Task {
            kind,
            runtime,
            step: 0,
            cpu_left_ns: 0,
            cpu_cut: false,
            round: 0,
            interval: None,
            sleep_deadline_ns: None,
            io_timeout: None,
            started_ns: now_ns,
            runnable: None,
            request: None,
            finished: false,
        });
        TaskId(self.tasks.len() as u32 - 1)
    }

    pub fn get(&self, task: TaskId) -> &Task {
        &self.tasks[task.0 as usize]
    }

    pub fn get_mut(&mut self, task: TaskId) -> &mut Task {
        &mut self.tasks[task.0 as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter()
    }

    pub fn len(&self) -> usize {
        self.tasks.len()
    }
}
