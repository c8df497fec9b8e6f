/// What a sans-time core waits for next. Drivers do the waiting: the simulator, a real thread, a
/// loom or shuttle thread, a tokio task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Call back once the core's clock reads at least this many ns.
    Until(i64),
    /// Nothing to do until something external happens.
    Idle,
}
