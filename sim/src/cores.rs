//! A machine's cores, shared by the threads that want CPU.
//!
//! A thread asks for a stretch of CPU work. While there are free cores it runs at once; beyond
//! that, runnable threads wait in FIFO order and the running ones are preempted at the end of each
//! time slice, round-robin, as a fair-share kernel scheduler does. The default slice is Linux
//! EEVDF's base slice: 0.75 ms × (1 + ⌊log2 cores⌋), with cores capped at 8, so 0.75 ms on one
//! core, 1.5 ms on two or three, 2.25 ms on four to seven and 3 ms from eight.
//!
//! The component is sans-time like the models: it is told `now` and hands back the slice ends
//! the caller must wake it for. Every slice end carries a generation, so one that a preemption or
//! a freeze made stale is recognised and ignored.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::cpu::ThreadId;
use crate::machine::EdgeEffect;
use crate::meter::{BusyMeter, BusyTime};
use crate::time::NS_PER_MS;

/// The default slice on a machine of 8 or more cores.
pub const DEFAULT_SLICE_NS: u64 = 3 * NS_PER_MS;

/// Linux EEVDF's base slice for a machine of `cores` cores.
pub fn default_slice_ns(cores: usize) -> u64 {
    let factor = 1 + u64::from(cores.clamp(1, 8).ilog2());
    factor * 750 * crate::time::NS_PER_US
}

/// A moment the caller must report back with [`Cores::slice_ended`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceEnd {
    pub thread: ThreadId,
    pub at_ns: u64,
    generation: u32,
}

/// A [`SliceEnd`] without its time, for a caller that files it as a wake at that time: half the
/// size, so an event queue of wakes stays small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceTicket {
    thread: ThreadId,
    generation: u32,
}

impl SliceEnd {
    pub fn ticket(self) -> SliceTicket {
        SliceTicket {
            thread: self.thread,
            generation: self.generation,
        }
    }
}

impl SliceTicket {
    /// The slice end, come due at `at_ns`.
    pub fn at(self, at_ns: u64) -> SliceEnd {
        SliceEnd {
            thread: self.thread,
            at_ns,
            generation: self.generation,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    Waiting { since_ns: u64 },
    Running { since_ns: u64, core: usize },
}

/// What a stretch of CPU work is, for the split of a thread's running time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpuKind {
    /// The program's own work.
    #[default]
    Busy,
    /// Spinning on a condition: burning a core without progress.
    Spin,
    /// Inside a system call: the kernel's work on the thread's behalf.
    Syscall,
}

/// Where one thread's time went, in physical ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreTime {
    /// On a core, doing its work: `spinning_ns` and `syscall_ns` are parts of it.
    pub running_ns: u64,
    /// Runnable, but every core was taken.
    pub waiting_ns: u64,
    pub spinning_ns: u64,
    pub syscall_ns: u64,
}

impl CoreTime {
    /// Running time that was neither spinning nor in a system call.
    pub fn busy_ns(&self) -> u64 {
        self.running_ns - self.spinning_ns - self.syscall_ns
    }
}

#[derive(Clone, Debug)]
struct Thread {
    state: State,
    kind: CpuKind,
    remaining_ns: u64,
    generation: u32,
    /// Whether its pending slice end is the end of all its work, asked for while nobody waited
    /// for a core: a thread that comes to wait then brings it forward to the next boundary.
    lone: bool,
    time: CoreTime,
    /// Its running time per physical second, and its busiest second.
    meter: BusyMeter,
}

impl Thread {
    /// Charges the running stretch `[since_ns, now_ns)`.
    fn charge(&mut self, since_ns: u64, now_ns: u64) {
        let ran_ns = now_ns - since_ns;
        self.time.running_ns += ran_ns;
        self.meter.add(since_ns, now_ns);
        match self.kind {
            CpuKind::Busy => {}
            CpuKind::Spin => self.time.spinning_ns += ran_ns,
            CpuKind::Syscall => self.time.syscall_ns += ran_ns,
        }
    }
}

/// The cores of one machine and the threads that run on them.
#[derive(Clone, Debug)]
pub struct Cores {
    count: usize,
    slice_ns: u64,
    running: usize,
    waiting: VecDeque<ThreadId>,
    threads: Vec<Thread>,
    frozen: bool,
    /// Free cores, lowest index first, so placement is deterministic.
    free_cores: BinaryHeap<Reverse<usize>>,
    /// Each core's running time so far.
    core_busy_ns: Vec<u64>,
    /// The thread each core runs, by core; empty on an unlimited machine, where nobody waits.
    on_core: Vec<Option<ThreadId>>,
}

impl Cores {
    /// As many cores as there are threads that want one: nobody ever waits for a core, and a
    /// thread's work runs in one stretch. The machine of a scenario that sets no `cores`.
    pub fn unlimited() -> Self {
        Cores {
            count: usize::MAX,
            slice_ns: u64::MAX,
            running: 0,
            waiting: VecDeque::new(),
            threads: Vec::new(),
            frozen: false,
            free_cores: BinaryHeap::new(),
            core_busy_ns: Vec::new(),
            on_core: Vec::new(),
        }
    }

    /// Whether every thread gets a core of its own ([`Cores::unlimited`]).
    pub fn is_unlimited(&self) -> bool {
        self.count == usize::MAX
    }

    /// `count` cores (at least one) with round-robin slices of `slice_ns` (at least 1 ns).
    pub fn new(count: usize, slice_ns: u64) -> Self {
        let count = count.max(1);
        Cores {
            count,
            slice_ns: slice_ns.max(1),
            running: 0,
            waiting: VecDeque::new(),
            threads: Vec::new(),
            frozen: false,
            free_cores: (0..count).map(Reverse).collect(),
            core_busy_ns: vec![0; count],
            on_core: vec![None; count],
        }
    }

    pub fn add_thread(&mut self) -> ThreadId {
        self.threads.push(Thread {
            state: State::Idle,
            kind: CpuKind::Busy,
            remaining_ns: 0,
            generation: 0,
            lone: false,
            time: CoreTime::default(),
            meter: BusyMeter::default(),
        });
        ThreadId(self.threads.len() as u32 - 1)
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether `thread` has work it has not finished.
    pub fn is_busy(&self, thread: ThreadId) -> bool {
        self.thread(thread).state != State::Idle
    }

    pub fn time(&self, thread: ThreadId) -> CoreTime {
        self.thread(thread).time
    }

    /// `thread`, idle until now, wants `work_ns` of CPU. Slice ends to wake for go to `wakes`.
    ///
    /// # Panics
    /// If the thread is already busy: a thread does one stretch of work at a time.
    pub fn run(&mut self, thread: ThreadId, work_ns: u64, now_ns: u64, wakes: &mut Vec<SliceEnd>) {
        self.run_as(thread, work_ns, CpuKind::Busy, now_ns, wakes);
    }

    /// [`Cores::run`] for work of a given kind, which the thread's time is split by.
    pub fn run_as(
        &mut self,
        thread: ThreadId,
        work_ns: u64,
        kind: CpuKind,
        now_ns: u64,
        wakes: &mut Vec<SliceEnd>,
    ) {
        let state = &mut self.threads[thread.0 as usize];
        assert_eq!(state.state, State::Idle, "{thread:?} is already busy");
        state.kind = kind;
        state.remaining_ns = work_ns;
        state.state = State::Waiting { since_ns: now_ns };
        self.waiting.push_back(thread);
        self.dispatch(now_ns, wakes);
    }

    /// A slice end came due. Returns the thread if it finished its work; `None` if the slice end
    /// was stale or the thread goes on (preempted, or into its next slice).
    pub fn slice_ended(
        &mut self,
        end: SliceEnd,
        now_ns: u64,
        wakes: &mut Vec<SliceEnd>,
    ) -> Option<ThreadId> {
        let thread = &mut self.threads[end.thread.0 as usize];
        let State::Running { since_ns, core } = thread.state else {
            return None;
        };
        if thread.generation != end.generation || self.frozen {
            return None;
        }
        let ran_ns = now_ns - since_ns;
        thread.charge(since_ns, now_ns);
        self.core_busy_ns[core] += ran_ns;
        thread.remaining_ns = thread.remaining_ns.saturating_sub(ran_ns);
        if thread.remaining_ns == 0 {
            thread.state = State::Idle;
            self.release_core(core);
            self.dispatch(now_ns, wakes);
            return Some(end.thread);
        }
        if self.waiting.is_empty() {
            wakes.push(self.start_slice(end.thread, core, now_ns));
        } else {
            self.threads[end.thread.0 as usize].state = State::Waiting { since_ns: now_ns };
            self.waiting.push_back(end.thread);
            self.release_core(core);
            self.dispatch(now_ns, wakes);
        }
        None
    }

    /// `thread` stops wanting CPU at `now_ns`, with work left or not: outside load whose stretch
    /// is over. It gives up its core or its place in the queue.
    pub fn stop(&mut self, id: ThreadId, now_ns: u64, wakes: &mut Vec<SliceEnd>) {
        let frozen = self.frozen;
        let thread = &mut self.threads[id.0 as usize];
        thread.generation = thread.generation.wrapping_add(1);
        thread.remaining_ns = 0;
        match thread.state {
            State::Idle => return,
            State::Waiting { since_ns } => {
                if !frozen {
                    thread.time.waiting_ns += now_ns - since_ns;
                }
                thread.state = State::Idle;
                self.waiting.retain(|waiting| *waiting != id);
                return;
            }
            State::Running { since_ns, core } => {
                // A frozen machine charged it up to the freeze, and `since_ns` is the freeze.
                if !frozen {
                    thread.charge(since_ns, now_ns);
                    self.core_busy_ns[core] += now_ns - since_ns;
                }
                thread.state = State::Idle;
                self.release_core(core);
            }
        }
        self.dispatch(now_ns, wakes);
    }

    /// Nothing runs from `now_ns` (a system or process suspend): running threads keep the work
    /// they have left, and their pending slice ends become stale.
    pub fn freeze(&mut self, now_ns: u64) {
        if self.frozen {
            return;
        }
        self.frozen = true;
        for thread in &mut self.threads {
            match thread.state {
                State::Running { since_ns, core } => {
                    let ran_ns = now_ns - since_ns;
                    thread.charge(since_ns, now_ns);
                    self.core_busy_ns[core] += ran_ns;
                    thread.remaining_ns = thread.remaining_ns.saturating_sub(ran_ns);
                    thread.generation = thread.generation.wrapping_add(1);
                    // Charged up to the freeze: the thaw starts a new stretch from its moment.
                    thread.state = State::Running {
                        since_ns: now_ns,
                        core,
                    };
                }
                State::Waiting { since_ns } => thread.time.waiting_ns += now_ns - since_ns,
                State::Idle => {}
            }
        }
    }

    /// Threads run again from `now_ns`; the ones that were running get new slices.
    pub fn thaw(&mut self, now_ns: u64, wakes: &mut Vec<SliceEnd>) {
        if !self.frozen {
            return;
        }
        self.frozen = false;
        for index in 0..self.threads.len() {
            match self.threads[index].state {
                State::Running { core, .. } => {
                    wakes.push(self.start_slice(ThreadId(index as u32), core, now_ns));
                }
                State::Waiting { .. } => {
                    self.threads[index].state = State::Waiting { since_ns: now_ns };
                }
                State::Idle => {}
            }
        }
        // Work asked for while frozen waited for this moment.
        self.dispatch(now_ns, wakes);
    }

    /// Follows a fault edge: nothing runs while the process cannot, and the threads go on when
    /// it can again.
    pub fn on_edge(&mut self, effect: &EdgeEffect, now_ns: u64, wakes: &mut Vec<SliceEnd>) {
        if effect.stopped {
            self.freeze(now_ns);
        }
        if effect.resumed_after_ns.is_some() {
            self.thaw(now_ns, wakes);
        }
    }

    /// Charges every thread's time up to `end_ns` and returns it, by thread.
    pub fn finish(&mut self, end_ns: u64) -> Vec<CoreTime> {
        self.freeze(end_ns);
        self.threads.iter().map(|thread| thread.time).collect()
    }

    /// Each thread's running time per physical second and its busiest second; complete after
    /// [`Cores::finish`].
    pub fn busy_times(&mut self) -> Vec<BusyTime> {
        self.threads
            .iter_mut()
            .map(|thread| thread.meter.finish())
            .collect()
    }

    /// Each core's running time so far, by core index; complete after [`Cores::finish`].
    pub fn core_busy_ns(&self) -> &[u64] {
        &self.core_busy_ns
    }

    fn release_core(&mut self, core: usize) {
        self.running -= 1;
        self.free_cores.push(Reverse(core));
        if let Some(slot) = self.on_core.get_mut(core) {
            *slot = None;
        }
    }

    fn thread(&self, thread: ThreadId) -> &Thread {
        &self.threads[thread.0 as usize]
    }

    fn dispatch(&mut self, now_ns: u64, wakes: &mut Vec<SliceEnd>) {
        if self.frozen {
            return;
        }
        while self.running < self.count {
            let Some(next) = self.waiting.pop_front() else {
                return;
            };
            let thread = &mut self.threads[next.0 as usize];
            if let State::Waiting { since_ns } = thread.state {
                thread.time.waiting_ns += now_ns - since_ns;
            }
            self.running += 1;
            let core = match self.free_cores.pop() {
                Some(Reverse(core)) => core,
                // An unlimited machine makes a core for each thread that needs one.
                None if self.is_unlimited() => {
                    self.core_busy_ns.push(0);
                    self.core_busy_ns.len() - 1
                }
                None => unreachable!("fewer threads run than there are cores"),
            };
            wakes.push(self.start_slice(next, core, now_ns));
        }
        if !self.waiting.is_empty() {
            self.end_lone_stretches(now_ns, wakes);
        }
    }

    /// A thread waits for a core from `now_ns`: every thread running its work in one stretch
    /// gets the slice end it would have had, the first slice boundary from `now_ns`.
    fn end_lone_stretches(&mut self, now_ns: u64, wakes: &mut Vec<SliceEnd>) {
        let slice_ns = self.slice_ns;
        for core in 0..self.on_core.len() {
            let Some(id) = self.on_core[core] else {
                continue;
            };
            let thread = &mut self.threads[id.0 as usize];
            let State::Running { since_ns, .. } = thread.state else {
                continue;
            };
            if !thread.lone {
                continue;
            }
            thread.lone = false;
            let slices = (now_ns - since_ns).div_ceil(slice_ns).max(1);
            let boundary_ns = since_ns.saturating_add(slices.saturating_mul(slice_ns));
            let done_ns = since_ns.saturating_add(thread.remaining_ns);
            if boundary_ns >= done_ns {
                // Its work ends first, at the slice end already asked for.
                continue;
            }
            thread.generation = thread.generation.wrapping_add(1);
            wakes.push(SliceEnd {
                thread: id,
                at_ns: boundary_ns,
                generation: thread.generation,
            });
        }
    }

    /// `id` runs on `core` from `now_ns`: for one slice while others wait, or for all its work
    /// while nobody does.
    fn start_slice(&mut self, id: ThreadId, core: usize, now_ns: u64) -> SliceEnd {
        let lone = self.waiting.is_empty();
        let slice_ns = if lone { u64::MAX } else { self.slice_ns };
        if let Some(slot) = self.on_core.get_mut(core) {
            *slot = Some(id);
        }
        let thread = &mut self.threads[id.0 as usize];
        thread.state = State::Running {
            since_ns: now_ns,
            core,
        };
        thread.lone = lone;
        thread.generation = thread.generation.wrapping_add(1);
        SliceEnd {
            thread: id,
            at_ns: now_ns.saturating_add(thread.remaining_ns.min(slice_ns)),
            generation: thread.generation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NS_PER_MS;

    /// Drives `cores` to completion from `wakes`, returning each thread's finish time.
    fn run_out(cores: &mut Cores, mut wakes: Vec<SliceEnd>) -> Vec<(ThreadId, u64)> {
        let mut finished = Vec::new();
        while let Some(index) = (0..wakes.len()).min_by_key(|&i| (wakes[i].at_ns, wakes[i].thread))
        {
            let end = wakes.swap_remove(index);
            if let Some(thread) = cores.slice_ended(end, end.at_ns, &mut wakes) {
                finished.push((thread, end.at_ns));
            }
        }
        finished
    }

    #[test]
    fn threads_within_the_core_count_run_at_once() {
        let mut cores = Cores::new(2, 3 * MS);
        let (a, b) = (cores.add_thread(), cores.add_thread());
        let mut wakes = Vec::new();
        cores.run(a, 10 * MS, 0, &mut wakes);
        cores.run(b, 4 * MS, 0, &mut wakes);
        assert_eq!(run_out(&mut cores, wakes), [(b, 4 * MS), (a, 10 * MS)]);
        assert_eq!(
            cores.time(a),
            CoreTime {
                running_ns: 10 * MS,
                ..CoreTime::default()
            }
        );
    }

    #[test]
    fn more_threads_than_cores_share_them_by_slices() {
        let mut cores = Cores::new(1, 3 * MS);
        let (a, b) = (cores.add_thread(), cores.add_thread());
        let mut wakes = Vec::new();
        cores.run(a, 6 * MS, 0, &mut wakes);
        cores.run(b, 6 * MS, 0, &mut wakes);
        // a 0-3, b 3-6, a 6-9, b 9-12.
        assert_eq!(run_out(&mut cores, wakes), [(a, 9 * MS), (b, 12 * MS)]);
        assert_eq!(
            cores.time(a),
            CoreTime {
                running_ns: 6 * MS,
                waiting_ns: 3 * MS,
                ..CoreTime::default()
            }
        );
        assert_eq!(
            cores.time(b),
            CoreTime {
                running_ns: 6 * MS,
                waiting_ns: 6 * MS,
                ..CoreTime::default()
            }
        );
    }

    #[test]
    fn a_lone_thread_is_not_preempted() {
        let mut cores = Cores::new(1, MS);
        let a = cores.add_thread();
        let mut wakes = Vec::new();
        cores.run(a, 10 * MS, 0, &mut wakes);
        assert_eq!(run_out(&mut cores, wakes), [(a, 10 * MS)]);
        assert_eq!(cores.time(a).waiting_ns, 0);
    }

    #[test]
    fn a_lone_thread_asks_for_one_slice_end_for_all_its_work() {
        let mut cores = Cores::new(2, MS);
        let (a, b) = (cores.add_thread(), cores.add_thread());
        let mut wakes = Vec::new();
        cores.run(a, 1_000 * MS, 0, &mut wakes);
        cores.run(b, 500 * MS, 0, &mut wakes);
        let ends: Vec<u64> = wakes.iter().map(|end| end.at_ns).collect();
        assert_eq!(ends, [1_000 * MS, 500 * MS]);
        assert_eq!(run_out(&mut cores, wakes), [(b, 500 * MS), (a, 1_000 * MS)]);
    }

    #[test]
    fn a_thread_that_comes_to_wait_preempts_at_the_boundary_the_runner_would_have_had() {
        let mut cores = Cores::new(1, 3 * MS);
        let (a, b) = (cores.add_thread(), cores.add_thread());
        let mut wakes = Vec::new();
        cores.run(a, 10 * MS, 0, &mut wakes);
        let lone_end = wakes.pop().unwrap();
        assert_eq!(lone_end.at_ns, 10 * MS);
        // b comes at 4 ms: a's slices ran from 0, so it gives way at 6 ms, not at 7.
        cores.run(b, 2 * MS, 4 * MS, &mut wakes);
        assert_eq!(
            wakes.iter().map(|end| end.at_ns).collect::<Vec<_>>(),
            [6 * MS]
        );
        assert_eq!(
            cores.slice_ended(lone_end, 6 * MS, &mut wakes),
            None,
            "stale"
        );
        // a 0-6, b 6-8, a 8-12 (one slice while nobody waits, then the rest in one stretch).
        assert_eq!(run_out(&mut cores, wakes), [(b, 8 * MS), (a, 12 * MS)]);
        assert_eq!(cores.time(b).waiting_ns, 2 * MS);
        assert_eq!(cores.time(a).running_ns, 10 * MS);
    }

    #[test]
    fn a_freeze_pauses_work_and_a_thaw_resumes_it() {
        let mut cores = Cores::new(1, 100 * MS);
        let a = cores.add_thread();
        let mut wakes = Vec::new();
        cores.run(a, 10 * MS, 0, &mut wakes);
        let stale = wakes.pop().unwrap();
        cores.freeze(4 * MS);
        assert_eq!(cores.slice_ended(stale, stale.at_ns, &mut wakes), None);
        cores.thaw(50 * MS, &mut wakes);
        assert_eq!(run_out(&mut cores, wakes), [(a, 56 * MS)]);
        assert_eq!(cores.time(a).running_ns, 10 * MS);
    }

    #[test]
    fn an_idle_thread_can_run_again() {
        let mut cores = Cores::new(1, MS);
        let a = cores.add_thread();
        let mut wakes = Vec::new();
        cores.run(a, MS, 0, &mut wakes);
        assert_eq!(run_out(&mut cores, std::mem::take(&mut wakes)), [(a, MS)]);
        assert!(!cores.is_busy(a));
        cores.run(a, 2 * MS, 5 * MS, &mut wakes);
        assert_eq!(run_out(&mut cores, wakes), [(a, 7 * MS)]);
    }

    #[test]
    fn time_is_split_by_kind_and_charged_to_the_core_that_ran_it() {
        let mut cores = Cores::new(2, 3 * MS);
        let (a, b) = (cores.add_thread(), cores.add_thread());
        let mut wakes = Vec::new();
        cores.run_as(a, 4 * MS, CpuKind::Syscall, 0, &mut wakes);
        cores.run_as(b, 2 * MS, CpuKind::Spin, 0, &mut wakes);
        run_out(&mut cores, wakes);
        let times = cores.finish(10 * MS);
        assert_eq!(times[0].syscall_ns, 4 * MS);
        assert_eq!(times[0].busy_ns(), 0);
        assert_eq!(times[1].spinning_ns, 2 * MS);
        // a took core 0 and b core 1.
        assert_eq!(cores.core_busy_ns(), [4 * MS, 2 * MS]);
    }

    #[test]
    fn an_unlimited_machine_runs_every_thread_at_once_in_one_stretch() {
        let mut cores = Cores::unlimited();
        let threads: Vec<ThreadId> = (0..5).map(|_| cores.add_thread()).collect();
        let mut wakes = Vec::new();
        for (index, thread) in threads.iter().enumerate() {
            cores.run(*thread, (index as u64 + 1) * 100 * MS, 0, &mut wakes);
        }
        assert_eq!(wakes.len(), 5, "one slice end each, for all of its work");
        let finished = run_out(&mut cores, wakes);
        let expected: Vec<(ThreadId, u64)> = threads
            .iter()
            .enumerate()
            .map(|(index, thread)| (*thread, (index as u64 + 1) * 100 * MS))
            .collect();
        assert_eq!(finished, expected);
        let busy = cores.busy_times();
        assert_eq!(busy[4].bins.busiest_second_ns, [500 * MS]);
        assert_eq!(busy[4].worst_second_busy_ns, 500 * MS);
    }

    #[test]
    fn the_default_slice_grows_with_the_log_of_the_cores_up_to_eight() {
        assert_eq!(default_slice_ns(1), 750_000);
        assert_eq!(default_slice_ns(2), 1_500_000);
        assert_eq!(default_slice_ns(3), 1_500_000);
        assert_eq!(default_slice_ns(4), 2_250_000);
        assert_eq!(default_slice_ns(8), DEFAULT_SLICE_NS);
        assert_eq!(default_slice_ns(64), DEFAULT_SLICE_NS);
    }
}
