/// A task, as the queues see it: a number that stands for the task's state kept elsewhere.
///
/// The queues move ids instead of tasks so that they can keep them in atomics, which lets the
/// whole executor stay free of `unsafe` while loom and shuttle still see every shared access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub u32);
